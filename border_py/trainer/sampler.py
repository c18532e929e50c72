"""``SyncSampler``: steps the env (or a vector env) with a policy and pushes what the step processor makes
of each step."""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from typing import Any, Generic

from border_py.base.env import Env, RewindableVecEnv, VecEnv
from border_py.base.goal_env import EnvReader
from border_py.base.policy import Policy, sample_all, start_episodes
from border_py.base.replay_buffer import ExperienceBuffer
from border_py.base.step import Step
from border_py.base.step_processor import StepProcessor
from border_py.base.typevars import A, I, O
from border_py.record import Record
from border_py.trainer.sub_envs import SubEnvActions, replay_sub_envs, same_obs


class ResumeWarning(UserWarning):
    """A resumed run cannot continue exactly as the interrupted one would have."""


def _push(step_processor: StepProcessor[O, A, I], step: Step[O, A], buffer: ExperienceBuffer[I]) -> O:
    """Pushes the items ``step`` completes; returns the observation the next action is taken in (the next
    episode's first one after an episode end)."""
    for item in step_processor.process(step):
        buffer.push(item)
    return step.obs if step.init_obs is None else step.init_obs


class SyncSampler(Generic[O, A, I]):
    """Owns an env and a step processor; one call is one env step.

    With a `VecEnv` of ``N`` sub-envs it owns ``N`` step processors (one per
    sub-env, so an n-step processor never mixes two episodes); one call is then one step of every sub-env,
    with the actions of one `sample_all` call (one network forward for an
    agent with ``sample_batch``), and pushes the items of all ``N``.

    The first call resets the env and the step processor(s). After an episode end the env has reset itself
    and the step processor has re-based on ``Step.init_obs``, so the sampler only carries the current
    observation, and the actions of the current episode for checkpoints: `load_state_dict` starts
    the saved episode again and replays them, which rebuilds the env's state and the step processor's
    (an n-step processor's pending rewards) without either having to serialise itself. A vector env's
    sub-envs are replayed likewise, each its own episode, when it is a `RewindableVecEnv` that
    can rewind; otherwise they start new episodes on resume.

    Args:
        env: the env, or vector env, to step.
        step_processor: turns each step into buffer items; with a vector env, a sequence of
            ``env.num_envs`` of them.

    A step processor that reads the env it serves (`border_py.base.EnvReader`: goal relabelling) is
    handed ``env`` here, once.

    Raises:
        ValueError: a vector env without one step processor per sub-env, or an env with a sequence; a step
            processor refused the env (`EnvReader.read_env`).

    Examples:
        >>> from border_py.testing import CountingEnv, ConstantPolicy, ListBuffer, RecordingStepProcessor
        >>> sampler = SyncSampler(CountingEnv(episode_length=3), RecordingStepProcessor())
        >>> buffer = ListBuffer()
        >>> _ = sampler.sample_and_push(ConstantPolicy(0), buffer)
        >>> len(buffer)
        1
    """

    def __init__(
        self,
        env: Env[O, A] | VecEnv[O, A],
        step_processor: StepProcessor[O, A, I] | Sequence[StepProcessor[O, A, I]],
    ) -> None:
        # Exactly one of the two is set: the hot path then needs no isinstance check.
        self._vec: tuple[VecEnv[O, A], list[StepProcessor[O, A, I]]] | None = None
        self._single: tuple[Env[O, A], StepProcessor[O, A, I]] | None = None
        self._rewind: RewindableVecEnv[O, A] | None = None
        if isinstance(env, VecEnv):
            if not isinstance(step_processor, Sequence) or len(step_processor) != env.num_envs:
                raise ValueError(f"a vector env of {env.num_envs} sub-envs needs as many step processors")
            self._vec = (env, list(step_processor))
            if isinstance(env, RewindableVecEnv) and env.can_rewind:
                self._rewind = env
        elif isinstance(step_processor, Sequence):
            raise ValueError("a single env takes one step processor, not a sequence")
        else:
            self._single = (env, step_processor)
        for processor in step_processor if isinstance(step_processor, Sequence) else (step_processor,):
            if isinstance(processor, EnvReader):  # goal relabelling: the env's compute_reward, or a refusal
                processor.read_env(env)
        self.env = env
        self.num_envs = env.num_envs if isinstance(env, VecEnv) else 1
        """Env steps per call."""
        self._obs: O | None = None
        self._vec_obs: list[O] | None = None
        self._episode_actions: list[A] = []
        # Each sub-env's actions since its episode began, kept only where a resume can replay them.
        self._vec_actions = None if self._rewind is None else SubEnvActions[A](self.num_envs)
        self._steps_since_take = 0
        self._seconds_since_take = 0.0
        self._act_seconds_since_take = 0.0

    def sample_and_push(self, policy: Policy[O, A], buffer: ExperienceBuffer[I]) -> Sequence[Record]:
        """Takes one env step (one in every sub-env of a vector env) with ``policy`` and pushes the items
        it completes into ``buffer``.

        Returns:
            A record (``env/episode_return``, ``env/episode_length``) per episode that ended.
        """
        start = time.perf_counter()
        if self._vec is not None:
            records = self._sample_vec(policy, buffer, *self._vec)
        else:
            assert self._single is not None
            env, step_processor = self._single
            obs, acting = self._obs, start  # no reset: the policy's time starts with the call
            if obs is None:
                obs = self._obs = env.reset()
                step_processor.reset(obs)
                start_episodes(policy, (True,))
                acting = time.perf_counter()
            act = policy.sample(obs)
            self._act_seconds_since_take += time.perf_counter() - acting
            step, record = env.step(act)
            self._obs = _push(step_processor, step, buffer)
            if step.is_terminated or step.is_truncated:  # Step.is_done, without the property's call
                self._episode_actions.clear()
                start_episodes(policy, (True,))
            else:
                self._episode_actions.append(act)
            records = (record,) if record else ()
        self._seconds_since_take += time.perf_counter() - start
        self._steps_since_take += self.num_envs
        return records

    def _sample_vec(
        self,
        policy: Policy[O, A],
        buffer: ExperienceBuffer[I],
        env: VecEnv[O, A],
        step_processors: list[StepProcessor[O, A, I]],
    ) -> Sequence[Record]:
        log = self._vec_actions
        if self._vec_obs is None:
            self._vec_obs = list(env.reset())
            for proc, o in zip(step_processors, self._vec_obs, strict=True):
                proc.reset(o)
            if log is not None:
                log.restart([[] for _ in step_processors])
            start_episodes(policy, [True] * len(step_processors))
        obs = self._vec_obs
        acting = time.perf_counter()
        actions = sample_all(policy, obs)
        self._act_seconds_since_take += time.perf_counter() - acting
        steps, records = env.step(actions)
        for i, (proc, step) in enumerate(zip(step_processors, steps, strict=True)):
            obs[i] = _push(proc, step, buffer)
        if records:  # one per episode that ended (VecEnv.step): those sub-envs start again
            ended = [step.init_obs is not None for step in steps]
            start_episodes(policy, ended)
        if log is not None:
            log.add(actions)
            if records:
                log.ended(ended)
        return records

    def take_fps(self) -> float:
        """Env steps per second of sampling time since the previous call (0.0 when nothing was sampled)."""
        return self.take_times()["time/fps"]

    def take_times(self) -> dict[str, float]:
        """Since the previous call: ``time/fps`` (env steps per second of sampling time, 0.0 when nothing
        was sampled), and where that time went: ``time/act_seconds`` in the policy,
        ``time/env_seconds`` in the env and the step processor."""
        steps, seconds = self._steps_since_take, self._seconds_since_take
        acting = self._act_seconds_since_take
        self._steps_since_take, self._seconds_since_take, self._act_seconds_since_take = 0, 0.0, 0.0
        return {
            "time/fps": steps / seconds if seconds > 0.0 else 0.0,
            "time/act_seconds": acting,
            "time/env_seconds": seconds - acting,
        }

    def state_dict(self) -> dict[str, Any]:
        """The current episode, for a checkpoint: how the env started it, its actions so far and the
        current observation (``None`` before the first step). For a vector env the sub-env count, and
        where it can rewind, the same for every sub-env (each its own list of actions and observation)."""
        if self._single is None:
            return self._vec_state()
        if self._obs is None:
            return {"episode_start": None, "actions": [], "obs": None}
        return {
            "episode_start": self._single[0].episode_start_state(),
            "actions": list(self._episode_actions),
            "obs": self._obs,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Starts the saved episode again and replays its actions; the items the step processor emits on
        the way are dropped (the saved buffer already holds them).

        If the replay does not end at the saved observation (an env whose dynamics do not depend on its
        RNG alone), a `ResumeWarning` says so and a new episode starts instead.

        Raises:
            ValueError: ``state`` is not what `state_dict` returns.
        """
        self._episode_actions.clear()
        if self._vec is not None:
            self._load_vec(state, self._vec[1])
            return
        assert self._single is not None
        env, step_processor = self._single
        try:
            start, actions, saved_obs = state["episode_start"], list(state["actions"]), state["obs"]
        except (KeyError, TypeError) as exc:
            raise ValueError(f"the sampler state is malformed: {exc!r}") from exc
        if saved_obs is None:
            self._obs = None
            return
        env.restore_episode_start(start)
        obs = env.reset()
        step_processor.reset(obs)
        for i, act in enumerate(actions):
            try:
                step, _ = env.step(act)
            except (TypeError, ValueError) as exc:  # read from a file: a dict, a string, out of the space
                raise ValueError(f"actions[{i}] = {act!r:.60}: the env refuses it: {exc}") from exc
            step_processor.process(step)
            obs = step.obs
            if step.is_done:
                break
            self._episode_actions.append(act)
        if len(self._episode_actions) != len(actions) or not same_obs(obs, saved_obs):
            warnings.warn(
                ResumeWarning(
                    f"replaying the {len(actions)} actions of the unfinished episode did not "
                    "reproduce it: the env is not deterministic given its RNG. "
                    "Starting a new episode; training continues but not exactly as it would have."
                ),
                stacklevel=2,
            )
            obs = env.reset()
            step_processor.reset(obs)
            self._episode_actions.clear()
        self._obs = obs

    def _vec_state(self) -> dict[str, Any]:
        state: dict[str, Any] = {"num_envs": self.num_envs}
        if self._rewind is None or self._vec_actions is None:
            return state
        if self._vec_obs is None:
            return {**state, "episode_start": None, "actions": [], "obs": None}
        return {
            **state,
            "episode_start": self._rewind.episode_start_state(),
            "actions": self._vec_actions.per_sub_env(),
            "obs": list(self._vec_obs),
        }

    def _load_vec(self, state: dict[str, Any], procs: list[StepProcessor[O, A, I]]) -> None:
        """Replays each sub-env's saved episode; where the env cannot rewind, or the checkpoint holds no
        episodes (an older border_py's), a `ResumeWarning` says the sub-envs start new ones."""
        self._vec_obs = None  # until replayed: the next call resets every sub-env
        rewind, log = self._rewind, self._vec_actions
        if rewind is None or log is None or "episode_start" not in state:
            why = "it cannot rewind its sub-envs" if rewind is None else "the checkpoint holds no episodes"
            warnings.warn(
                ResumeWarning(
                    f"a vector env starts new episodes on resume ({why}): the unfinished ones are dropped"
                ),
                stacklevel=3,
            )
            return
        try:
            start, actions, saved_obs = (
                state["episode_start"],
                [list(a) for a in state["actions"]],
                state["obs"],
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"the sampler state is malformed: {exc!r}") from exc
        if saved_obs is None:
            return
        if not isinstance(saved_obs, list) or len(saved_obs) != self.num_envs:
            raise ValueError(f"the sampler state holds no observation for each of {self.num_envs} sub-envs")
        obs = replay_sub_envs(rewind, procs, log, (start, actions, saved_obs))
        if obs is None:
            warnings.warn(
                ResumeWarning(
                    "replaying the unfinished episodes of the vector env's sub-envs did not reproduce them: "
                    "an env is not deterministic given its RNG. Starting new episodes; training continues "
                    "but not exactly as it would have."
                ),
                stacklevel=3,
            )
        self._vec_obs = obs
