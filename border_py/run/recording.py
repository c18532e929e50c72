"""A run's recorder: TensorBoard event files in the run directory, and with ``mlflow`` an MLflow run beside
them (kept across resumes), named after the algorithm and env, ended with an honest status.

What tracking does never costs the run: an upload that fails at the end is one line on stderr, never an
exception (the saved models are on disk whatever the server says).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from border_py.base.recorder import Recorder
from border_py.recorders.mlflow import flatten
from border_py.run.codec import experiment_to_dict
from border_py.run.experiment import AnyExperiment
from border_py.run.rundir import TENSORBOARD_DIR, RunDir

RECORDERS = ("tensorboard", "mlflow")
"""The recorders a run can use: TensorBoard alone, or TensorBoard and MLflow."""


@attrs.frozen(kw_only=True)
class Tracking:
    """How an MLflow run is named and tagged (the CLI's ``--experiment``, ``--run-name``, ``--tag``)."""

    experiment: str | None = None
    """The MLflow experiment; ``None``: ``MLFLOW_EXPERIMENT_NAME``, else ``<algo>-<env>``."""
    run_name: str | None = None
    """The run's name; ``None``: ``<algo>-<env>-seed<N>``."""
    tags: Mapping[str, str] = attrs.field(factory=dict)
    """Tags besides ``algo``, ``env`` and ``seed``."""


def _names(experiment: AnyExperiment, tracking: Tracking) -> tuple[str, str, dict[str, str]]:
    base = f"{experiment.algo}-{experiment.env_id.replace('/', '-')}"
    name = tracking.experiment or os.environ.get("MLFLOW_EXPERIMENT_NAME") or base
    run_name = tracking.run_name or f"{base}-seed{experiment.trainer.seed}"
    tags = {"algo": experiment.algo, "env": experiment.env_id, "seed": str(experiment.trainer.seed)}
    return name, run_name, {**tags, **tracking.tags}


def make_recorder(
    kind: str,
    run_dir: RunDir,
    experiment: AnyExperiment,
    resume_from: Path | None,
    tracking: Tracking | None = None,
    changes: Mapping[str, str] | None = None,
) -> Recorder:
    """The run's recorder. When resuming, what an interrupted run recorded after its checkpoint is hidden,
    so the curves continue from the checkpoint's opt step.

    With ``mlflow`` (the server of ``MLFLOW_TRACKING_URI``), a new run logs the experiment as params and
    ``config.yaml`` as an artifact and keeps its id in the run directory; a resumed run continues it and
    tags what changed (``changes``: dotted field -> ``old -> new``). TensorBoard files are written either
    way, so ``border_py.plot`` draws every run.

    Raises:
        ValueError: an unknown ``kind``.
        ImportError: ``mlflow`` without the mlflow extra.
    """
    from border_py.recorders import TeeRecorder, TensorboardRecorder

    if kind not in RECORDERS:
        raise ValueError(f"recorder {kind!r} is unknown: give one of {list(RECORDERS)}")
    purge_step = run_dir.purge_step(resume_from)
    tensorboard = TensorboardRecorder(run_dir.path / TENSORBOARD_DIR, purge_step=purge_step)
    if kind == "tensorboard":
        return tensorboard
    try:
        mlflow = _mlflow_recorder(run_dir, experiment, resume_from, tracking or Tracking(), changes or {})
    except BaseException:
        tensorboard.close()
        raise
    return TeeRecorder([tensorboard, mlflow])


def _mlflow_recorder(
    run_dir: RunDir,
    experiment: AnyExperiment,
    resume_from: Path | None,
    tracking: Tracking,
    changes: Mapping[str, str],
) -> Any:
    from border_py.recorders import MlflowRecorder

    name, run_name, tags = _names(experiment, tracking)
    run_id = run_dir.mlflow_run_id() if resume_from is not None else None
    recorder = MlflowRecorder(experiment_name=name, run_id=run_id, run_name=run_name, tags=tags)
    if run_id is None:
        run_dir.keep_mlflow_run_id(recorder.run_id)
        recorder.log_params(experiment_to_dict(experiment))
    else:
        recorder.set_tags({f"resumed.{key}": value for key, value in changes.items()})
    recorder.log_file(run_dir.config_file)
    return recorder


def changed_fields(before: AnyExperiment, after: AnyExperiment) -> dict[str, str]:
    """The dotted fields whose values differ, as ``old -> new`` (what a resume changed).

    Example:
        >>> from border_py.run import zoo
        >>> a = zoo.experiment("dqn", "CartPole-v1", "x")
        >>> changed_fields(a, zoo.experiment("dqn", "CartPole-v1", "x", trainer={"max_opts": 7000}))
        {'trainer.max_opts': '25000 -> 7000'}
    """
    old, new = flatten(experiment_to_dict(before)), flatten(experiment_to_dict(after))
    keys = sorted(set(old) | set(new))
    return {k: f"{old.get(k)} -> {new.get(k)}" for k in keys if old.get(k) != new.get(k)}


def finish(recorder: Recorder, run_dir: RunDir, status: str) -> None:
    """Ends the run's tracking: uploads ``best/`` and the newest checkpoint (an interrupted run's too) and
    sets the run's status (``FINISHED``, ``KILLED`` or ``FAILED``). A failed upload is one line on stderr.
    """
    from border_py.recorders import MlflowRecorder, TeeRecorder

    parts = recorder.recorders if isinstance(recorder, TeeRecorder) else (recorder,)
    for part in parts:
        if isinstance(part, MlflowRecorder):
            part.end_status = status
            try:
                for name, path in run_dir.artifacts().items():
                    part.log_artifacts(path, name)
            except Exception as exc:  # the models are saved on disk; the upload is not worth the run
                print(f"warning: MLflow upload of {run_dir.path} failed: {exc!r}"[:300], file=sys.stderr)
