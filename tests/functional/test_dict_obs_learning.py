"""Dict observations: SAC and PPO learn border_py's goal env through its zoo entries, and a dict env trains
exactly as the same env flattened by Gymnasium before border_py sees it (the layout adds nothing)."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from border_py.envs.goal_envs import PointGoalEnv
from border_py.run import evaluate, load_policy
from tests.checkpoint_diff import checkpoint_differences
from tests.zoo_runs import train_quietly, zoo_experiment

ENV = "border_py/PointGoal-v0"
THRESHOLD = -8.0
"""Going straight to the goal scores -5.2 and random play -52 (means over 100 episodes)."""


@pytest.mark.parametrize("algo", ["sac", "ppo"])
def test_the_zoo_entry_learns_the_goal_env_from_dict_observations(algo: str, tmp_path: Path) -> None:
    """The zoo entries' full runs (SAC 5,000 env steps, ~1.5 min; PPO 61,440, ~45 s), seed 0."""
    experiment = zoo_experiment(algo, ENV, tmp_path)
    result = train_quietly(experiment)
    assert result.best_score >= THRESHOLD
    assert evaluate(experiment, tmp_path, quiet=True) == result.best_score
    policy = load_policy(tmp_path)
    env = gym.make(ENV)
    obs, _ = env.reset(seed=0)
    batch = {key: np.stack([value] * 2) for key, value in obs.items()}
    assert policy.predict(obs).shape == (2,)
    assert policy.predict(batch).shape == (2, 2)
    flat = np.concatenate([obs[key] for key in sorted(obs)])
    assert (policy.predict(obs) == policy.predict(flat)).all()


def test_a_dict_env_trains_exactly_as_its_flattened_twin(tmp_path: Path) -> None:
    flat_id = "test/PointGoalFlat-v0"
    gym.register(
        flat_id,
        entry_point=lambda **_: gym.wrappers.FlattenObservation(PointGoalEnv()),
        max_episode_steps=50,
    )
    trainer = {"max_env_steps": 600, "warmup_period": 256, "eval_interval": 300, "save_interval": 300}
    try:
        for name in (ENV, flat_id):
            experiment = zoo_experiment("sac", ENV, tmp_path / name, env={"name": name}, trainer=trainer)
            train_quietly(experiment)
    finally:
        gym.registry.pop(flat_id)
    dict_run, flat_run = tmp_path / ENV, tmp_path / flat_id
    assert checkpoint_differences(dict_run / "344", flat_run / "344") == []
    assert checkpoint_differences(dict_run / "best", flat_run / "best") == []
