"""DQN learns Pong: the issue's target, a run of hours (``make test-atari``; not in ``make test`` or
``make test-slow``). On a CUDA machine, ``BORDER_PY_DEVICE=cuda make test-atari``."""

from __future__ import annotations

import os
from pathlib import Path

import attrs
import pytest

from examples import dqn_atari
from examples.harness import RunOptions, with_trainer


@pytest.mark.atari
def test_dqn_improves_from_minus_21_to_at_least_0_on_pong_within_2m_env_steps(tmp_path: Path) -> None:
    """The example's defaults (Dopamine's DQN schedule), seed 0: the best greedy mean over 3 whole games
    reaches 0 within 2,000,000 env steps, and the saved best model reproduces it."""
    config = with_trainer(dqn_atari.Config(), model_dir=str(tmp_path), max_opts=None, max_env_steps=2_000_000)
    device = os.environ.get("BORDER_PY_DEVICE", "cpu")
    config = attrs.evolve(config, agent=attrs.evolve(config.agent, device=device))
    result = dqn_atari.train(config, RunOptions(progress=False))
    assert result.best_score >= 0.0
    assert dqn_atari.evaluate(config, tmp_path) == result.best_score
