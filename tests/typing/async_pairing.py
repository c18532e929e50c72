"""Typing test of ``AsyncTrainer`` (mypy checks this file; pytest does not collect it): the pairings of
``Trainer``, and an agent that can publish its acting part. Each ``# type: ignore[code]`` marks a line that
must fail (``warn_unused_ignores`` makes an unneeded one an error)."""

from __future__ import annotations

from border_py import (
    BufferedRecorder,
    GymEnvConfig,
    SimpleReplayBufferConfig,
    SimpleStepProcessorConfig,
    TrainerConfig,
)
from border_py.agents import Dqn, DqnConfig, Ppo, PpoConfig
from border_py.base import Spaces
from border_py.distributed import AsyncConfig, AsyncTrainer
from border_py.testing import FakeAgent, ListBufferConfig

config = TrainerConfig(max_opts=1)
trainer = AsyncTrainer(
    config,
    AsyncConfig(),
    GymEnvConfig(name="CartPole-v1"),
    SimpleStepProcessorConfig(),
    SimpleReplayBufferConfig(),
)


def make_dqn(seed: int) -> Dqn:
    return Dqn(DqnConfig(), Spaces(obs_shape=(4,), n_actions=2), seed=seed)


# --- DQN (as IQN and SAC) publishes its acting part ------------------------------------------------------
trainer.train(make_dqn(0), make_dqn, BufferedRecorder())

# --- an agent without an acting state (PPO learns on-policy) is rejected ----------------------------------
trainer.train(Ppo(PpoConfig(), Spaces(obs_shape=(4,), n_actions=2), seed=0), make_dqn, BufferedRecorder())  # type: ignore[arg-type]
trainer.train(FakeAgent(), make_dqn, BufferedRecorder())  # type: ignore[arg-type]

# --- the step processor's items must be the buffer's ---------------------------------------------------
AsyncTrainer(config, AsyncConfig(), GymEnvConfig(name="x"), SimpleStepProcessorConfig(), ListBufferConfig())  # type: ignore[misc]
