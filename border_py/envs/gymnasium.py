"""``GymEnv``: a Gymnasium env behind the `Env` protocol, and the checks it shares
with `GymVecEnv`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import gymnasium as gym
import numpy as np
import numpy.typing as npt

from border_py.base.goal_env import GoalReward
from border_py.base.obs_parts import ObsParts
from border_py.base.spaces import Spaces
from border_py.base.step import Step
from border_py.config import episode_limit
from border_py.envs import robotics
from border_py.envs.action_masks import MaskRefusedError, MaskSource, mask_wrapper
from border_py.envs.checks import (
    checked_box_actions,
    checked_flag,
    checked_obs,
    checked_reward,
    discrete_action_check,
    raised_by_gymnasiums_checker,
    supported_spaces,
)
from border_py.envs.episode_start import checked_rng_state, checked_start
from border_py.record import Record

Obs = npt.NDArray[np.float32]
"""Observations: float32 arrays (a dict observation's parts laid side by side: `SpaceInfo.obs_parts`)."""
Act = npt.NDArray[Any]
"""Actions: an int64 array of shape ``()`` for a Discrete space, a float32 array for a Box space."""


# Records are immutable: the steps that end no episode share one empty record.
_NO_RECORD = Record()


def make_gym(name: str, kwargs: dict[str, Any], make: Callable[..., Any], **options: Any) -> Any:
    """``make(name, **options, **kwargs)`` (``gymnasium.make`` or ``make_vec``), with errors that name the
    config field at fault.

    Raises:
        ValueError: ``name`` is not a registered env (``name``; one of gymnasium-robotics' when that is not
            installed), or the env refuses ``kwargs``.
    """
    if name.startswith("border_py/"):  # border_py's own envs register when their module is imported
        import border_py.envs.goal_envs
        import border_py.envs.masked_envs
        import border_py.envs.no_velocity
        import border_py.envs.pixel_envs  # noqa: F401
    elif robotics.is_robotics_id(name):  # gymnasium-robotics' ids register when it is imported
        robotics.import_robotics(name)
    try:
        return make(name, **options, **kwargs)
    except gym.error.Error as exc:
        raise ValueError(f"env name {name!r}: {exc}") from exc
    except MaskRefusedError:  # a vector env's sub-env refused by env.action_mask: its own message says so
        raise
    except TypeError as exc:
        # Cut: Gymnasium's message repeats the kwargs, and a megabyte of them made a megabyte-long line.
        raise ValueError(f"env kwargs {kwargs!r:.300} are not accepted by {name}: {exc!s:.500}") from exc


class SpaceInfo:
    """What agents are built from: ``n_actions``, ``action_bounds`` and ``obs_dim``, read from
    ``action_space`` and ``observation_space`` (those of one sub-env for a vector env)."""

    action_space: gym.Space[Any]
    observation_space: gym.Space[Any]
    name: str
    obs_parts: ObsParts | None = None
    """A ``Dict`` observation space's parts, laid out flat in each observation; ``None`` for a Box."""

    @property
    def n_actions(self) -> int:
        """The number of actions of a Discrete space.

        Raises:
            TypeError: the action space is not Discrete.
        """
        if not isinstance(self.action_space, gym.spaces.Discrete):
            raise TypeError(f"{self.name} has a {type(self.action_space).__name__} action space")
        return int(self.action_space.n)

    @property
    def action_bounds(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """The ``(low, high)`` bounds of a Box action space, as float32 arrays.

        Raises:
            TypeError: the action space is not a Box.
        """
        if not isinstance(self.action_space, gym.spaces.Box):
            raise TypeError(f"{self.name} has a {type(self.action_space).__name__} action space")
        return self.action_space.low.astype(np.float32), self.action_space.high.astype(np.float32)

    @property
    def obs_dim(self) -> int:
        """The number of observation components (the product of the observation shape; a dict's parts
        laid side by side)."""
        if self.obs_parts is not None:
            return self.obs_parts.dim
        shape = self.observation_space.shape
        assert shape is not None  # a Box space always has a shape
        return int(np.prod(shape))

    @property
    def spaces(self) -> Spaces:
        """The observation shape and action space, as agents are built from them.

        Raises:
            TypeError: the action space is neither Discrete nor a Box (naming the env).
        """
        parts = self.obs_parts
        shape = (parts.dim,) if parts else tuple(int(n) for n in self.observation_space.shape or ())
        if isinstance(self.action_space, gym.spaces.Discrete):
            return Spaces(obs_shape=shape, n_actions=int(self.action_space.n), obs_parts=parts)
        if isinstance(self.action_space, gym.spaces.Box):
            return Spaces(
                obs_shape=shape,
                action_low=self.action_space.low,
                action_high=self.action_space.high,
                obs_parts=parts,
            )
        raise TypeError(f"{self.name}: agents act in Discrete or Box spaces, not {self.action_space}")


@attrs.frozen(kw_only=True)
class GymEnvConfig:
    """Config of `GymEnv`.

    Examples:
        >>> env = GymEnvConfig(name="CartPole-v1").build(seed=0)
        >>> env.reset().dtype
        dtype('float32')
    """

    name: str = attrs.field(validator=attrs.validators.min_len(1))
    """The Gymnasium id, e.g. ``CartPole-v1``."""
    max_episode_steps: int | None = attrs.field(default=None, validator=episode_limit)
    """In env steps: truncate episodes after this many; ``None`` keeps the env's registered limit."""
    kwargs: dict[str, Any] = attrs.field(factory=dict)
    """Extra keyword arguments of ``gymnasium.make``."""
    clip_actions: bool = False
    """Clip Box actions into the action space instead of refusing them (for a Gaussian policy such as
    PPO's, whose unclipped action is the one the buffer keeps)."""
    action_mask: MaskSource = attrs.field(
        default="observation", validator=attrs.validators.in_(("observation", "info", "method"))
    )
    """Where the env gives its legal actions: ``observation`` (its dict part ``action_mask``, or nowhere),
    ``info`` (``info["action_mask"]`` at each reset and step) or ``method`` (its ``action_masks()``, as
    sb3-contrib's ``MaskablePPO`` reads them); from the last two the mask is added to the observation as
    the part ``action_mask`` (`border_py.envs.action_masks`)."""

    def build(self, seed: int) -> GymEnv:
        """Makes the env; its first ``reset`` and its action space are seeded with ``seed``."""
        return GymEnv(self, seed)

    def evaluation(self) -> GymEnvConfig:
        """The evaluation env's config: this one (the run layer seeds it apart from the training env)."""
        return self


class GymEnv(SpaceInfo):
    """Adapts ``gymnasium.make(config.name)``: float32 observations, terminated and truncated kept apart,
    automatic reset at an episode end, and records of each episode's return and length.

    Raises ``ValueError`` when the env's name or kwargs are refused by Gymnasium (naming them), on an
    observation whose shape differs from the observation space's, on an observation or reward that is NaN
    or infinite once cast to float32 (naming the env step), and on an action outside the action space.

    Args:
        config: which env and how.
        seed: seeds the first reset and the action space.
    """

    def __init__(self, config: GymEnvConfig, seed: int) -> None:
        self.config = config
        self.seed = seed
        self.env: gym.Env[Any, Any] = make_gym(
            config.name, config.kwargs, gym.make, max_episode_steps=config.max_episode_steps
        )
        wrap = mask_wrapper(config.action_mask)
        if wrap is not None:
            self.env = wrap(self.env)
        self.obs_parts = supported_spaces(config.name, self.env.observation_space, self.env.action_space)
        self.name = config.name
        self.action_space = self.env.action_space
        self.observation_space = self.env.observation_space
        self._obs_shape = (self.obs_dim,) if self.obs_parts else self.observation_space.shape or ()
        self._check_act = self._action_check()
        self.action_space.seed(seed)
        self._seeded = False
        self._env_steps = 0
        self._episode_start: dict[str, Any] | None = None
        self._episode_return = 0.0
        self._episode_length = 0

    def _obs(self, obs: Any) -> Obs:
        return checked_obs(obs, self._obs_shape, self.name, "observation", self._env_steps, self.obs_parts)

    def _reset(self, seed: int | None) -> Obs:
        # A reset with seed None draws from the env's RNG: keep its state to start this episode again.
        rng = None if seed is not None else self.env.unwrapped.np_random.bit_generator.state
        self._episode_start = {"seed": seed, "np_random": rng, "env_steps": self._env_steps}
        try:
            obs, _ = self.env.reset(seed=seed)
        except AssertionError as exc:  # Gymnasium's checker of the first reset: a dict's keys, say
            if raised_by_gymnasiums_checker(exc):
                raise ValueError(
                    f"{self.name}: Gymnasium's env checker refused the first reset: {exc}"
                ) from None
            raise
        self._episode_return, self._episode_length = 0.0, 0
        return self._obs(obs)

    def reset(self) -> Obs:
        """Starts an episode; the first call is seeded with the build seed, later ones continue its RNG."""
        seed = None if self._seeded else self.seed
        self._seeded = True
        return self._reset(seed)

    def reset_with_index(self, ix: int) -> Obs:
        """Starts evaluation episode ``ix`` by resetting with seed ``ix``: the same episode every time."""
        self._seeded = True
        return self._reset(ix)

    def _action_check(self) -> Callable[[Act], Any]:
        """The check of each step's action (`checked_action`), with what it reads of the space read once."""
        space, name, clip = self.action_space, self.config.name, self.config.clip_actions
        if isinstance(space, gym.spaces.Discrete):
            return discrete_action_check(space, name)
        assert isinstance(space, gym.spaces.Box)  # supported_spaces refused the rest
        return lambda act: checked_box_actions(space, np.asarray(act, dtype=space.dtype)[None], name, clip)[0]

    def step(self, act: Act) -> tuple[Step[Obs, Act], Record]:
        """Steps the env; at an episode end resets it and returns the first observation as ``init_obs``."""
        try:
            obs, raw_reward, raw_terminated, raw_truncated, info = self.env.step(self._check_act(act))
        except (TypeError, AssertionError) as exc:  # the checker asserts on a dict's keys
            if raised_by_gymnasiums_checker(exc):
                raise ValueError(
                    f"{self.name}: Gymnasium's env checker could not read env step "
                    f"{self._env_steps + 1}'s output ({exc}): is the reward a real number that fits a "
                    "float32, the observation of the observation space's shape (a dict: its keys)?"
                ) from exc
            raise
        self._env_steps = at = self._env_steps + 1
        name = self.name
        reward = checked_reward(raw_reward, name, at)
        terminated = checked_flag(raw_terminated, name, "terminated", at)
        truncated = checked_flag(raw_truncated, name, "truncated", at)
        self._episode_return += reward
        self._episode_length += 1
        record = _NO_RECORD
        init_obs = None
        if terminated or truncated:
            record = Record(
                {"env/episode_return": self._episode_return, "env/episode_length": self._episode_length}
            )
            init_obs = self._reset(None)
        step = Step(
            act=act,
            obs=checked_obs(obs, self._obs_shape, name, "observation", at, self.obs_parts),
            reward=reward,
            is_terminated=terminated,
            is_truncated=truncated,
            info=info,
            init_obs=init_obs,
        )
        return step, record

    def episode_start_state(self) -> dict[str, Any]:
        """The seed or RNG state the current episode's reset used, the env step count at that reset and
        the action space's RNG state.

        Raises:
            RuntimeError: no episode was started.
        """
        if self._episode_start is None:
            raise RuntimeError(f"{self.config.name}: episode_start_state before the first reset")
        action_rng = self.action_space.np_random.bit_generator.state
        return {**self._episode_start, "action_space": action_rng}

    def restore_episode_start(self, state: dict[str, Any]) -> None:
        """Makes the next ``reset`` start the episode of ``state`` again.

        Replaying that episode's actions then reproduces it exactly for an env whose dynamics depend only
        on its own RNG (every Gymnasium env seeded through ``reset``).

        Raises:
            ValueError: ``state`` is not what `episode_start_state` returns.
        """
        name, actions = self.config.name, self.action_space.np_random.bit_generator
        seed, env_steps = checked_start(state, name, ("np_random", "action_space"))
        saved = checked_rng_state(actions, state["action_space"], "action_space", name)
        if state["np_random"] is not None:
            rng = self.env.unwrapped.np_random.bit_generator
            rng.state = checked_rng_state(rng, state["np_random"], "np_random", name)
        actions.state = saved
        # reset() uses a seed only until the env is seeded: a saved seed is replayed as that first reset.
        self.seed = self.seed if seed is None else seed
        self._seeded = seed is None
        self._env_steps = env_steps

    def goal_reward(self) -> GoalReward | None:
        """The env's own ``compute_reward`` (a goal-conditioned env's, for goal relabelling), found through
        its wrappers; ``None`` where it has none."""
        if not self.env.has_wrapper_attr("compute_reward"):
            return None
        reward: GoalReward = self.env.get_wrapper_attr("compute_reward")
        return reward

    def close(self) -> None:
        """Closes the Gymnasium env."""
        self.env.close()
