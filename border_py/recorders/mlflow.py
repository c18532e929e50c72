"""``MlflowRecorder``: records as MLflow metrics, configs as params, saved models as artifacts (the ``mlflow``
extra; ``mlflow`` is imported when a recorder is made, never by ``import border_py``)."""

from __future__ import annotations

import contextlib
import datetime
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from border_py.record import Record
from border_py.recorders.aggregating import AggregatingRecorder
from border_py.recorders.sender import Batch, BatchSender, send_batch

_PARAMS_PER_BATCH = 100  # MLflow's limit of params in one log_batch
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

    Flushes reach the server from a background thread (`BatchSender`):
    while the server answers, a flush waits for its batch as a direct call would; while it is away, training
    goes on, the batches wait (and are sent in order when it is back), and what is still unsent at
    `close` is appended to ``spill_file`` for ``border-py upload``. Unless set already, MLflow's own
    HTTP retries are turned off and its timeout cut to 10 s: the sender retries instead.

    Args:
        experiment_name: the experiment (``None``: MLflow's default one).
        run_id: an existing run to continue; ``None`` starts a new run.
        run_name: the new run's name.
        tags: tags of the run (``agent``, ``env``, ``seed``).
        tracking_uri: the tracking server or store.
        spill_file: where batches that could not be sent go (JSON lines); ``None``: reported as lost.

    Raises:
        ImportError: mlflow is not installed.

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
        self._skip_until = -1
        if run_id is None:
            experiment_id = self._experiment(experiment_name)
            self.run_id: str = self.client.create_run(
                experiment_id, run_name=run_name, tags=dict(tags or {})
            ).info.run_id
        else:
            self.run_id = run_id
            self._skip_until = self._highest_logged_step()
            for key, value in (tags or {}).items():
                self.client.set_tag(run_id, key, value)
        self._metrics: list[Any] = []
        self._tags: dict[str, str] = {}
        self.end_status = "FINISHED"
        """How `close` ends the run: ``FINISHED``, ``KILLED`` (interrupted) or ``FAILED``."""
        self.sender = BatchSender(self._send, spill_file, self.run_id)

    def _experiment(self, name: str | None) -> str:
        if name is None:
            return "0"  # MLflow's default experiment
        found = self.client.get_experiment_by_name(name)
        return str(found.experiment_id) if found is not None else str(self.client.create_experiment(name))

    def _highest_logged_step(self) -> int:
        """The highest step of any metric the run holds (-1 without any)."""
        run = self.client.get_run(self.run_id)
        steps = [m.step for key in run.data.metrics for m in self.client.get_metric_history(self.run_id, key)]
        return max(steps, default=-1)

    def log_params(self, config: Mapping[str, Any]) -> None:
        """Logs a config (its plain data, e.g. `border_py.config.to_dict`) as params with dotted
        keys. A continued run's params are not logged again (MLflow refuses changed params)."""
        from mlflow.entities import Param

        if self._skip_until >= 0:
            return
        params = [Param(k, v) for k, v in flatten(config).items()]
        for start in range(0, len(params), _PARAMS_PER_BATCH):
            self.client.log_batch(self.run_id, params=params[start : start + _PARAMS_PER_BATCH])

    def log_artifacts(self, path: Path, artifact_path: str | None = None) -> None:
        """Uploads the directory ``path`` (``best/``, a checkpoint) under ``artifact_path``."""
        self.client.log_artifacts(self.run_id, str(path), artifact_path)

    def _write(self, record: Record, step: int) -> None:
        if step <= self._skip_until:
            return
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

    def _send(self, batch: Batch) -> None:
        """Sends one batch of plain data (the sender's thread)."""
        send_batch(self.client, self.run_id, batch)

    def log_file(self, path: Path, artifact_path: str | None = None) -> None:
        """Uploads the file ``path`` (``config.yaml``) under ``artifact_path``."""
        self.client.log_artifact(self.run_id, str(path), artifact_path)

    def set_tags(self, tags: Mapping[str, str]) -> None:
        """Sets tags on the run now (what a resumed run changed, say)."""
        from mlflow.entities import RunTag

        if tags:
            self.client.log_batch(self.run_id, tags=[RunTag(k, v) for k, v in tags.items()])

    def _close_output(self) -> None:
        if self.sender.close() > 0:  # the server is away: the run's end is sent with its records later
            self.sender.spill([{"status": self.end_status}])
            return
        with contextlib.suppress(Exception):  # the run may have been ended by its user already
            self.client.set_terminated(self.run_id, status=self.end_status)
