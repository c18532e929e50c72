"""``SyncSampler``: steps the env with a policy and pushes what the step processor makes of each step."""

from __future__ import annotations

import time
import warnings
from typing import Any, Generic

import numpy as np

from border_py.base.env import Env
from border_py.base.policy import Policy
from border_py.base.replay_buffer import ExperienceBuffer
from border_py.base.step_processor import StepProcessor
from border_py.base.typevars import A, I, O
from border_py.record import Record


class SyncSampler(Generic[O, A, I]):
    """Owns an env and a step processor; one call is one env step.

    The first call resets the env and the step processor. After an episode end the env has reset itself
    and the step processor has re-based on ``Step.init_obs``, so the sampler only carries the current
    observation, and the actions of the current episode for checkpoints: :meth:`load_state_dict` starts
    the saved episode again and replays them, which rebuilds the env's state and the step processor's
    (an n-step processor's pending rewards) without either having to serialise itself.

    Args:
        env: the env to step.
        step_processor: turns each step into a buffer item.

    Example:
        >>> from border_py.testing import CountingEnv, ConstantPolicy, ListBuffer, RecordingStepProcessor
        >>> sampler = SyncSampler(CountingEnv(episode_length=3), RecordingStepProcessor())
        >>> buffer = ListBuffer()
        >>> _ = sampler.sample_and_push(ConstantPolicy(0), buffer)
        >>> len(buffer)
        1
    """

    def __init__(self, env: Env[O, A], step_processor: StepProcessor[O, A, I]) -> None:
        self.env = env
        self.step_processor = step_processor
        self._obs: O | None = None
        self._episode_actions: list[A] = []
        self._steps_since_take = 0
        self._seconds_since_take = 0.0

    def sample_and_push(self, policy: Policy[O, A], buffer: ExperienceBuffer[I]) -> Record:
        """Takes one env step with ``policy`` and pushes the items it completes into ``buffer``.

        Returns:
            The env's record for the step (``env/episode_return`` and ``env/episode_length`` when an
            episode ended, empty otherwise).
        """
        start = time.perf_counter()
        if self._obs is None:
            self._obs = self.env.reset()
            self.step_processor.reset(self._obs)
        act = policy.sample(self._obs)
        step, record = self.env.step(act)
        for item in self.step_processor.process(step):
            buffer.push(item)
        if step.is_terminated or step.is_truncated:
            self._obs = step.init_obs
            self._episode_actions.clear()
        else:
            self._obs = step.obs
            self._episode_actions.append(act)
        self._seconds_since_take += time.perf_counter() - start
        self._steps_since_take += 1
        return record

    def take_fps(self) -> float:
        """Env steps per second of sampling time since the previous call (0.0 when nothing was sampled)."""
        steps, seconds = self._steps_since_take, self._seconds_since_take
        self._steps_since_take, self._seconds_since_take = 0, 0.0
        return steps / seconds if seconds > 0.0 else 0.0

    def state_dict(self) -> dict[str, Any]:
        """The current episode, for a checkpoint: how the env started it, its actions so far and the
        current observation (``None`` before the first step)."""
        if self._obs is None:
            return {"episode_start": None, "actions": [], "obs": None}
        return {
            "episode_start": self.env.episode_start_state(),
            "actions": list(self._episode_actions),
            "obs": self._obs,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Starts the saved episode again and replays its actions; the items the step processor emits on
        the way are dropped (the saved buffer already holds them).

        If the replay does not end at the saved observation (an env whose dynamics do not depend on its
        RNG alone), a :class:`ResumeWarning` says so and a new episode starts instead.
        """
        self._episode_actions.clear()
        if state["obs"] is None:
            self._obs = None
            return
        self.env.restore_episode_start(state["episode_start"])
        obs = self.env.reset()
        self.step_processor.reset(obs)
        for act in state["actions"]:
            step, _ = self.env.step(act)
            self.step_processor.process(step)
            obs = step.obs
            if step.is_terminated or step.is_truncated:
                break
            self._episode_actions.append(act)
        if len(self._episode_actions) != len(state["actions"]) or not _same_obs(obs, state["obs"]):
            warnings.warn(
                ResumeWarning(
                    f"replaying the {len(state['actions'])} actions of the unfinished episode did not "
                    "reproduce it: the env is not deterministic given its RNG. "
                    "Starting a new episode; training continues but not exactly as it would have."
                ),
                stacklevel=2,
            )
            obs = self.env.reset()
            self.step_processor.reset(obs)
            self._episode_actions.clear()
        self._obs = obs


class ResumeWarning(UserWarning):
    """A resumed run cannot continue exactly as the interrupted one would have."""


def _same_obs(a: object, b: object) -> bool:
    try:
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    except (TypeError, ValueError):
        return a == b
