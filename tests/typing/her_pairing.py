"""Typing test of goal relabelling (mypy checks this file; pytest does not collect it).

``HerStepProcessorConfig.build_for`` takes a `border_py.base.GoalEnv` (an env that can give its observation
layout and its ``compute_reward``): an env that cannot is a type error; a Gymnasium adapter, which may wrap
a goal env or not, passes here and is refused at build time, naming what it lacks. In an experiment, HER's
transitions pair with the buffers that store `Transition` s and the agents that learn from their batches.
Each ``# type: ignore[code]`` marks a line that must fail (``warn_unused_ignores`` makes an unneeded one an
error).
"""

from __future__ import annotations

from typing import assert_type

from border_py import (
    FrameReplayBufferConfig,
    GymEnvConfig,
    GymVecEnvConfig,
    HerStepProcessor,
    HerStepProcessorConfig,
    SimpleReplayBufferConfig,
    TrainerConfig,
    Transition,
    TransitionBatch,
)
from border_py.agents import SacConfig
from border_py.envs import Act, AtariEnvConfig, Obs
from border_py.run import Experiment
from border_py.testing import CountingEnv

her = HerStepProcessorConfig()
goal_env = GymEnvConfig(name="border_py/PointGoal-v0", kwargs={"reward_type": "sparse"})

# --- the Gymnasium adapters can give a goal env's layout and reward: accepted ------------------------
assert_type(her.build_for(goal_env.build(0)), HerStepProcessor)
her.build_for(GymVecEnvConfig(name="border_py/PointGoal-v0", num_envs=2).build(0))

# --- an env that has no goal_reward() at all: refused ----------------------------------------------
her.build_for(CountingEnv())  # type: ignore[arg-type]
her.build_for(AtariEnvConfig(game="pong").build(0))  # type: ignore[arg-type]

# --- in an experiment, HER's transitions go to a transition buffer and SAC's batches ------------------
sac_her = Experiment(
    env=goal_env,
    step_processor=her,
    replay_buffer=SimpleReplayBufferConfig(),
    agent=SacConfig(),
    trainer=TrainerConfig(max_opts=1),
)
assert_type(sac_her, Experiment[Obs, Act, Transition, TransitionBatch])
her_into_frames = Experiment(  # type: ignore[misc]
    env=goal_env,
    step_processor=her,
    replay_buffer=FrameReplayBufferConfig(),
    agent=SacConfig(),
    trainer=TrainerConfig(max_opts=1),
)
