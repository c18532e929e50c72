"""Offline RL on pendulum-medium (built here, as ``make datasets`` builds it): IQL and AWAC beat the
behaviour policy's normalised score, BC reaches 90 % of it, within 20,000 gradient steps (medians of 3
seeds; each run's score is its best greedy evaluation, what ``best/`` holds). Slow: about 35 minutes."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import pytest

from border_py.datasets import BEHAVIOUR_RETURN_KEY
from border_py.run import zoo_datasets
from tests.zoo_runs import train_quietly, zoo_experiment


def _normalised(score: float, low: float, high: float) -> float:
    """D4RL's normalisation: 100 x (R - R_random) / (R_expert - R_random)."""
    return 100.0 * (score - low) / (high - low)


@pytest.mark.slow
def test_iql_and_awac_beat_the_behaviour_policy_and_bc_reaches_90_percent_of_it(tmp_path: Path) -> None:
    data = tmp_path / "datasets"
    argv = ["--only", "pendulum", "--out", str(data), "--work", str(tmp_path / "work")]
    assert zoo_datasets.main(argv) == 0
    dataset: Any = getattr(zoo_experiment("bc", "pendulum-medium-v0", tmp_path / "x"), "dataset", None)
    metadata = dataset.metadata()
    low, high = metadata["ref_min_score"], metadata["ref_max_score"]
    behaviour = _normalised(metadata[BEHAVIOUR_RETURN_KEY], low, high)
    scores: dict[str, list[float]] = {}
    for algo in ("bc", "iql", "awac"):
        for seed in (0, 1, 2):
            changes: dict[str, Any] = {"trainer": {"seed": seed}, "dataset": {"data_path": str(data)}}
            c = zoo_experiment(algo, "pendulum-medium-v0", tmp_path / algo / str(seed), **changes)
            result = train_quietly(c)
            assert result.opt_steps == 20_000
            scores.setdefault(algo, []).append(_normalised(result.best_score, low, high))
    medians = {name: statistics.median(s) for name, s in scores.items()}
    assert medians["iql"] > behaviour, (medians, behaviour)
    assert medians["awac"] > behaviour, (medians, behaviour)
    assert medians["bc"] >= 0.9 * behaviour, (medians, behaviour)
