"""``MlflowRun``: what to do to an MLflow run, as plain data, done one way live and on upload.

A run's tracking is a sequence of entries (JSON lines when spilled), each saying what to do:

    {"create": {"experiment": ..., "run_name": ..., "tags": {...}}}  make the run (a new run's first entry)
    {"resume": true, "tags": {...}}                                  continue it: metrics at steps it holds
                                                                     already are skipped
    {"params": {"agent.lr": "0.001", ...}}                           the flattened config
    {"metrics": [[key, value, ms, step], ...], "tags": {...}}        one flush
    {"files": {"config.yaml": null}}                                 files (local path: artifact folder)
    {"artifacts": {"best": "best"}}                                  folders (artifact path: local path)
    {"status": "FINISHED"}                                           the run's end

The recorder's background thread sends them as they come; ``border-py upload`` sends, in the same order,
what the server did not get. So a run whose server went away before the run was made is created on upload,
with its params, tags and records, as it would have been live. Local paths are relative to ``root`` (the run
directory), so an upload may run from any folder.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

_PARAMS_PER_BATCH = 100  # MLflow's limit of params in one log_batch

Entry = dict[str, Any]
"""One thing to do to an MLflow run, as plain data."""


def unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` says the server did not answer (a refused or broken connection, a timeout), as
    opposed to a server that answered no."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError):  # requests' ConnectionError and Timeout are OSErrors
            return True
        seen = seen.__cause__ or seen.__context__
    return False


class UnsafeArtifactError(ValueError):
    """An artifact to upload holds a link (which could send any file the user can read) or is named
    outside the run's artifact root: refused, naming it."""


def checked_artifact(path: Path, name: str | None) -> None:
    """Refuses an artifact upload MLflow would carry out through a link: ``path`` a link, or a directory
    holding one (a file or a folder, at any depth; the walk follows none), or a ``name`` that is absolute
    or climbs out with ``..``.

    Raises:
        UnsafeArtifactError: what is refused, named.
    """
    if name is not None and (Path(name).is_absolute() or ".." in Path(name).parts):
        raise UnsafeArtifactError(f"the artifact name {name!r} leads out of the run's artifacts: refused")
    links = [path] if path.is_symlink() else []
    if path.is_dir() and not links:
        for folder, dirs, files in os.walk(path, followlinks=False):
            links += [Path(folder) / n for n in [*dirs, *files] if (Path(folder) / n).is_symlink()]
    if links:
        shown = ", ".join(str(p) for p in links[:3]) + (
            f" and {len(links) - 3} more" if len(links) > 3 else ""
        )
        raise UnsafeArtifactError(
            f"{path} holds links ({shown}): an artifact upload follows no link, which could send any file: "
            "refused"
        )


class MlflowRun:
    """The MLflow run entries are sent to (see the module docstring).

    Args:
        client: an ``MlflowClient``.
        run_id: the run; ``None``: a ``create`` entry makes it.
        root: what relative local paths are relative to (``None``: the current folder).
        on_created: told the new run's id when a ``create`` entry made it.
    """

    def __init__(
        self,
        client: Any,
        run_id: str | None,
        root: Path | None = None,
        on_created: Callable[[str], None] | None = None,
    ) -> None:
        self.client, self.run_id, self.root, self.on_created = client, run_id, root, on_created
        self.skip_until: int | None = -1
        """In steps: metrics up to this one are in the run already (a continued run's); ``None`` while a
        ``resume`` entry waits to be sent (not known yet)."""

    def send(self, entry: Entry) -> None:
        """Does what ``entry`` says.

        Raises:
            ConnectionError: the run does not exist yet (its ``create`` entry was not sent).
            Exception: what MLflow raises (the server is away, or refuses).
        """
        if "create" in entry:
            if self.run_id is None:  # a resend after a lost answer must not make a second run
                self._create(entry["create"])
            return
        run_id = self.run_id
        if run_id is None:
            raise ConnectionError("the MLflow run is not created yet")
        if entry.get("resume"):
            self.skip_until = self._highest_logged_step(run_id)
        self._log_params(run_id, entry.get("params", {}))
        self._log_batch(run_id, self.filtered(entry))
        for local, folder in entry.get("files", {}).items():
            checked_artifact(self._local(local), folder)
            self.client.log_artifact(run_id, str(self._local(local)), folder)
        for name, local in entry.get("artifacts", {}).items():
            checked_artifact(self._local(local), name or None)
            self.client.log_artifacts(run_id, str(self._local(local)), name or None)
        if "status" in entry:
            self.client.set_terminated(run_id, status=entry["status"])

    def filtered(self, entry: Entry) -> Entry:
        """``entry`` without the metrics at steps the run holds already (as it is, while that is not
        known: a ``resume`` entry before it then filters them on upload)."""
        skip = self.skip_until
        if skip is None or skip < 0 or "metrics" not in entry:
            return entry
        return {**entry, "metrics": [m for m in entry["metrics"] if m[3] > skip]}

    def _create(self, spec: dict[str, Any]) -> None:
        name = spec.get("experiment")
        experiment_id = "0"  # MLflow's default experiment
        if name is not None:
            found = self.client.get_experiment_by_name(name)
            experiment_id = (
                str(found.experiment_id) if found is not None else str(self.client.create_experiment(name))
            )
        run = self.client.create_run(experiment_id, run_name=spec.get("run_name"), tags=spec.get("tags", {}))
        self.run_id = str(run.info.run_id)
        if self.on_created is not None:
            self.on_created(self.run_id)

    def _highest_logged_step(self, run_id: str) -> int:
        """The highest step of any metric the run holds (-1 without any)."""
        run = self.client.get_run(run_id)
        steps = [m.step for key in run.data.metrics for m in self.client.get_metric_history(run_id, key)]
        return max(steps, default=-1)

    def _log_params(self, run_id: str, params: dict[str, str]) -> None:
        from mlflow.entities import Param

        items = [Param(k, v) for k, v in params.items()]
        for start in range(0, len(items), _PARAMS_PER_BATCH):
            self.client.log_batch(run_id, params=items[start : start + _PARAMS_PER_BATCH])

    def _log_batch(self, run_id: str, entry: Entry) -> None:
        from mlflow.entities import Metric, RunTag

        metrics = [Metric(k, v, t, s) for k, v, t, s in entry.get("metrics", [])]
        tags = [RunTag(k, v) for k, v in entry.get("tags", {}).items()]
        if metrics or tags:
            self.client.log_batch(run_id, metrics=metrics, tags=tags)

    def _local(self, path: str) -> Path:
        return Path(path) if self.root is None else self.root / path
