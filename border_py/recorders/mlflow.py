"""``MlflowRecorder``: records as MLflow metrics, configs as params, saved models as artifacts (the ``mlflow``
extra; ``mlflow`` is imported when a recorder is made, never by ``import border_py``)."""

from __future__ import annotations

import datetime
import os
import time
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from border_py.record import Record
from border_py.recorders.aggregating import AggregatingRecorder
from border_py.recorders.mlflow_run import (
    Entry,
    MlflowRun,
    UnsafeArtifactError,
    checked_artifact,
    unreachable,
)
from border_py.recorders.sender import BatchSender

_METRICS_PER_BATCH = 1000  # and of metrics
_PARAM_VALUE_LENGTH = 6000  # and of one param's value
_FLUSH_WAIT = 2.0  # in seconds: how long a flush waits for its batch while the server answers


def flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    """Nested config data as MLflow params: dotted keys, values as text.

    Examples:
        >>> flatten({"trainer": {"max_opts": 10, "model_dir": None}, "agent": {"hidden": [64, 64]}})
        {'trainer.max_opts': '10', 'trainer.model_dir': 'None', 'agent.hidden': '[64, 64]'}
    """
    out: dict[str, str] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten(value, f"{name}."))
        else:
            out[name] = str(value)[:_PARAM_VALUE_LENGTH]
    return out


class MlflowRecorder(AggregatingRecorder):
    """Writes records to an MLflow run: scalars as metrics at ``step`` (the trainer's ``opt_steps``),
    texts and time stamps as tags; 1-3-d arrays are not sent (MLflow has no such metric). Metrics go out in
    batches, one ``log_batch`` call per flush: one call costs several milliseconds against a server.

    It follows MLflow's conventions: the tracking server is ``tracking_uri`` or ``MLFLOW_TRACKING_URI``
    (MLflow's default otherwise), the experiment ``experiment_name`` (created when missing). A run given by
    ``run_id`` is continued (a resumed training); metrics at steps up to the highest one the run already
    holds are then skipped, so its history neither repeats nor has a gap after a crash.

    Everything reaches the server as entries (`border_py.recorders.mlflow_run`) from a background thread
    (`BatchSender`): while the server answers, a flush waits for its batch as a direct call would; while it
    is away, training goes on, the entries wait (and are sent in order when it is back), and what is still
    unsent at `close` is appended to ``spill_file`` for ``border-py upload``. That holds from the start: a
    server that does not answer when the run is to be made (``run_id`` then stays ``None``) gets the run
    made when it is back, or on upload. Unless set already, MLflow's own HTTP retries are turned off and
    its timeout cut to 10 s: the sender retries instead.

    Args:
        experiment_name: the experiment (``None``: MLflow's default one).
        run_id: an existing run to continue; ``None`` starts a new run.
        run_name: the new run's name.
        tags: tags of the run (``agent``, ``env``, ``seed``).
        tracking_uri: the tracking server or store.
        spill_file: where entries that could not be sent go (JSON lines; local paths in them are relative
            to its folder); ``None``: reported as lost.
        on_created: told the new run's id once the run is made (at once, or when the server is back).

    Raises:
        ImportError: mlflow is not installed.
        Exception: the server answered, and refused to make or continue the run.

    Examples:
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as d:
        ...     r = MlflowRecorder(tracking_uri=f"sqlite:///{d}/mlflow.db", experiment_name="doc")
        ...     r.write(Record({"train/loss": 0.5}), step=1)
        ...     r.close()
        ...     len(r.client.get_metric_history(r.run_id, "train/loss"))
        1
    """

    def __init__(
        self,
        experiment_name: str | None = None,
        run_id: str | None = None,
        run_name: str | None = None,
        tags: Mapping[str, str] | None = None,
        tracking_uri: str | None = None,
        spill_file: Path | None = None,
        on_created: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__()
        # Read by MLflow at each request: no minutes of retries inside a call (the sender retries).
        os.environ.setdefault("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
        os.environ.setdefault("MLFLOW_HTTP_REQUEST_TIMEOUT", "10")
        try:
            from mlflow.tracking import MlflowClient
        except ImportError as exc:
            raise ImportError(
                "MlflowRecorder needs the mlflow extra: pip install 'border_py[mlflow]'"
            ) from exc
        self.client = MlflowClient(tracking_uri=tracking_uri)
        self._continued = run_id is not None
        self._on_created = on_created
        self._metrics: list[Any] = []
        self._tags: dict[str, str] = {}
        self.end_status = "FINISHED"
        """How `close` ends the run: ``FINISHED``, ``KILLED`` (interrupted) or ``FAILED``."""
        self._root = None if spill_file is None else spill_file.parent
        self.run = MlflowRun(self.client, run_id, self._root, self._created)
        self.sender = BatchSender(self.run.send, spill_file, run_id, prepare=self.run.filtered)
        spec = {"experiment": experiment_name, "run_name": run_name, "tags": dict(tags or {})}
        first = {"resume": True, "tags": dict(tags or {})} if self._continued else {"create": spec}
        try:
            self.run.send(first)
        except Exception as exc:
            if not unreachable(exc):
                self.sender.close()
                raise
            # Gone since the run's health check: made (or continued) when it is back, or on upload.
            if self._continued:
                self.run.skip_until = None
            self.sender.put(first)

    @property
    def run_id(self) -> str | None:
        """The MLflow run; ``None`` while it is not made (the server was away when it was to be)."""
        return self.run.run_id

    def _created(self, run_id: str) -> None:
        self.sender.run_id = run_id
        if self._on_created is not None:
            self._on_created(run_id)

    def _local(self, path: Path) -> str:
        """``path`` as an entry names it: relative to the spill file's folder (the run directory)."""
        return str(path) if self._root is None else os.path.relpath(path, self._root)

    def log_params(self, config: Mapping[str, Any]) -> None:
        """Logs a config (its plain data, e.g. `border_py.config.to_dict`) as params with dotted
        keys. A continued run's params are not logged again (MLflow refuses changed params)."""
        if not self._continued:
            self.sender.put({"params": flatten(config)})

    def log_artifacts(self, path: Path, artifact_path: str | None = None) -> None:
        """Uploads the directory ``path`` (``best/``, a checkpoint) under ``artifact_path``: from this
        thread while the server answers, since large files take as long as they take and the sender's
        `close` gives up after seconds; else when the server is back, or on upload."""
        entry: Entry = {"artifacts": {artifact_path or "": self._local(path)}}
        try:  # a link inside best/ could send any file: refused with a word, the run goes on
            checked_artifact(path, artifact_path)
        except UnsafeArtifactError as exc:
            warnings.warn(f"MLflow: {exc}", stacklevel=2)
            return
        if self.run_id is not None and not self.sender.down:
            try:
                self.run.send(entry)
                return
            except Exception:  # the server went away: the entry waits like any other
                pass
        self.sender.put(entry)

    def _write(self, record: Record, step: int) -> None:
        now = int(time.time() * 1000)
        for key, value in record.items():
            if isinstance(value, float):
                self._metrics.append([key, value, now, step])
            elif isinstance(value, str | datetime.datetime):
                self._tags[key] = value if isinstance(value, str) else value.isoformat()

    def _flush_output(self) -> None:
        metrics, self._metrics = self._metrics, []
        tags, self._tags = self._tags, {}
        for start in range(0, max(len(metrics), 1 if tags else 0), _METRICS_PER_BATCH):
            self.sender.put(
                {"metrics": metrics[start : start + _METRICS_PER_BATCH], "tags": tags if start == 0 else {}}
            )
        if not self.sender.down:
            self.sender.wait(_FLUSH_WAIT)

    def log_file(self, path: Path, artifact_path: str | None = None) -> None:
        """Uploads the file ``path`` (``config.yaml``) under ``artifact_path``."""
        self.sender.put({"files": {self._local(path): artifact_path}})

    def set_tags(self, tags: Mapping[str, str]) -> None:
        """Sets tags on the run (what a resumed run changed, say)."""
        if tags:
            self.sender.put({"tags": dict(tags)})

    def _close_output(self) -> None:
        # The end goes after every record: sent, or spilled last for the upload to send last.
        self.sender.put({"status": self.end_status})
        self.sender.close()
