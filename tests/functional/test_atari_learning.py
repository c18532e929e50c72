"""DQN learns Pong: the issue's target, a run of hours (``make test-atari``; not in ``make test`` or
``make test-slow``). On a CUDA machine, ``BORDER_PY_DEVICE=cuda make test-atari``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from border_py.run import evaluate
from tests.zoo_runs import train_quietly, zoo_experiment


@pytest.mark.atari
def test_dqn_improves_from_minus_21_to_at_least_0_on_pong_within_2m_env_steps(tmp_path: Path) -> None:
    """The zoo's ALE/Pong-v5 entry (Dopamine's DQN schedule), seed 0: the best greedy mean over 3 whole games
    reaches 0 within 2,000,000 env steps, and the saved best model reproduces it."""
    device = os.environ.get("BORDER_PY_DEVICE", "cpu")
    trainer = {"max_opts": None, "max_env_steps": 2_000_000}
    config = zoo_experiment("dqn", "ALE/Pong-v5", tmp_path, trainer=trainer, agent={"device": device})
    result = train_quietly(config)
    assert result.best_score >= 0.0
    assert evaluate(config, tmp_path, quiet=True) == result.best_score
