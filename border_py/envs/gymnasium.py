"""``GymEnv``: a Gymnasium env behind the :class:`~border_py.base.Env` protocol."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import attrs
import gymnasium as gym
import numpy as np
import numpy.typing as npt

from border_py.base.step import Step
from border_py.record import Record

Obs = npt.NDArray[np.float32]
"""Observations: float32 arrays."""
Act = npt.NDArray[Any]
"""Actions: an int64 array of shape ``()`` for a Discrete space, a float32 array for a Box space."""


# Records are immutable: the steps that end no episode share one empty record.
_NO_RECORD = Record()


def _checked_action(space: gym.Space[Any], act: Act, name: str) -> Any:
    """``act`` as the env takes it; ``ValueError`` (naming the env) when it is outside ``space``."""
    if isinstance(space, gym.spaces.Discrete):
        a = int(act)
        if not space.start <= a < space.start + space.n:
            raise ValueError(f"{name}: action {a} outside Discrete({space.n})")
        # np.int64, not int: Discrete.contains (which Gymnasium's envs assert) checks a Python int
        # against np.iinfo, which costs more than the whole conversion.
        return np.int64(a)
    assert isinstance(space, gym.spaces.Box)
    a_box = np.asarray(act, dtype=space.dtype)
    if a_box.shape != space.shape:
        raise ValueError(f"{name}: action shape {a_box.shape} != action space shape {space.shape}")
    if not (np.all(a_box >= space.low) and np.all(a_box <= space.high)):
        raise ValueError(f"{name}: action {a_box} outside [{space.low}, {space.high}]")
    return a_box


def _supported_spaces(name: str, obs_space: gym.Space[Any], act_space: gym.Space[Any]) -> None:
    if not isinstance(obs_space, gym.spaces.Box):
        raise TypeError(f"{name}: only Box observation spaces are supported, got {obs_space}")
    if not isinstance(act_space, gym.spaces.Discrete | gym.spaces.Box):
        raise TypeError(f"{name}: only Discrete and Box action spaces are supported, got {act_space}")


class _SpaceInfo:
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


@attrs.frozen(kw_only=True)
class GymEnvConfig:
    """Config of :class:`GymEnv`.

    Example:
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

    def build(self, seed: int) -> GymEnv:
        """Makes the env; its first ``reset`` and its action space are seeded with ``seed``."""
        return GymEnv(self, seed)


class GymEnv(_SpaceInfo):
    """Adapts ``gymnasium.make(config.name)``: float32 observations, terminated and truncated kept apart,
    automatic reset at an episode end, and records of each episode's return and length.

    Raises ``ValueError`` on an observation or reward that is NaN or infinite (naming the env step), and on
    an action outside the action space.

    Args:
        config: which env and how.
        seed: seeds the first reset and the action space.
    """

    def __init__(self, config: GymEnvConfig, seed: int) -> None:
        self.config = config
        self.seed = seed
        self.env: gym.Env[Any, Any] = gym.make(
            config.name, max_episode_steps=config.max_episode_steps, **config.kwargs
        )
        _supported_spaces(config.name, self.env.observation_space, self.env.action_space)
        self.name = config.name
        self.action_space = self.env.action_space
        self.observation_space = self.env.observation_space
        self.action_space.seed(seed)
        self._seeded = False
        self._env_steps = 0
        self._episode_start: dict[str, Any] | None = None
        self._episode_return = 0.0
        self._episode_length = 0

    def _obs(self, obs: Any) -> Obs:
        out = np.asarray(obs, dtype=np.float32)
        if not np.isfinite(out).all():
            raise ValueError(
                f"{self.config.name}: observation at env step {self._env_steps} is not finite: {out}"
            )
        return out

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
        return _checked_action(self.action_space, act, self.config.name)

    def step(self, act: Act) -> tuple[Step[Obs, Act], Record]:
        """Steps the env; at an episode end resets it and returns the first observation as ``init_obs``."""
        obs, reward, terminated, truncated, info = self.env.step(self._check_act(act))
        self._env_steps += 1
        reward = float(reward)
        if not math.isfinite(reward):
            raise ValueError(
                f"{self.config.name}: reward at env step {self._env_steps} is not finite: {reward}"
            )
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
            is_terminated=bool(terminated),
            is_truncated=bool(truncated),
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
            ValueError: ``state`` is not what :meth:`episode_start_state` returns.
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


@attrs.frozen(kw_only=True)
class GymVecEnvConfig:
    """Config of :class:`GymVecEnv`: ``num_envs`` copies of a Gymnasium env in one vector env.

    Example:
        >>> env = GymVecEnvConfig(name="CartPole-v1", num_envs=4).build(seed=0)
        >>> len(env.reset())
        4
    """

    name: str = attrs.field(validator=attrs.validators.min_len(1))
    """The Gymnasium id, e.g. ``CartPole-v1``."""
    num_envs: int = attrs.field(validator=attrs.validators.gt(0))
    """How many sub-envs; each call of the sampler takes one step in every one of them."""
    mode: Literal["sync", "async"] = attrs.field(
        default="sync", validator=attrs.validators.in_(("sync", "async"))
    )
    """``sync``: the sub-envs step one after another in this process (best for cheap envs such as the
    classic-control ones); ``async``: each in its own process (for envs whose step costs more than the
    inter-process round trip, about 50 us)."""
    max_episode_steps: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.gt(0))
    )
    """In env steps of one sub-env: truncate episodes after this many; ``None`` keeps the registered
    limit."""
    kwargs: dict[str, Any] = attrs.field(factory=dict)
    """Extra keyword arguments of ``gymnasium.make`` for each sub-env."""

    def build(self, seed: int) -> GymVecEnv:
        """Makes the vector env; sub-env ``i``'s first reset is seeded with ``seed + i``."""
        env = gym.make_vec(
            self.name,
            num_envs=self.num_envs,
            vectorization_mode=self.mode,
            vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP},
            max_episode_steps=self.max_episode_steps,
            **self.kwargs,
        )
        return GymVecEnv(env, seed, self.name)


class GymVecEnv(_SpaceInfo):
    """Adapts a Gymnasium vector env to :class:`~border_py.base.VecEnv`: one float32 observation and one
    :class:`~border_py.base.Step` per sub-env, with the final observation of an ended episode in
    ``Step.obs`` and the first one of the next in ``Step.init_obs``, and a record per ended episode.

    The vector env must reset its sub-envs in the same step (``AutoresetMode.SAME_STEP``, as
    :class:`GymVecEnvConfig` builds it): with the default next-step reset the step after an episode end
    is a reset that takes no action, which would be a transition that never happened. ``Step.info`` is
    empty: Gymnasium's vector infos are not split per sub-env.

    Raises ``ValueError`` on an observation or reward that is NaN or infinite (naming the sub-env and the
    env step) and on an action outside the action space.

    Args:
        env: the vector env (sub-envs with Box observations and Discrete or Box actions).
        seed: seeds the first reset (sub-env ``i`` with ``seed + i``).
        name: names the env in errors.
    """

    def __init__(self, env: gym.vector.VectorEnv[Any, Any, Any], seed: int, name: str) -> None:
        mode = env.metadata.get("autoreset_mode")
        if mode != gym.vector.AutoresetMode.SAME_STEP:
            raise ValueError(
                f"{name}: the vector env resets with {mode}; border_py needs AutoresetMode.SAME_STEP "
                "(gymnasium.make_vec(..., vector_kwargs={'autoreset_mode': AutoresetMode.SAME_STEP}))"
            )
        _supported_spaces(name, env.single_observation_space, env.single_action_space)
        self.env = env
        self.seed = seed
        self.name = name
        self.action_space = env.single_action_space
        self.observation_space = env.single_observation_space
        self._n = int(env.num_envs)
        self._seeded = False
        self._env_steps = 0
        self._returns = np.zeros(self._n)
        self._lengths = np.zeros(self._n, dtype=np.int64)

    @property
    def num_envs(self) -> int:
        """The number of sub-envs."""
        return self._n

    def _obs(self, obs: Any, what: str) -> Obs:
        out = np.asarray(obs, dtype=np.float32)
        if not np.isfinite(out).all():
            raise ValueError(f"{self.name}: {what} at env step {self._env_steps} is not finite: {out}")
        return out

    def reset(self) -> list[Obs]:
        """Starts an episode in every sub-env: the first call seeded with the build seed, later ones
        continuing each sub-env's RNG."""
        obs, _ = self.env.reset(seed=None if self._seeded else self.seed)
        self._seeded = True
        self._returns[:], self._lengths[:] = 0.0, 0
        return list(self._obs(obs, "observation"))

    def _actions(self, acts: Sequence[Act]) -> npt.NDArray[Any]:
        if len(acts) != self._n:
            raise ValueError(f"{self.name}: {len(acts)} actions for {self._n} sub-envs")
        space = self.action_space
        if isinstance(space, gym.spaces.Discrete):
            batch = np.asarray(acts, dtype=np.int64).reshape(self._n)
            bad = (batch < space.start) | (batch >= space.start + space.n)
        else:
            assert isinstance(space, gym.spaces.Box)
            batch = np.asarray(acts, dtype=space.dtype)
            if batch.shape[1:] != space.shape:
                raise ValueError(
                    f"{self.name}: action shape {batch.shape[1:]} != action space shape {space.shape}"
                )
            bad = ((batch < space.low) | (batch > space.high)).reshape(self._n, -1).any(axis=1)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{self.name}: action {batch[i]} of sub-env {i} outside {space}")
        return batch

    def step(self, acts: Sequence[Act]) -> tuple[list[Step[Obs, Act]], list[Record]]:
        """Steps every sub-env; an ended episode's sub-env has already reset (``Step.init_obs``)."""
        obs, reward, terminated, truncated, info = self.env.step(self._actions(acts))
        self._env_steps += self._n
        obs = self._obs(obs, "observation")
        rewards = np.asarray(reward, dtype=np.float64)
        if not np.isfinite(rewards).all():
            raise ValueError(f"{self.name}: reward at env step {self._env_steps} is not finite: {rewards}")
        self._returns += rewards
        self._lengths += 1
        done = np.logical_or(terminated, truncated)
        steps: list[Step[Obs, Act]] = []
        records: list[Record] = []
        for i in range(self._n):
            if done[i]:
                records.append(
                    Record(
                        {
                            "env/episode_return": float(self._returns[i]),
                            "env/episode_length": int(self._lengths[i]),
                        }
                    )
                )
                self._returns[i], self._lengths[i] = 0.0, 0
                final_obs = self._obs(info["final_obs"][i], f"final observation of sub-env {i}")
                steps.append(
                    Step(
                        act=acts[i],
                        obs=final_obs,
                        reward=float(rewards[i]),
                        is_terminated=bool(terminated[i]),
                        is_truncated=bool(truncated[i]),
                        init_obs=obs[i],
                    )
                )
            else:
                steps.append(
                    Step(
                        act=acts[i],
                        obs=obs[i],
                        reward=float(rewards[i]),
                        is_terminated=False,
                        is_truncated=False,
                    )
                )
        return steps, records

    def close(self) -> None:
        """Closes the vector env (and the sub-env processes in ``async`` mode)."""
        self.env.close()
