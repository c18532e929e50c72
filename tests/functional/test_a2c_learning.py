"""A2C learns CartPole-v1: a short run of the zoo entry in the integration tier, the zoo entry's full
target behind ``-m slow``."""

from __future__ import annotations

from pathlib import Path

import pytest

from border_py.run import AnyExperiment, evaluate
from tests.zoo_runs import median_of_three_seeds, train_quietly, zoo_experiment


def _config(tmp_path: Path, seed: int) -> AnyExperiment:
    return zoo_experiment("a2c", "CartPole-v1", tmp_path, trainer={"seed": seed})


@pytest.mark.functional
def test_short_a2c_run_balances_the_pole(tmp_path: Path) -> None:
    """The zoo entry's first 100,000 env steps (2,500 RMSprop steps, 15-30 s), evaluated every 10,000:
    random play lasts about 22 steps; seed 0 reached 500 in this run."""
    trainer = {"max_env_steps": 100_000, "eval_interval": 250, "save_interval": None}
    config = zoo_experiment("a2c", "CartPole-v1", tmp_path, trainer=trainer, evaluator={"n_episodes": 5})
    best = train_quietly(config).best_score
    assert best >= 400.0
    assert evaluate(config, tmp_path, quiet=True) == best


@pytest.mark.slow
def test_a2c_reaches_475_on_cartpole_within_500k_env_steps(tmp_path: Path) -> None:
    """The zoo entry's full run (500,000 env steps), seeds 0-2: median best greedy mean >= 475 over 10
    episodes, each reproduced by reloading ``best``."""
    median_of_three_seeds(lambda seed, model_dir: _config(model_dir, seed), tmp_path, 475.0, 500_000)
