"""Dict observations with an image: SAC and PPO learn border_py's pixel env through their zoo entries,
reading both the image (a CNN each, `border_py.agents.multi_input`) and the flat part, and the saved
policy takes the dict again."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from border_py.run import load_policy
from tests.zoo_runs import train_quietly, zoo_experiment

ENV = "border_py/PixelTarget-v0"
THRESHOLDS = {"sac": -0.15, "ppo": 0.75}
"""Above what any policy reading one part alone can score (simulated over 200,000 draws: the image alone
-0.23 and 0.54, the offset alone -0.49 and 0.33; random play -0.69 and 0.20; the best 0 and 1)."""


@pytest.mark.parametrize("algo", ["sac", "ppo"])
def test_the_zoo_entry_reads_the_image_and_the_flat_part(algo: str, tmp_path: Path) -> None:
    """The zoo entries' full runs (SAC 3,000 env steps, ~50 s; PPO 20,480, ~30 s), seed 0."""
    experiment = zoo_experiment(algo, ENV, tmp_path)
    result = train_quietly(experiment)
    assert result.best_score >= THRESHOLDS[algo]
    policy = load_policy(tmp_path)
    env = gym.make(ENV, **({"discrete": True} if algo == "ppo" else {}))
    obs, _ = env.reset(seed=0)
    batch = {key: np.stack([value] * 3) for key, value in obs.items()}
    assert obs["image"].dtype == np.uint8
    single, many = policy.predict(obs), policy.predict(batch)
    assert many.shape == (3, *single.shape)
    # A batch's convolutions sum in another order than one observation's: equal to float rounding.
    np.testing.assert_allclose(many, np.broadcast_to(single, many.shape), atol=1e-5)
    flat = np.concatenate([obs[key].reshape(-1).astype(np.float32) for key in sorted(obs)])
    np.testing.assert_array_equal(policy.predict(flat), single)
