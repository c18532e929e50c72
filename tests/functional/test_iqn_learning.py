"""IQN learns CartPole-v1: a short run in the default suite, the issue's target behind ``-m slow``."""

from __future__ import annotations

import statistics
from pathlib import Path

import attrs
import pytest

from border_py import DefaultEvaluatorConfig
from examples import iqn_cartpole
from examples.harness import RunOptions, with_trainer


def _config(tmp_path: Path, seed: int) -> iqn_cartpole.Config:
    return with_trainer(iqn_cartpole.Config(), seed=seed, model_dir=str(tmp_path))


@pytest.mark.functional
def test_short_iqn_run_learns_far_beyond_random_play(tmp_path: Path) -> None:
    """3,000 opt steps (7,000 env steps): a random policy scores ~22."""
    config = _config(tmp_path, seed=0)
    config = attrs.evolve(
        with_trainer(config, max_opts=3_000, eval_interval=500, save_interval=None),
        evaluator=DefaultEvaluatorConfig(n_episodes=5),
    )
    best = iqn_cartpole.train(config, RunOptions(progress=False)).best_score
    assert best >= 100.0
    assert iqn_cartpole.evaluate(config, tmp_path) == best


@pytest.mark.slow
def test_iqn_solves_cartpole_within_50k_env_steps(tmp_path: Path) -> None:
    """The example's full run (50,000 env steps), seeds 0-2: median best greedy mean >= 475 over 10
    episodes, each reproduced by reloading ``best``."""
    bests = []
    for seed in (0, 1, 2):
        config = _config(tmp_path / f"seed{seed}", seed)
        result = iqn_cartpole.train(config, RunOptions(progress=False))
        assert result.env_steps <= 50_000
        assert iqn_cartpole.evaluate(config, tmp_path / f"seed{seed}") == result.best_score
        bests.append(result.best_score)
    assert statistics.median(bests) >= 475.0, bests
