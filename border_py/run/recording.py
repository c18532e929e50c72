"""A run's recorder: TensorBoard event files in the run directory, or an MLflow run kept across resumes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from border_py.base.recorder import Recorder
from border_py.run.codec import experiment_to_dict
from border_py.run.experiment import AnyExperiment
from border_py.run.rundir import TENSORBOARD_DIR, RunDir

RECORDERS = ("tensorboard", "mlflow")
"""The recorders a run can use."""


def make_recorder(
    kind: str, run_dir: RunDir, experiment: AnyExperiment, resume_from: Path | None
) -> Recorder:
    """The run's recorder. When resuming, what an interrupted run recorded after its checkpoint is hidden,
    so the curves continue from the checkpoint's opt step.

    ``mlflow`` follows MLflow's conventions (the server of ``MLFLOW_TRACKING_URI``, the experiment of
    ``MLFLOW_EXPERIMENT_NAME``), naming the experiment ``<algo>-<env>`` otherwise; a new run logs the
    experiment as params and tags ``algo``, ``env`` and ``seed`` and keeps its id in the run directory,
    and a resumed run continues it.

    Raises:
        ValueError: an unknown ``kind``.
        ImportError: ``mlflow`` without the mlflow extra.
    """
    purge_step = run_dir.purge_step(resume_from)
    if kind == "tensorboard":
        from border_py.recorders import TensorboardRecorder

        return TensorboardRecorder(run_dir.path / TENSORBOARD_DIR, purge_step=purge_step)
    if kind != "mlflow":
        raise ValueError(f"recorder {kind!r} is unknown: give one of {list(RECORDERS)}")
    from border_py.recorders import MlflowRecorder

    run_id = run_dir.mlflow_run_id() if resume_from is not None else None
    tags = {"algo": experiment.algo, "env": experiment.env_id, "seed": str(experiment.trainer.seed)}
    name = os.environ.get("MLFLOW_EXPERIMENT_NAME", f"{experiment.algo}-{experiment.env_id}")
    recorder = MlflowRecorder(experiment_name=name, run_id=run_id, tags=tags)
    if run_id is None:
        run_dir.keep_mlflow_run_id(recorder.run_id)
        recorder.log_params(experiment_to_dict(experiment))
    return recorder


def upload(recorder: Any, run_dir: RunDir) -> None:
    """Uploads the run's artifacts (``best/``, the newest checkpoint) when the recorder keeps them."""
    from border_py.recorders import MlflowRecorder

    if isinstance(recorder, MlflowRecorder):
        for name, path in run_dir.artifacts().items():
            recorder.log_artifacts(path, name)
