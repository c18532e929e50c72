"""``SyncSampler``: steps the env with a policy and pushes what the step processor makes of each step."""

from __future__ import annotations

import time
from typing import Generic

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
    observation.

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
        step, record = self.env.step(policy.sample(self._obs))
        for item in self.step_processor.process(step):
            buffer.push(item)
        self._obs = step.init_obs if (step.is_terminated or step.is_truncated) else step.obs
        self._seconds_since_take += time.perf_counter() - start
        self._steps_since_take += 1
        return record

    def take_fps(self) -> float:
        """Env steps per second of sampling time since the previous call (0.0 when nothing was sampled)."""
        steps, seconds = self._steps_since_take, self._seconds_since_take
        self._steps_since_take, self._seconds_since_take = 0, 0.0
        return steps / seconds if seconds > 0.0 else 0.0
