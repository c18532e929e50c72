"""A run's recorder: TensorBoard event files in the run directory, and with ``mlflow`` an MLflow run beside
them (kept across resumes), named after the algorithm and env, ended with an honest status.

What tracking does never costs the run: an upload that fails at the end is one line on stderr, never an
exception (the saved models are on disk whatever the server says).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shlex
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from border_py.base.recorder import Recorder
from border_py.recorders.mlflow import flatten
from border_py.run.codec import experiment_to_dict
from border_py.run.experiment import AnyExperiment
from border_py.run.rundir import MLFLOW_UNSENT_FILE, TENSORBOARD_DIR, RunDir

RECORDERS = ("tensorboard", "mlflow")
"""The recorders a run can use: TensorBoard alone, or TensorBoard and MLflow."""

UNSENT_FILE = MLFLOW_UNSENT_FILE
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
    run_id = None if resume_from is None else _run_to_continue(run_dir)
    recorder = MlflowRecorder(
        experiment_name=name,
        run_id=run_id,
        run_name=run_name,
        tags=tags,
        spill_file=run_dir.path / UNSENT_FILE,
        on_created=run_dir.keep_mlflow_run_id,
    )
    if run_id is None:
        recorder.log_params(experiment_to_dict(experiment))
    else:
        recorder.set_tags({f"resumed.{key}": value for key, value in changes.items()})
    recorder.log_file(run_dir.config_file)
    return recorder


def _run_to_continue(run_dir: RunDir) -> str | None:
    """The MLflow run a resume continues. One whose server went away before it was made is made first
    (its spill file sent), so the resume continues it instead of making a second run.

    Raises:
        ConnectionError: that upload failed (the message says what to run).
    """
    if run_dir.mlflow_run_id() is None and (run_dir.path / UNSENT_FILE).is_file():
        try:
            upload_unsent(run_dir)
        except Exception as exc:
            raise ConnectionError(
                f"the MLflow run of {run_dir.path} was never made and sending {UNSENT_FILE} failed "
                f"({type(exc).__name__}: {exc}): run {upload_command(run_dir)}, then resume"
            ) from None
    return run_dir.mlflow_run_id()


def recorded_to_mlflow(run_dir: RunDir) -> bool:
    """Whether the run in ``run_dir`` records to MLflow: it keeps an MLflow run id, or entries for one
    (made on upload) wait in its spill file."""
    return run_dir.mlflow_run_id() is not None or (run_dir.path / UNSENT_FILE).is_file()


def upload_command(run_dir: RunDir) -> str:
    """The command that sends what a run's tracking server did not get."""
    return f"border-py upload --model-dir {shlex.quote(str(run_dir.path))}"


def unsent_note(run_dir: RunDir) -> str | None:
    """One line saying what waits in the run's spill file, where, and the command that sends it;
    ``None`` when nothing waits."""
    path = run_dir.path / UNSENT_FILE
    if path.is_symlink() or not path.is_file():
        return None
    entries = []
    for _, line in _lines(path):
        with contextlib.suppress(json.JSONDecodeError):
            entries.append(json.loads(line))
    values = sum(
        len(e["metrics"]) for e in entries if isinstance(e, dict) and isinstance(e.get("metrics"), list)
    )
    made = "" if run_dir.mlflow_run_id() is not None else "; the MLflow run itself is made on upload"
    return (
        f"warning: the MLflow server did not get {len(entries)} entries of this run ({values} metric "
        f"values{made}): they wait in {path}; send them with: {upload_command(run_dir)}"
    )


_NOT_BIT_FOR_BIT = {
    "torch_threads": "torch may sum in another order with another thread count",
    "agent.device": "another device sums in another order, and the agent's random generator starts again "
    "from its seed (its state is the device's own)",
}
"""Fields a resume may change at the price of exactness, and why."""


def resume_warnings(changes: Mapping[str, str]) -> list[str]:
    """A warning for each field in ``changes`` (`changed_fields`) after which a resumed run continues, but not
    bit for bit as it would have.

    Examples:
        >>> resume_warnings({"torch_threads": "1 -> 2", "trainer.max_opts": "10 -> 20"})[0][:40]
        'warning: torch_threads 1 -> 2: the run c'
    """
    return [
        f"warning: {key} {changes[key]}: the run continues, but not bit for bit as it would have: "
        f"{_NOT_BIT_FOR_BIT[key]}"
        for key in sorted(_NOT_BIT_FOR_BIT.keys() & changes.keys())
    ]


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
    sets the run's status (``FINISHED``, ``KILLED`` or ``FAILED``) when the recorder closes. What the
    server does not get waits in the spill file (`unsent_note` says so).
    """
    from border_py.recorders import MlflowRecorder, TeeRecorder

    parts = recorder.recorders if isinstance(recorder, TeeRecorder) else (recorder,)
    for part in parts:
        if isinstance(part, MlflowRecorder):
            part.end_status = status
            for name, path in run_dir.artifacts().items():
                part.log_artifacts(path, name)  # what the server does not get waits in the spill file


def upload_unsent(run_dir: RunDir) -> int:
    """Sends what a run's tracking server did not get (``border-py upload``), in order: the run itself
    when the server was away before it was made (then its id is kept in the directory), its params and
    records, its artifacts, its end status; then removes the file. Returns how many entries were sent.
    Every entry is checked first: it is this run's (the run id in the directory, or none while the run is
    not made) and its files lie inside the directory; a spill file is data, so it picks neither the run
    nor the files sent. When a send fails, the file keeps the entries not sent.

    Raises:
        FileNotFoundError: there is nothing to upload, or a file it names is gone (nothing is sent).
        ConfigError: an entry names another run, or a path outside the run directory (nothing is sent).
        ConnectionError: the server does not answer (nothing is removed; run it again).
    """
    from mlflow.tracking import MlflowClient

    from border_py.recorders.mlflow_run import MlflowRun

    path = run_dir.path / UNSENT_FILE
    if path.is_symlink() or not path.is_file():
        raise FileNotFoundError(f"{path} not found: nothing of this run waits to be uploaded")
    lines = _lines(path)
    entries = [_checked_entry(run_dir, path, n, line) for n, line in lines]
    check_tracking_server()
    run = MlflowRun(MlflowClient(), run_dir.mlflow_run_id(), on_created=run_dir.keep_mlflow_run_id)
    for sent, entry in enumerate(entries):
        try:
            run.send(entry)
        except BaseException:
            _keep_unsent(path, [line for _, line in lines[sent:]], run.run_id)
            raise
    path.unlink()
    return len(entries)


def _keep_unsent(path: Path, lines: list[str], run_id: str | None) -> None:
    """Rewrites the spill file with ``lines`` alone, naming the run made on the way (if it was)."""
    entries = [{**json.loads(line), "run_id": run_id} for line in lines]
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    temporary.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    os.replace(temporary, path)


def _lines(path: Path) -> list[tuple[int, str]]:
    return [(n, line) for n, line in enumerate(path.read_text().splitlines(), 1) if line.strip()]


def _checked_entry(run_dir: RunDir, path: Path, n: int, line: str) -> dict[str, Any]:
    """Line ``n`` of the spill file, its local paths resolved inside the run directory."""
    from border_py.config import ConfigError

    where = f"{path} line {n}"
    try:
        entry = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{where}: not JSON: {exc}") from exc
    own = run_dir.mlflow_run_id()
    if not isinstance(entry, dict) or entry.get("run_id") != own:
        raise ConfigError(
            f"{where}: names the MLflow run {entry.get('run_id') if isinstance(entry, dict) else None!r}, "
            f"not this run's ({own!r}): refused"
        )
    if own is None and n == 1 and "create" not in entry:
        raise ConfigError(f"{where}: names no MLflow run, and none is made before it: refused")
    for key in ("create", "params", "tags"):
        if not isinstance(entry.get(key, {}), dict):
            raise ConfigError(f"{where}: {key} must be a mapping")
    _check_metrics_and_status(entry, where)
    artifacts, files = entry.get("artifacts", {}), entry.get("files", {})
    if not isinstance(artifacts, dict) or not isinstance(files, dict):
        raise ConfigError(f"{where}: artifacts and files must be mappings")
    folders = [to for to in files.values() if to is not None and not isinstance(to, str)]
    if folders:  # a file's artifact folder: a name, or null for the top
        raise ConfigError(
            f"{where}: files must map each file to an artifact folder or null, got {folders[0]!r}"
        )
    entry["artifacts"] = {name: str(_inside(run_dir, where, local)) for name, local in artifacts.items()}
    entry["files"] = {str(_inside(run_dir, where, local, file=True)): to for local, to in files.items()}
    from border_py.recorders.mlflow_run import UnsafeArtifactError, checked_artifact

    try:  # a link inside a saved model (best/x -> ~/.ssh/id_rsa) would send what it points at
        for name, local in entry["artifacts"].items():
            checked_artifact(Path(local), str(name) or None)
        for local, to in entry["files"].items():
            checked_artifact(Path(local), to)
    except UnsafeArtifactError as exc:
        raise ConfigError(f"{where}: {exc}") from exc
    return entry


_STATUSES = ("RUNNING", "FINISHED", "FAILED", "KILLED")
"""The end statuses a run's spill file may say (MLflow raised a 30-line traceback on another)."""


def _check_metrics_and_status(entry: Mapping[str, Any], where: str) -> None:
    """Each metric a ``[key, value, timestamp, step]`` row, the status one of `_STATUSES`.

    Raises:
        ConfigError: the first that is not, named with ``where``.
    """
    from border_py.config import ConfigError

    metrics = entry.get("metrics", [])
    for i, row in enumerate(metrics if isinstance(metrics, list) else [None]):
        is_row = isinstance(row, list) and len(row) == 4 and isinstance(row[0], str)
        numbers = is_row and all(isinstance(x, int | float) and not isinstance(x, bool) for x in row[1:])
        if not numbers:
            raise ConfigError(f"{where}: metrics[{i}] must be [key, value, timestamp, step], got {row!r}")
    if "status" in entry and entry["status"] not in _STATUSES:
        raise ConfigError(f"{where}: status must be one of {list(_STATUSES)}, got {entry['status']!r}")


def _inside(run_dir: RunDir, where: str, local: object, file: bool = False) -> Path:
    """``local`` (relative to the run directory; an older border_py wrote it relative to where training
    ran) as a saved model's directory (or, with ``file``, a file) inside the run directory."""
    from border_py.config import ConfigError

    root = run_dir.path.resolve()
    candidates = [] if not isinstance(local, str) else [run_dir.path / local, Path(local)]
    for candidate in candidates:
        resolved = candidate.resolve()
        if resolved.is_relative_to(root) and resolved != root and not candidate.is_symlink():
            if not (resolved.is_file() if file else resolved.is_dir()):
                raise FileNotFoundError(f"{where}: the artifact {local!r} is gone from {run_dir.path}")
            return resolved
    raise ConfigError(f"{where}: the artifact {local!r} is not inside {run_dir.path}: refused")
