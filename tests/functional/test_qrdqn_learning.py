"""QR-DQN learns CartPole-v1: a short run in the integration tier, the zoo entry's full target behind
``-m slow``."""

from __future__ import annotations

from pathlib import Path

import pytest

from border_py.checkpoint import load_meta
from border_py.run import AnyExperiment, evaluate
from tests.zoo_runs import median_of_three_seeds, train_quietly, zoo_experiment


def _config(tmp_path: Path, seed: int) -> AnyExperiment:
    return zoo_experiment("qrdqn", "CartPole-v1", tmp_path, trainer={"seed": seed})


@pytest.mark.functional
def test_short_qrdqn_run_learns_far_beyond_random_play(tmp_path: Path) -> None:
    """3,000 opt steps (7,000 env steps, about 10 s): a random policy scores ~22; the zoo entry's runs
    scored 113-281 at 5,000 env steps on seeds 0-2."""
    trainer = {"max_env_steps": None, "max_opts": 3_000, "eval_interval": 500, "save_interval": None}
    config = zoo_experiment("qrdqn", "CartPole-v1", tmp_path, trainer=trainer, evaluator={"n_episodes": 5})
    best = train_quietly(config).best_score
    assert best >= 100.0
    assert load_meta(tmp_path / "best")["score"] == best
    assert evaluate(config, tmp_path, quiet=True) == best


@pytest.mark.slow
def test_qrdqn_solves_cartpole_within_50k_env_steps(tmp_path: Path) -> None:
    """The zoo entry's full run (50,000 env steps), seeds 0-2: median best greedy mean >= 475 over 10
    episodes, each reproduced by reloading ``best``."""
    median_of_three_seeds(lambda seed, model_dir: _config(model_dir, seed), tmp_path, 475.0, 50_000)
