"""Typing test (mypy checks this file; pytest does not collect it).

An ``Experiment`` built in Python binds its components as ``Trainer`` does: the step processor's items
must be the buffer's, the agent must learn from the buffer's batches and act on the env's observations.
Each ``# type: ignore[code]`` marks a line that must fail (``warn_unused_ignores`` makes an accepted
mismatch an error).
"""

from __future__ import annotations

from typing import assert_type

from border_py import (
    FrameReplayBufferConfig,
    FrameStackStepProcessorConfig,
    GymEnvConfig,
    NStepStepProcessorConfig,
    RolloutBufferConfig,
    SimpleReplayBufferConfig,
    TrainerConfig,
    Transition,
    TransitionBatch,
)
from border_py.agents import DqnConfig, PpoConfig
from border_py.envs import Act, Obs
from border_py.replay_buffer import Rollout
from border_py.run import Experiment

trainer = TrainerConfig(max_opts=1)
env = GymEnvConfig(name="CartPole-v1")

# --- the right pairings pass and bind the types ----------------------------------------------------
dqn = Experiment(
    env=env,
    step_processor=NStepStepProcessorConfig(),
    replay_buffer=SimpleReplayBufferConfig(),
    agent=DqnConfig(),
    trainer=trainer,
)
assert_type(dqn, Experiment[Obs, Act, Transition, TransitionBatch])
ppo = Experiment(
    env=env,
    step_processor=NStepStepProcessorConfig(),
    replay_buffer=RolloutBufferConfig(n_steps=8),
    agent=PpoConfig(),
    trainer=trainer,
)
assert_type(ppo, Experiment[Obs, Act, Transition, Rollout])

# --- a step processor whose items the buffer cannot store ------------------------------------------
bad_items = Experiment(  # type: ignore[misc]
    env=env,
    step_processor=FrameStackStepProcessorConfig(),
    replay_buffer=SimpleReplayBufferConfig(),
    agent=DqnConfig(),
    trainer=trainer,
)

# --- an agent that cannot learn from the buffer's batches ------------------------------------------
bad_batches = Experiment(  # type: ignore[misc]
    env=env,
    step_processor=NStepStepProcessorConfig(),
    replay_buffer=RolloutBufferConfig(n_steps=8),
    agent=DqnConfig(),
    trainer=trainer,
)

# --- frames and DQN on a vector Atari env pair; the frame buffer with DQN on Gym observations does not ---
frames_on_gym = Experiment(  # type: ignore[misc]
    env=env,
    step_processor=FrameStackStepProcessorConfig(),
    replay_buffer=FrameReplayBufferConfig(),
    agent=DqnConfig(),
    trainer=trainer,
)
