"""SAC learns Pendulum-v1: a short run in the default suite, the issue's target behind ``-m slow``."""

from __future__ import annotations

import statistics
from pathlib import Path

import attrs
import pytest

from border_py import DefaultEvaluatorConfig
from examples import sac_pendulum
from examples.harness import RunOptions, with_trainer


def _config(tmp_path: Path, seed: int) -> sac_pendulum.Config:
    return with_trainer(sac_pendulum.Config(), seed=seed, model_dir=str(tmp_path))


@pytest.mark.functional
def test_short_sac_run_learns_far_beyond_random_play(tmp_path: Path) -> None:
    """3,000 opt steps (3,256 env steps, ~30 s): a random policy scores about -1,200."""
    config = _config(tmp_path, seed=0)
    config = attrs.evolve(
        with_trainer(config, max_opts=3_000, eval_interval=500, save_interval=None),
        evaluator=DefaultEvaluatorConfig(n_episodes=5),
    )
    best = sac_pendulum.train(config, RunOptions(progress=False)).best_score
    assert best >= -400.0
    assert sac_pendulum.evaluate(config, tmp_path) == best


@pytest.mark.slow
def test_sac_reaches_minus_200_on_pendulum_within_20k_env_steps(tmp_path: Path) -> None:
    """The example's full run (20,000 env steps), seeds 0-2: median best greedy mean >= -200 over 10
    episodes, each reproduced by reloading ``best``."""
    bests = []
    for seed in (0, 1, 2):
        config = _config(tmp_path / f"seed{seed}", seed)
        result = sac_pendulum.train(config, RunOptions(progress=False))
        assert result.env_steps <= 20_000
        assert sac_pendulum.evaluate(config, tmp_path / f"seed{seed}") == result.best_score
        bests.append(result.best_score)
    assert statistics.median(bests) >= -200.0, bests
