"""A run's recorder: TensorBoard event files in the run directory, and with ``mlflow`` an MLflow run beside
them (kept across resumes), named after the algorithm and env, ended with an honest status.

What tracking does never costs the run: an upload that fails at the end is one line on stderr, never an
exception (the saved models are on disk whatever the server says).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import urllib.request
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

UNSENT_FILE = "mlflow_unsent.jsonl"
"""In the run directory: what the tracking server did not get (``border-py upload`` sends it)."""


def check_tracking_server(timeout: float = 5.0) -> None:
    """Checks that mlflow is installed and that the MLflow server of ``MLFLOW_TRACKING_URI`` answers (an
    ``http(s)`` one; a local store needs no check), so that a run is refused in seconds, before anything is
    written.

    Raises:
        ImportError: mlflow is not installed (the ``mlflow`` extra).
        ConnectionError: it does not answer (the message names it and says what to do).
    """
    if importlib.util.find_spec("mlflow") is None:
        raise ImportError("--recorder mlflow needs the mlflow extra: pip install 'border_py[mlflow]'")
    uri = os.environ.get("MLFLOW_TRACKING_URI", "")
    if not uri.startswith(("http://", "https://")):
        return
    try:
        with urllib.request.urlopen(f"{uri.rstrip('/')}/health", timeout=timeout) as answer:
            answer.read()
    except (OSError, ValueError) as exc:
        raise ConnectionError(
            f"the MLflow tracking server {uri} (MLFLOW_TRACKING_URI) is unreachable ({exc}): start it, or "
            "train with --recorder tensorboard"
        ) from None


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
    recorder = MlflowRecorder(
        experiment_name=name,
        run_id=run_id,
        run_name=run_name,
        tags=tags,
        spill_file=run_dir.path / UNSENT_FILE,
    )
    if run_id is None:
        run_dir.keep_mlflow_run_id(recorder.run_id)
        recorder.log_params(experiment_to_dict(experiment))
    else:
        recorder.set_tags({f"resumed.{key}": value for key, value in changes.items()})
    recorder.log_file(run_dir.config_file)
    return recorder


def changed_fields(before: Mapping[str, Any], after: AnyExperiment) -> dict[str, str]:
    """The dotted fields whose values differ, as ``old -> new``: what a resume changed of the experiment
    ``before`` (as plain data, the run's ``config.yaml`` as written: nothing is built from it).

    Examples:
        >>> from border_py.run import zoo
        >>> a = experiment_to_dict(zoo.experiment("dqn", "CartPole-v1", "x"))
        >>> changed_fields(a, zoo.experiment("dqn", "CartPole-v1", "x", trainer={"max_opts": 7000}))
        {'trainer.max_opts': '25000 -> 7000'}
    """
    old, new = flatten(dict(before)), flatten(experiment_to_dict(after))
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
            artifacts = run_dir.artifacts()
            try:
                for name, path in artifacts.items():
                    part.log_artifacts(path, name)
            except Exception as exc:  # the models are saved on disk; the upload is not worth the run
                # Relative to the run directory: `border-py upload` may run from anywhere.
                spilled = {name: os.path.relpath(path, run_dir.path) for name, path in artifacts.items()}
                part.sender.spill([{"artifacts": spilled}])
                print(
                    f"warning: MLflow upload of {run_dir.path} failed ({type(exc).__name__}): "
                    f"border-py upload --model-dir {run_dir.path} sends it later",
                    file=sys.stderr,
                )


def upload_unsent(run_dir: RunDir) -> int:
    """Sends what a run's tracking server did not get (``border-py upload``): its records in order, its
    artifacts, its end status; then removes the file. Returns how many entries were sent. Every entry is
    checked first: it is this run's (the run id in the directory) and its artifacts lie inside the
    directory; a spill file is data, so it picks neither the run nor the files sent.

    Raises:
        FileNotFoundError: there is nothing to upload, or an artifact it names is gone (nothing is sent).
        ConfigError: an entry names another run, or a path outside the run directory (nothing is sent).
        ConnectionError: the server does not answer (nothing is removed; run it again).
    """
    from mlflow.tracking import MlflowClient

    from border_py.recorders.sender import send_batch

    path = run_dir.path / UNSENT_FILE
    if path.is_symlink() or not path.is_file():
        raise FileNotFoundError(f"{path} not found: nothing of this run waits to be uploaded")
    entries = [_checked_entry(run_dir, path, n, line) for n, line in _lines(path)]
    check_tracking_server()
    client = MlflowClient()
    for entry in entries:
        run_id = entry["run_id"]
        if "metrics" in entry or "tags" in entry:
            send_batch(client, run_id, entry)
        for name, local in entry.get("artifacts", {}).items():
            client.log_artifacts(run_id, str(local), name)
        if "status" in entry:
            client.set_terminated(run_id, status=entry["status"])
    path.unlink()
    return len(entries)


def _lines(path: Path) -> list[tuple[int, str]]:
    return [(n, line) for n, line in enumerate(path.read_text().splitlines(), 1) if line.strip()]


def _checked_entry(run_dir: RunDir, path: Path, n: int, line: str) -> dict[str, Any]:
    """Line ``n`` of the spill file, its artifacts as paths inside the run directory."""
    from border_py.config import ConfigError

    where = f"{path} line {n}"
    try:
        entry = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{where}: not JSON: {exc}") from exc
    if not isinstance(entry, dict) or entry.get("run_id") != run_dir.mlflow_run_id():
        raise ConfigError(
            f"{where}: names the MLflow run {entry.get('run_id') if isinstance(entry, dict) else None!r}, "
            f"not this run's ({run_dir.mlflow_run_id()!r}): refused"
        )
    artifacts = entry.get("artifacts", {})
    if not isinstance(artifacts, dict):
        raise ConfigError(f"{where}: artifacts must be a mapping")
    entry["artifacts"] = {name: _inside(run_dir, where, local) for name, local in artifacts.items()}
    return entry


def _inside(run_dir: RunDir, where: str, local: object) -> Path:
    """``local`` (relative to the run directory; an older border_py wrote it relative to where training
    ran) as a saved model's directory inside the run directory."""
    from border_py.config import ConfigError

    root = run_dir.path.resolve()
    candidates = [] if not isinstance(local, str) else [run_dir.path / local, Path(local)]
    for candidate in candidates:
        resolved = candidate.resolve()
        if resolved.is_relative_to(root) and resolved != root and not candidate.is_symlink():
            if not resolved.is_dir():
                raise FileNotFoundError(f"{where}: the artifact {local!r} is gone from {run_dir.path}")
            return resolved
    raise ConfigError(f"{where}: the artifact {local!r} is not inside {run_dir.path}: refused")
