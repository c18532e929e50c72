"""Offline RL on pendulum-medium (built here, as ``make datasets`` builds it): IQL and AWAC beat the
behaviour policy's normalised score, BC reaches 90 % of it, within 20,000 gradient steps (medians of 3
seeds; each run's score is its best greedy evaluation, what ``best/`` holds). Slow: about 35 minutes."""

from __future__ import annotations

import statistics
from pathlib import Path
from types import ModuleType

import attrs
import pytest

from border_py.datasets import BEHAVIOUR_RETURN_KEY
from examples import awac_pendulum, bc_pendulum, iql_pendulum, make_datasets
from examples.harness import RunOptions, with_trainer


def _normalised(score: float, low: float, high: float) -> float:
    """D4RL's normalisation: 100 x (R - R_random) / (R_expert - R_random)."""
    return 100.0 * (score - low) / (high - low)


@pytest.mark.slow
def test_iql_and_awac_beat_the_behaviour_policy_and_bc_reaches_90_percent_of_it(tmp_path: Path) -> None:
    data = tmp_path / "datasets"
    assert (
        make_datasets.main(["--only", "pendulum", "--out", str(data), "--work", str(tmp_path / "work")]) == 0
    )
    config = attrs.evolve(bc_pendulum.Config().dataset, data_path=str(data))
    metadata = config.metadata()
    low, high = metadata["ref_min_score"], metadata["ref_max_score"]
    behaviour = _normalised(metadata[BEHAVIOUR_RETURN_KEY], low, high)
    scores: dict[str, list[float]] = {}
    examples: tuple[ModuleType, ...] = (bc_pendulum, iql_pendulum, awac_pendulum)
    for example in examples:
        for seed in (0, 1, 2):
            c = with_trainer(
                example.Config(), seed=seed, model_dir=str(tmp_path / example.__name__ / str(seed))
            )
            c = attrs.evolve(c, dataset=config)
            result = example.train(c, RunOptions(progress=False))
            assert result.opt_steps == 20_000
            scores.setdefault(example.__name__, []).append(_normalised(result.best_score, low, high))
    medians = {name: statistics.median(s) for name, s in scores.items()}
    assert medians[iql_pendulum.__name__] > behaviour, (medians, behaviour)
    assert medians[awac_pendulum.__name__] > behaviour, (medians, behaviour)
    assert medians[bc_pendulum.__name__] >= 0.9 * behaviour, (medians, behaviour)
