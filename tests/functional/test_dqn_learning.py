"""DQN learns CartPole-v1: a short run in the default suite, the full target behind ``-m slow``."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from border_py import DefaultEvaluatorConfig
from border_py.checkpoint import load_meta
from examples import dqn_cartpole


def _config(tmp_path: Path, seed: int) -> dqn_cartpole.Config:
    """The example's config, saving into ``tmp_path``."""
    config = dqn_cartpole.Config()
    return attrs.evolve(config, trainer=attrs.evolve(config.trainer, seed=seed, model_dir=str(tmp_path)))


@pytest.mark.functional
def test_short_dqn_run_learns_far_beyond_random_play(tmp_path: Path) -> None:
    """5,000 opt steps (~11k env steps, ~12 s): a random policy scores ~22, this run's best ~350."""
    config = _config(tmp_path, seed=0)
    config = attrs.evolve(
        config,
        trainer=attrs.evolve(config.trainer, max_opts=5_000, eval_interval=500, save_interval=None),
        evaluator=DefaultEvaluatorConfig(n_episodes=5),
    )
    best = dqn_cartpole.train(config, progress=False).best_score
    assert best >= 150.0
    assert load_meta(tmp_path / "best")["score"] == best
    # The saved best model reproduces its score.
    assert dqn_cartpole.evaluate(config, tmp_path) == best


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dqn_solves_cartpole(tmp_path: Path, seed: int) -> None:
    """The example's full run: greedy mean >= 475 over 10 episodes, reproduced by reloading ``best``."""
    config = _config(tmp_path, seed=seed)
    best = dqn_cartpole.train(config, progress=False).best_score
    assert best >= 475.0
    assert dqn_cartpole.evaluate(config, tmp_path) == best
