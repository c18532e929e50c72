"""``GymVecEnv``: a Gymnasium vector env behind the `VecEnv` protocol."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import attrs
import gymnasium as gym
import numpy as np
import numpy.typing as npt

from border_py.base.goal_env import GoalReward
from border_py.base.step import Step
from border_py.config import episode_limit
from border_py.envs.action_masks import MaskSource, mask_wrapper
from border_py.envs.checks import checked_box_actions, checked_obs, supported_spaces
from border_py.envs.episode_start import checked_start
from border_py.envs.gymnasium import Act, GymEnvConfig, Obs, SpaceInfo, make_gym
from border_py.envs.rewind import ORDER, REPLAY, START, Replayed, record_episode_starts
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
    max_episode_steps: int | None = attrs.field(default=None, validator=episode_limit)
    """In env steps of one sub-env: truncate episodes after this many; ``None`` keeps the registered
    limit."""
    kwargs: dict[str, Any] = attrs.field(factory=dict)
    """Extra keyword arguments of ``gymnasium.make`` for each sub-env."""
    clip_actions: bool = False
    """Clip Box actions into the action space instead of refusing them."""
    action_mask: MaskSource = attrs.field(
        default="observation", validator=attrs.validators.in_(("observation", "info", "method"))
    )
    """Where the env gives its legal actions (`GymEnvConfig.action_mask`)."""

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
            action_mask=self.action_mask,
        )

    def build(self, seed: int) -> GymVecEnv:
        """Makes the vector env; sub-env ``i``'s first reset is seeded with ``seed + i``. Its sub-envs
        note how each episode starts (`record_episode_starts`), so a resumed run replays them."""
        env = make_gym(
            self.name,
            self.kwargs,
            gym.make_vec,
            num_envs=self.num_envs,
            vectorization_mode=self.mode,
            vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP},
            wrappers=[w for w in (mask_wrapper(self.action_mask), record_episode_starts) if w is not None],
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

    For an exact resume its sub-envs note how each of their episodes starts (`can_rewind`): a checkpoint
    keeps those starts (`episode_start_state`) with each sub-env's actions since, and
    `restart_episodes` starts the episodes again and replays the actions, in both modes.

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
        self.obs_parts = supported_spaces(name, env.single_observation_space, env.single_action_space)
        self.env = env
        self.seed = seed
        self.name = name
        self.action_space = env.single_action_space
        self.observation_space = env.single_observation_space
        self.clip_actions = clip_actions
        self._n = int(env.num_envs)
        self._obs_shape = (
            (self._n, self.obs_dim) if self.obs_parts else (self._n, *(self.observation_space.shape or ()))
        )
        self._seeded = False
        self._env_steps = 0
        self._returns = np.zeros(self._n)
        self._lengths = np.zeros(self._n, dtype=np.int64)
        # Sub-envs are reached through call and set_attr, which both vector envs have (VectorEnv does not
        # declare them): in async mode they live in other processes.
        self._calls = env if isinstance(env, gym.vector.SyncVectorEnv | gym.vector.AsyncVectorEnv) else None
        self._can_rewind = self._calls is not None and all(self._calls.call("has_wrapper_attr", START))

    @property
    def num_envs(self) -> int:
        """The number of sub-envs."""
        return self._n

    def _obs(self, obs: Any, what: str) -> Obs:
        return checked_obs(obs, self._obs_shape, self.name, what, self._env_steps, self.obs_parts)

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
        return self._batch(acts)

    def _batch(self, acts: Sequence[Act]) -> npt.NDArray[Any]:
        """``acts`` as one checked array: row ``i`` is sub-env ``i``'s action of a step (or the ``i``-th
        action of a replay)."""
        space = self.action_space
        if isinstance(space, gym.spaces.Discrete):
            batch = np.asarray(acts, dtype=np.int64).reshape(len(acts))
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
                    self.obs_parts,
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

    @property
    def can_rewind(self) -> bool:
        """Whether `restart_episodes` can start the sub-envs' episodes again: their sub-envs note how
        each episode starts (made with `record_episode_starts`, as `GymVecEnvConfig.build` makes them)."""
        return self._can_rewind

    def episode_start_state(self) -> dict[str, Any]:
        """How each sub-env's current episode started (its reset's seed, or the RNG state that reset drew
        from) and the env step count, as plain data for a checkpoint.

        Raises:
            RuntimeError: the sub-envs note no episode starts (`can_rewind`), or were never reset.
        """
        starts = list(self._sub_envs().call(START))
        if any(start is None for start in starts):
            raise RuntimeError(f"{self.name}: no episode start to save before the first reset")
        return {"env_steps": self._env_steps, "sub_envs": starts}

    def restart_episodes(
        self, state: Any, actions: Sequence[Sequence[Act]]
    ) -> list[tuple[Obs, list[Step[Obs, Act]]]]:
        """Starts each sub-env's episode of ``state`` (what `episode_start_state` returned) again and
        takes ``actions[i]`` in sub-env ``i``: the episodes' returns and lengths and the env step count are
        then those of when ``state`` was saved.

        Returns:
            Per sub-env, its episode's first observation and the replayed steps; a replay stops after a
            step that ends the episode (it did not reproduce the saved one).

        Raises:
            ValueError: ``state`` or ``actions`` are not what was saved (the message says what).
        """
        sub_envs = self._sub_envs()
        env_steps, orders = self._orders(state, actions)
        sub_envs.set_attr(ORDER, orders)
        replayed: tuple[Replayed, ...] = sub_envs.call(REPLAY)
        self._seeded, self._env_steps = True, env_steps
        return [
            self._replayed(i, acts, *replay)
            for i, (acts, replay) in enumerate(zip(actions, replayed, strict=True))
        ]

    def _sub_envs(self) -> gym.vector.SyncVectorEnv | gym.vector.AsyncVectorEnv:
        if self._calls is None or not self._can_rewind:
            raise RuntimeError(
                f"{self.name}: its sub-envs note no episode starts (GymVecEnvConfig.build makes them so)"
            )
        return self._calls

    def _orders(
        self, state: Any, actions: Sequence[Sequence[Act]]
    ) -> tuple[int, list[tuple[dict[str, Any], list[Any], str]]]:
        """The saved env step count, and each sub-env's checked episode start and actions for its replay
        (its RNG state is checked where the sub-env lives, against its own bit generator)."""
        starts = state.get("sub_envs") if isinstance(state, Mapping) else None
        if not isinstance(starts, list) or len(starts) != self._n or len(actions) != self._n:
            raise ValueError(
                f"{self.name}: {self._n} sub-envs need {self._n} saved episode starts and action lists"
            )
        env_steps, orders = 0, []
        for i, (start, acts) in enumerate(zip(starts, actions, strict=True)):
            if not isinstance(start, Mapping):
                raise ValueError(f"{self.name}: sub-env {i}'s saved episode start is not a mapping")
            where = f"{self.name} sub-env {i}"
            seed, env_steps = checked_start(
                {**start, "env_steps": state.get("env_steps")}, where, ("np_random",)
            )
            if (seed is None) == (start["np_random"] is None):
                raise ValueError(
                    f"{where}: an episode starts from a seed or from an RNG state, not both or neither"
                )
            try:
                batch = list(self._batch(acts)) if acts else []
            except (TypeError, ValueError) as exc:  # read from a file: a dict, a string, out of the space
                raise ValueError(f"{where}: a saved action the env refuses: {exc}") from exc
            orders.append(({"seed": seed, "np_random": start["np_random"]}, batch, where))
        return env_steps, orders

    def _replayed(
        self, i: int, acts: Sequence[Act], first: Any, steps: Any
    ) -> tuple[Obs, list[Step[Obs, Act]]]:
        """Sub-env ``i``'s replay as steps (each with the saved action, as the sampler took it), and its
        episode's return and length rebuilt."""
        shape, at = self._obs_shape[1:], self._env_steps
        out: list[Step[Obs, Act]] = []
        episode_return = 0.0
        for act, (obs, reward, terminated, truncated) in zip(acts, steps, strict=False):
            episode_return += reward  # the order of step's additions: the same float
            what = f"replayed observation of sub-env {i}"
            checked = checked_obs(obs, shape, self.name, what, at, self.obs_parts)
            out.append(
                Step(act=act, obs=checked, reward=reward, is_terminated=terminated, is_truncated=truncated)
            )
        self._returns[i], self._lengths[i] = episode_return, len(out)
        what = f"first observation of sub-env {i}"
        return checked_obs(first, shape, self.name, what, at, self.obs_parts), out

    def goal_reward(self) -> GoalReward | None:
        """The sub-envs' own ``compute_reward`` (one sub-env's: they are copies), for goal relabelling;
        ``None`` where they have none. In ``async`` mode it runs in the sub-env's process."""
        calls = self._calls
        if calls is None or not all(calls.call("has_wrapper_attr", "compute_reward")):
            return None
        if isinstance(calls, gym.vector.SyncVectorEnv):
            reward: GoalReward = calls.envs[0].get_wrapper_attr("compute_reward")
            return reward
        # call() runs it in every sub-env's process; the first answer is as good as any.
        return lambda achieved, desired, infos: calls.call("compute_reward", achieved, desired, infos)[0]

    def close(self) -> None:
        """Closes the vector env (and the sub-env processes in ``async`` mode)."""
        self.env.close()
