"""DQN learns CartPole-v1: a short run in the default suite, the full target and n-step behind ``-m slow``."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from border_py.checkpoint import load_meta
from border_py.run import AnyExperiment, evaluate
from tests.zoo_runs import train_quietly, zoo_experiment


def _config(tmp_path: Path, seed: int, n_steps: int = 1, **trainer: object) -> AnyExperiment:
    """The zoo's DQN CartPole-v1 experiment, saving into ``tmp_path``."""
    return zoo_experiment(
        "dqn", "CartPole-v1", tmp_path, trainer={"seed": seed, **trainer}, step_processor={"n_steps": n_steps}
    )


@pytest.mark.functional
def test_short_dqn_run_learns_far_beyond_random_play(tmp_path: Path) -> None:
    """5,000 opt steps (~11k env steps, ~12 s): a random policy scores ~22, this run's best ~350."""
    trainer = {"max_opts": 5_000, "eval_interval": 500, "save_interval": None}
    config = zoo_experiment("dqn", "CartPole-v1", tmp_path, trainer=trainer, evaluator={"n_episodes": 5})
    best = train_quietly(config).best_score
    assert best >= 150.0
    assert load_meta(tmp_path / "best")["score"] == best
    # The saved best model reproduces its score.
    assert evaluate(config, tmp_path, quiet=True) == best


@pytest.mark.slow
def test_dqn_solves_cartpole_and_3_step_returns_need_no_more_env_steps(tmp_path: Path) -> None:
    """The zoo entry's full run, seeds 0-2: every 1-step run reaches a greedy mean >= 475 over 10 episodes
    (reproduced by reloading ``best``), and with 3-step returns the median env steps to reach 475 is no
    more than with 1-step returns."""
    to_475: dict[int, list[int | None]] = {1: [], 3: []}
    for n_steps in (1, 3):
        for seed in (0, 1, 2):
            config = _config(tmp_path / f"n{n_steps}_seed{seed}", seed, n_steps)
            result = train_quietly(config)
            to_475[n_steps].append(result.env_steps_to_reach(475.0))
            if n_steps == 1:
                assert result.best_score >= 475.0
                assert evaluate(config, tmp_path / f"n1_seed{seed}", quiet=True) == result.best_score
    one_step = [n for n in to_475[1] if n is not None]
    three_step = [n for n in to_475[3] if n is not None]
    assert len(three_step) == 3, to_475
    assert statistics.median(three_step) <= statistics.median(one_step), to_475
