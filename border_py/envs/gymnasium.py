"""``GymEnv``: a Gymnasium env behind the `Env` protocol, and the checks it shares
with `GymVecEnv`."""

from __future__ import annotations

import math
import traceback
from collections.abc import Callable
from typing import Any

import attrs
import gymnasium as gym
import numpy as np
import numpy.typing as npt

from border_py.base.spaces import Spaces
from border_py.base.step import Step
from border_py.record import Record

Obs = npt.NDArray[np.float32]
"""Observations: float32 arrays."""
Act = npt.NDArray[Any]
"""Actions: an int64 array of shape ``()`` for a Discrete space, a float32 array for a Box space."""


# Records are immutable: the steps that end no episode share one empty record.
_NO_RECORD = Record()
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def checked_action(space: gym.Space[Any], act: Act, name: str, clip: bool) -> Any:
    """``act`` as the env takes it; ``ValueError`` (naming the env) when it is outside ``space`` (a Box
    action is clipped into it instead with ``clip``)."""
    if isinstance(space, gym.spaces.Discrete):
        a = int(act)
        if not space.start <= a < space.start + space.n:
            raise ValueError(f"{name}: action {a} outside Discrete({space.n})")
        # np.int64, not int: Discrete.contains (which Gymnasium's envs assert) checks a Python int
        # against np.iinfo, which costs more than the whole conversion.
        return np.int64(a)
    assert isinstance(space, gym.spaces.Box)
    return checked_box_actions(space, np.asarray(act, dtype=space.dtype)[None], name, clip)[0]


def checked_box_actions(
    space: gym.spaces.Box, batch: npt.NDArray[Any], name: str, clip: bool
) -> npt.NDArray[Any]:
    """``batch`` (one action per row) checked against ``space``: the shape, NaN, and the bounds, which
    ``clip`` clips to instead of refusing.

    Raises:
        ValueError: the message names the env, the row (the sub-env) and the action.
    """
    if batch.shape[1:] != space.shape:
        raise ValueError(f"{name}: action shape {batch.shape[1:]} != action space shape {space.shape}")
    if clip:
        batch = np.clip(batch, space.low, space.high)
        bad = np.isnan(batch).reshape(len(batch), -1).any(axis=1)
    else:
        bad = ~((batch >= space.low) & (batch <= space.high)).reshape(len(batch), -1).all(axis=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        where = "" if len(batch) == 1 else f" of sub-env {i}"
        raise ValueError(f"{name}: action {batch[i]}{where} outside {space}")
    return batch


def supported_spaces(name: str, obs_space: gym.Space[Any], act_space: gym.Space[Any]) -> None:
    """Refuses the spaces border_py's agents cannot act in.

    Raises:
        TypeError: the observation space is not a Box, or the action space neither Discrete nor Box.
    """
    if not isinstance(obs_space, gym.spaces.Box):
        raise TypeError(f"{name}: only Box observation spaces are supported, got {obs_space}")
    if not isinstance(act_space, gym.spaces.Discrete | gym.spaces.Box):
        raise TypeError(f"{name}: only Discrete and Box action spaces are supported, got {act_space}")


def checked_obs(obs: Any, shape: tuple[int, ...], name: str, what: str, env_step: int) -> Obs:
    """``obs`` as float32, checked against the declared ``shape`` and for NaN and infinity after the cast
    (a finite float64 can overflow float32).

    Raises:
        ValueError: the message names the env, ``what`` (the observation, a sub-env's final one) and the
            env step, with the actual and declared shapes.
    """
    out = np.asarray(obs)
    if out.dtype.kind not in "biuf":  # strings, objects, complex numbers: no float32 observation
        raise ValueError(
            f"{name}: {what} at env step {env_step} is not numeric (dtype {out.dtype}): {obs!r:.200}"
        )
    if out.dtype != np.float32:
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported below, as an error
            out = out.astype(np.float32)
    if out.shape != shape:
        raise ValueError(
            f"{name}: {what} at env step {env_step} has shape {out.shape}, but the observation space "
            f"declares {shape}"
        )
    if not np.isfinite(out).all():
        raise ValueError(f"{name}: {what} at env step {env_step} is not finite (as float32): {out}")
    return out


_REAL = (bool, int, float, np.bool_, np.integer, np.floating)


def checked_reward(reward: Any, name: str, env_step: int) -> float:
    """``reward`` as a float, refused unless it is a real number (a 0-d array of one is taken) that is
    finite as a float32 (the replay buffer's type).

    Raises:
        ValueError: the message names the env, the env step and what the reward was.
    """
    if isinstance(reward, np.ndarray) and reward.ndim == 0:
        reward = reward[()]
    if not isinstance(reward, _REAL):
        raise ValueError(
            f"{name}: reward at env step {env_step} must be a real number, got {type(reward).__name__} "
            f"{reward!r:.200}"
        )
    try:
        value = float(reward)
    except OverflowError:  # an int beyond every float (10**400)
        value = math.inf
    if not -_FLOAT32_MAX <= value <= _FLOAT32_MAX:  # False for NaN too
        raise ValueError(
            f"{name}: reward at env step {env_step} is not finite as a float32 (the replay buffer's type): "
            f"{reward!r:.40}"
        )
    return value


def _raised_by_gymnasiums_checker(exc: BaseException) -> bool:
    """Whether ``exc`` comes from Gymnasium's passive env checker (which checks the first step's output
    with numpy and fails with a ``TypeError`` on a value numpy cannot hold), not from the env itself."""
    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and frames[-1].filename.endswith("passive_env_checker.py")


def checked_flag(flag: Any, name: str, what: str, env_step: int) -> bool:
    """``terminated`` or ``truncated`` as a bool: a bool, or the integers 0 and 1 (a 0-d array of one is
    taken).

    Raises:
        ValueError: anything else (an array, a string, None), naming the env, the flag and the env step.
    """
    if isinstance(flag, np.ndarray) and flag.ndim == 0:
        flag = flag[()]
    if isinstance(flag, (bool, np.bool_)) or (isinstance(flag, (int, np.integer)) and flag in (0, 1)):
        return bool(flag)
    raise ValueError(
        f"{name}: {what} at env step {env_step} must be a bool, got {type(flag).__name__} {flag!r:.200}"
    )


def make_gym(name: str, kwargs: dict[str, Any], make: Callable[..., Any], **options: Any) -> Any:
    """``make(name, **options, **kwargs)`` (``gymnasium.make`` or ``make_vec``), with errors that name the
    config field at fault.

    Raises:
        ValueError: ``name`` is not a registered env (``name``), or the env refuses ``kwargs``.
    """
    try:
        return make(name, **options, **kwargs)
    except gym.error.Error as exc:
        raise ValueError(f"env name {name!r}: {exc}") from exc
    except TypeError as exc:
        raise ValueError(f"env kwargs {kwargs!r} are not accepted by {name}: {exc}") from exc


class SpaceInfo:
    """What agents are built from: ``n_actions``, ``action_bounds`` and ``obs_dim``, read from
    ``action_space`` and ``observation_space`` (those of one sub-env for a vector env)."""

    action_space: gym.Space[Any]
    observation_space: gym.Space[Any]
    name: str

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
        """The number of observation components (the product of the observation shape)."""
        shape = self.observation_space.shape
        assert shape is not None  # a Box space always has a shape
        return int(np.prod(shape))

    @property
    def spaces(self) -> Spaces:
        """The observation shape and action space, as agents are built from them.

        Raises:
            TypeError: the action space is neither Discrete nor a Box (naming the env).
        """
        shape = tuple(int(n) for n in self.observation_space.shape or ())
        if isinstance(self.action_space, gym.spaces.Discrete):
            return Spaces(obs_shape=shape, n_actions=int(self.action_space.n))
        if isinstance(self.action_space, gym.spaces.Box):
            return Spaces(
                obs_shape=shape, action_low=self.action_space.low, action_high=self.action_space.high
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
    max_episode_steps: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.gt(0))
    )
    """In env steps: truncate episodes after this many; ``None`` keeps the env's registered limit."""
    kwargs: dict[str, Any] = attrs.field(factory=dict)
    """Extra keyword arguments of ``gymnasium.make``."""
    clip_actions: bool = False
    """Clip Box actions into the action space instead of refusing them (for a Gaussian policy such as
    PPO's, whose unclipped action is the one the buffer keeps)."""

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
        supported_spaces(config.name, self.env.observation_space, self.env.action_space)
        self.name = config.name
        self.action_space = self.env.action_space
        self.observation_space = self.env.observation_space
        self._obs_shape = self.observation_space.shape or ()
        self.action_space.seed(seed)
        self._seeded = False
        self._env_steps = 0
        self._episode_start: dict[str, Any] | None = None
        self._episode_return = 0.0
        self._episode_length = 0

    def _obs(self, obs: Any) -> Obs:
        return checked_obs(obs, self._obs_shape, self.name, "observation", self._env_steps)

    def _reset(self, seed: int | None) -> Obs:
        # A reset with seed None draws from the env's RNG: keep its state to start this episode again.
        rng = None if seed is not None else self.env.unwrapped.np_random.bit_generator.state
        self._episode_start = {"seed": seed, "np_random": rng, "env_steps": self._env_steps}
        obs, _ = self.env.reset(seed=seed)
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

    def _check_act(self, act: Act) -> Any:
        return checked_action(self.action_space, act, self.config.name, self.config.clip_actions)

    def step(self, act: Act) -> tuple[Step[Obs, Act], Record]:
        """Steps the env; at an episode end resets it and returns the first observation as ``init_obs``."""
        try:
            obs, raw_reward, raw_terminated, raw_truncated, info = self.env.step(self._check_act(act))
        except TypeError as exc:
            if _raised_by_gymnasiums_checker(exc):
                raise ValueError(
                    f"{self.config.name}: Gymnasium's env checker could not read env step "
                    f"{self._env_steps + 1}'s output ({exc}): is the reward a real number that fits a "
                    "float32, the observation an array of the observation space's shape?"
                ) from exc
            raise
        self._env_steps += 1
        name, at = self.config.name, self._env_steps
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
            obs=self._obs(obs),
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
        try:
            seed, rng, env_steps = state["seed"], state["np_random"], int(state["env_steps"])
            if rng is not None:
                self.env.unwrapped.np_random.bit_generator.state = rng
            self.action_space.np_random.bit_generator.state = state["action_space"]
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{self.config.name}: not a saved episode start: {exc!r}") from exc
        # reset() uses a seed only until the env is seeded: a saved seed is replayed as that first reset.
        self.seed = self.seed if seed is None else int(seed)
        self._seeded = seed is None
        self._env_steps = env_steps

    def close(self) -> None:
        """Closes the Gymnasium env."""
        self.env.close()
