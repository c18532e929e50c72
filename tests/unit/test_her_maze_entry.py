"""The zoo's SAC + HER entry for gymnasium-robotics' ``PointMaze_UMaze-v3`` (benchmarks/her_maze.py): it reads
back without trust, its env is a goal env that goal relabelling accepts, with the sparse 1/0 reward, and an
episode ends by truncation at 300 steps, never by termination (the goal stays put when reached)."""

from __future__ import annotations

import numpy as np
import pytest

from border_py import GymEnvConfig, HerStepProcessorConfig
from border_py.run import experiment_from_dict, zoo

pytest.importorskip("mujoco", reason="mujoco is not installed (the mujoco extra)")
pytest.importorskip("gymnasium_robotics", reason="gymnasium-robotics is not installed (the robotics extra)")

ENV = "PointMaze_UMaze-v3"


def test_the_maze_entry_builds_a_goal_env_that_her_accepts_and_ends_by_truncation() -> None:
    data = zoo.entry("sac", ENV).data
    assert experiment_from_dict(data, trust_code=False).env_id == ENV
    assert data["step_processor"]["type"] == "her"
    env = GymEnvConfig(name=ENV, kwargs=data["env"]["kwargs"]).build(seed=0)
    parts = env.obs_parts
    assert parts is not None
    assert [p.key for p in parts.parts] == ["achieved_goal", "desired_goal", "observation"]
    HerStepProcessorConfig(strategy="future", n_sampled_goal=4).build_for(env)
    obs = env.reset()
    reward = env.goal_reward()
    assert reward is not None
    achieved = obs[None, 0:2]
    far = achieved + 1.0
    rewards = reward(np.concatenate([achieved, achieved]), np.concatenate([achieved, far]), [{}, {}])
    assert rewards.tolist() == [1.0, 0.0]
    rng = np.random.default_rng(0)
    for t in range(1, 301):
        step, _ = env.step(rng.uniform(-1.0, 1.0, size=2).astype(np.float32))
        assert not step.is_terminated
        assert step.is_truncated == (t == 300)
