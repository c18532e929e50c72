"""``GymVecEnv``: a Gymnasium vector env behind the `VecEnv` protocol."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import attrs
import gymnasium as gym
import numpy as np
import numpy.typing as npt

from border_py.base.step import Step
from border_py.envs.checks import checked_box_actions, checked_obs, supported_spaces
from border_py.envs.gymnasium import Act, GymEnvConfig, Obs, SpaceInfo, make_gym
from border_py.record import Record


@attrs.frozen(kw_only=True)
class GymVecEnvConfig:
    """Config of `GymVecEnv`: ``num_envs`` copies of a Gymnasium env in one vector env.

    Examples:
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
    clip_actions: bool = False
    """Clip Box actions into the action space instead of refusing them."""

    def evaluation(self) -> GymEnvConfig:
        """The evaluation env's config: one sub-env (`single`)."""
        return self.single()

    def single(self) -> GymEnvConfig:
        """The config of one sub-env, e.g. for the evaluation env."""
        return GymEnvConfig(
            name=self.name,
            max_episode_steps=self.max_episode_steps,
            kwargs=self.kwargs,
            clip_actions=self.clip_actions,
        )

    def build(self, seed: int) -> GymVecEnv:
        """Makes the vector env; sub-env ``i``'s first reset is seeded with ``seed + i``."""
        env = make_gym(
            self.name,
            self.kwargs,
            gym.make_vec,
            num_envs=self.num_envs,
            vectorization_mode=self.mode,
            vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP},
            max_episode_steps=self.max_episode_steps,
        )
        return GymVecEnv(env, seed, self.name, self.clip_actions)


class GymVecEnv(SpaceInfo):
    """Adapts a Gymnasium vector env to `VecEnv`: one float32 observation and one
    `Step` per sub-env, with the final observation of an ended episode in
    ``Step.obs`` and the first one of the next in ``Step.init_obs``, and a record per ended episode.

    The vector env must reset its sub-envs in the same step (``AutoresetMode.SAME_STEP``, as
    `GymVecEnvConfig` builds it): with the default next-step reset the step after an episode end
    is a reset that takes no action, which would be a transition that never happened. ``Step.info`` is
    empty: Gymnasium's vector infos are not split per sub-env.

    Raises ``ValueError`` on an observation or reward that is NaN or infinite (naming the sub-env and the
    env step) and on an action outside the action space.

    Args:
        env: the vector env (sub-envs with Box observations and Discrete or Box actions).
        seed: seeds the first reset (sub-env ``i`` with ``seed + i``).
        name: names the env in errors.
        clip_actions: clip Box actions into the action space instead of refusing them.
    """

    def __init__(
        self, env: gym.vector.VectorEnv[Any, Any, Any], seed: int, name: str, clip_actions: bool = False
    ) -> None:
        mode = env.metadata.get("autoreset_mode")
        if mode != gym.vector.AutoresetMode.SAME_STEP:
            raise ValueError(
                f"{name}: the vector env resets with {mode}; border_py needs AutoresetMode.SAME_STEP "
                "(gymnasium.make_vec(..., vector_kwargs={'autoreset_mode': AutoresetMode.SAME_STEP}))"
            )
        supported_spaces(name, env.single_observation_space, env.single_action_space)
        self.env = env
        self.seed = seed
        self.name = name
        self.action_space = env.single_action_space
        self.observation_space = env.single_observation_space
        self.clip_actions = clip_actions
        self._n = int(env.num_envs)
        self._obs_shape = (self._n, *(self.observation_space.shape or ()))
        self._seeded = False
        self._env_steps = 0
        self._returns = np.zeros(self._n)
        self._lengths = np.zeros(self._n, dtype=np.int64)

    @property
    def num_envs(self) -> int:
        """The number of sub-envs."""
        return self._n

    def _obs(self, obs: Any, what: str) -> Obs:
        return checked_obs(obs, self._obs_shape, self.name, what, self._env_steps)

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
            return checked_box_actions(
                space, np.asarray(acts, dtype=space.dtype), self.name, self.clip_actions
            )
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
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported below, as an error
            stored = rewards.astype(np.float32)
        if not np.isfinite(stored).all():
            raise ValueError(
                f"{self.name}: reward at env step {self._env_steps} is not finite as a float32 (the replay "
                f"buffer's type): {rewards}"
            )
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
                final_obs = checked_obs(
                    info["final_obs"][i],
                    self._obs_shape[1:],
                    self.name,
                    f"final observation of sub-env {i}",
                    self._env_steps,
                )
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
