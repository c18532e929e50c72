"""Typing test of recurrent PPO (mypy checks this file; pytest does not collect it).

Recurrent PPO learns from whole rollouts (`Rollout`), so it pairs with the rollout buffer only: a replay
buffer of transitions, whose shuffled batches would cut every sequence, is a type error (and the run
layer refuses the same experiment file: ``tests/agents/test_recurrent_pairing.py``). The agent is a
`border_py.base.RecurrentPolicy` (the sampler and the evaluator tell it where episodes start); PPO, which
has no memory, is not. Each ``# type: ignore[code]`` marks a line that must fail (``warn_unused_ignores``
makes an unneeded one an error).
"""

from __future__ import annotations

from typing import assert_type

from border_py import (
    Rollout,
    RolloutBufferConfig,
    SimpleReplayBufferConfig,
    SimpleStepProcessorConfig,
    TrainerConfig,
    Transition,
)
from border_py.agents import PpoConfig, RecurrentPpoConfig
from border_py.base import RecurrentPolicy, Spaces
from border_py.envs import Act, GymVecEnvConfig, Obs
from border_py.run import Experiment

env = GymVecEnvConfig(name="border_py/CartPoleNoVel-v1", num_envs=2)

# --- with the rollout buffer: accepted -------------------------------------------------------------
recurrent = Experiment(
    env=env,
    step_processor=SimpleStepProcessorConfig(),
    replay_buffer=RolloutBufferConfig(n_steps=8, num_envs=2),
    agent=RecurrentPpoConfig(),
    trainer=TrainerConfig(max_opts=1),
)
assert_type(recurrent, Experiment[Obs, Act, Transition, Rollout])

# --- with a replay buffer of shuffled transitions: refused ------------------------------------------
shuffled = Experiment(  # type: ignore[misc]
    env=env,
    step_processor=SimpleStepProcessorConfig(),
    replay_buffer=SimpleReplayBufferConfig(),
    agent=RecurrentPpoConfig(),
    trainer=TrainerConfig(max_opts=1),
)

# --- the agent has a memory the sampler clears; PPO has none ----------------------------------------
spaces = Spaces(obs_shape=(4,), n_actions=2)
with_memory: RecurrentPolicy = RecurrentPpoConfig().build(spaces, 0)
without_memory: RecurrentPolicy = PpoConfig().build(spaces, 0)  # type: ignore[assignment]
