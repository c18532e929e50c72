"""What tests use in place of the former examples: the zoo's experiment for an algorithm and env id, with
its model directory and fields changed, trained quietly through the run layer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from border_py.run import AnyExperiment, TrainOptions, train, zoo
from border_py.trainer.result import TrainResult

QUIET = TrainOptions(progress=False, quiet=True)
"""Train with no progress bar and no summary line."""


def zoo_experiment(
    algo: str, env_id: str, model_dir: Path | str, *, variant: str | None = None, **changes: Any
) -> AnyExperiment:
    """`border_py.run.zoo.experiment`, saving into ``model_dir``."""
    return zoo.experiment(algo, env_id, str(model_dir), variant=variant, **changes)


def train_quietly(experiment: AnyExperiment) -> TrainResult:
    """Trains ``experiment`` with no progress bar or summary."""
    return train(experiment, QUIET)
