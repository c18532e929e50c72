"""``RunDir``: the one owner of a run's model directory, from the first check to the last upload.

It is the trainers' `ModelDir` (the lock, crash recovery, the saves) with the
files the run layer writes beside them.

::

    model_dir/
      .lock           held while a command trains here (the holder's PID inside)
      config.yaml     the experiment, written once every check has passed (and after a resume loaded)
      best/  <opt_steps>/    saved models (border_py.checkpoint)
      tensorboard/    event files
      mlflow_run_id   the MLflow run this directory records to (kept across resumes)
      mlflow_unsent.jsonl   what its server did not get, until border-py upload sends it

Order is law: `RunDir.hold` takes the lock and cleans up after a crashed save; the caller then builds
and checks everything that can fail (the env, the agent, the pairing, the resume point); only then do
`RunDir.clear` remove an old run (``--overwrite``) and `RunDir.write_config` write ``config.yaml``. A
model directory is untrusted input: nothing here writes or removes through a symbolic link found in it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs

from border_py.checkpoint import TRAINER_STATE_FILE, resolve_saved
from border_py.config import ConfigError, parse_yaml
from border_py.model_dir import ModelDir, clear_checkpoints
from border_py.run.codec import Trust, dump_experiment, experiment_from_dict
from border_py.run.experiment import AnyExperiment
from border_py.trainer.result import TrainResult, parse_evaluations
from border_py.trainer.state import read_trainer_state

CONFIG_FILE = "config.yaml"
TENSORBOARD_DIR = "tensorboard"
MLFLOW_RUN_FILE = "mlflow_run_id"
MLFLOW_UNSENT_FILE = "mlflow_unsent.jsonl"
"""What an MLflow server that was away did not get (`border_py.run.recording`; ``border-py upload``)."""


class RunDir(ModelDir):
    """A run's model directory, as the run layer uses it.

    Args:
        path: the directory (created by `hold` when missing).

    Examples:
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as d, RunDir(Path(d) / "run").hold() as run_dir:
        ...     run_dir.holds_a_run(), run_dir.resume_point()
        (False, None)
    """

    @contextmanager
    def hold(self) -> Iterator[RunDir]:
        """`ModelDir.hold`, typed for the run layer."""
        with super().hold():
            yield self

    @property
    def config_file(self) -> Path:
        """``model_dir/config.yaml``."""
        return self.path / CONFIG_FILE

    def contents(self) -> list[str]:
        """What a run left here: ``best/``, numbered checkpoints, ``tensorboard/``, ``config.yaml``, unsent
        MLflow records."""
        found = self.saved_runs()
        logs = self.path / TENSORBOARD_DIR
        if logs.is_symlink():
            found.append(f"{TENSORBOARD_DIR} (a link)")
        elif logs.is_dir() and any(logs.iterdir()):
            found.append(f"{TENSORBOARD_DIR}/")
        for name in (CONFIG_FILE, MLFLOW_UNSENT_FILE):
            if (self.path / name).exists() or (self.path / name).is_symlink():
                found.append(name)
        return found

    def holds_a_run(self) -> bool:
        """Whether a run trained here (it saved, recorded or wrote its config)."""
        return bool(self.contents())

    def refuse_another_run(self) -> None:
        """A run from scratch never replaces another run's files nor adds its curves to another run's.

        Raises:
            FileExistsError: the directory holds a run (what it holds is named, and what to do).
        """
        found = self.contents()
        if not found:
            return
        point = self.resume_point()
        advice = (
            f"resume it (border-py resume --model-dir {self.path}; newest checkpoint {point.name})"
            if point is not None
            else "it has no checkpoint to resume from"
        )
        raise FileExistsError(
            f"model_dir {str(self.path)!r} holds another run ({', '.join(found)}): {advice}, or start over "
            "there with --overwrite (removes it), or train into another --model-dir"
        )

    def refuse_losing_saves(self) -> None:
        """A resume that finds no complete checkpoint trains from scratch only where that loses nothing: a
        run killed before it saved anything (its ``config.yaml`` and curves only).

        Raises:
            FileExistsError: the directory holds ``best/`` or numbered checkpoints (complete or not), which
                a run from scratch would replace; the message names them and what to do.
        """
        saved = self.saved_runs()
        if saved:
            raise FileExistsError(
                f"model_dir {str(self.path)!r} holds {', '.join(saved)} but no complete checkpoint to resume "
                f"from: a resume would train from scratch and replace them. They stay: evaluate or export "
                f"the saved model (border-py eval --model-dir {self.path}), or start over there with "
                "border-py train ... --overwrite (removes them)"
            )

    def refuse_linked_logs(self) -> None:
        """The recorder never writes its event files through a link: a linked ``tensorboard`` is refused
        unless ``--overwrite`` removes it (`clear`: the link itself).

        Raises:
            PermissionError: ``tensorboard`` is a symbolic link (named, with what to do).
        """
        logs = self.path / TENSORBOARD_DIR
        if logs.is_symlink():
            raise PermissionError(
                f"{logs} is a symbolic link: a run never writes through a link in its model directory "
                "(remove it, or start over there with --overwrite)"
            )

    def refuse_foreign_files(self) -> None:
        """``--overwrite`` removes only what a run of border_py wrote, recognised by its content: a
        ``config.yaml`` that is an experiment, and event files alone in ``tensorboard/``; a folder's own
        ``config.yaml`` or logs (which merely share the names) are refused, named, before anything is
        removed or written.

        Raises:
            FileExistsError: what a run did not write, and what to do.
        """
        foreign = []
        config = self.path / CONFIG_FILE
        if config.is_file() and not config.is_symlink() and not _is_experiment(config):
            foreign.append(str(config))
        logs = self.path / TENSORBOARD_DIR
        if logs.is_dir() and not logs.is_symlink():
            for folder, _, files in os.walk(logs):
                foreign += [str(Path(folder) / f) for f in sorted(files) if not f.startswith(_EVENTS)]
        if foreign:
            more = f" and {len(foreign) - 3} more" if len(foreign) > 3 else ""
            raise FileExistsError(
                f"--overwrite removes only what a border_py run wrote, and {', '.join(foreign[:3])}{more} in "
                f"model_dir {str(self.path)!r} is not: refused (nothing removed); move it, or train into "
                "another --model-dir"
            )

    def clear(self) -> list[str]:
        """Removes the run here (``--overwrite``): saved models, event files, config, MLflow run id and
        unsent records (a new run would append to the old run's); returns what was removed. Call it only
        once every check of the new run has passed."""
        removed = [p.name + "/" for p in clear_checkpoints(self.path)]
        for name in (TENSORBOARD_DIR, CONFIG_FILE, MLFLOW_RUN_FILE, MLFLOW_UNSENT_FILE):
            path = self.path / name
            if path.is_symlink() or path.is_file():
                path.unlink()  # a link itself is removed, never what it points to
            elif path.is_dir():
                shutil.rmtree(path)
            else:
                continue
            removed.append(name)
        return removed

    def write_config(self, experiment: AnyExperiment) -> Path:
        """Writes ``config.yaml`` atomically (a temporary file renamed over it: a link there is replaced,
        never written through)."""
        tmp = self.path / f".{CONFIG_FILE}.tmp-{os.getpid()}"
        tmp.unlink(missing_ok=True)
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "w") as file:
                file.write(dump_experiment(experiment))
            tmp.replace(self.config_file)
        except OSError as exc:  # a full disk, say: the old config.yaml stays as it was
            tmp.unlink(missing_ok=True)
            raise OSError(exc.errno, f"could not write {self.config_file}: {exc.strerror or exc}") from exc
        return self.config_file

    def read_config(self, trust_code: Trust = False) -> AnyExperiment:
        """The experiment this directory's run was started with; a module it names is imported only with
        ``trust_code`` (`border_py.run.codec.load_experiment`).

        Raises:
            FileNotFoundError: no ``config.yaml`` here (the message says what to pass instead).
            border_py.ConfigError: the file is not a valid experiment (file and field named).
        """
        data = self.read_config_data()
        source = str(self.config_file)
        return experiment_from_dict(data, source, trust_code=trust_code)

    def read_config_data(self) -> dict[str, Any]:
        """``config.yaml`` as plain data, nothing built from it.

        Raises:
            FileNotFoundError: no ``config.yaml`` here (the message says what to pass instead).
            border_py.ConfigError: the file is not YAML holding a mapping.
        """
        if self.config_file.is_symlink() or not self.config_file.is_file():
            raise FileNotFoundError(
                f"{self.config_file} not found (or not a plain file): {self.path} holds no run started by "
                "border-py; check --model-dir (eval, video and export also take the experiment as --config)"
            )
        try:
            data = parse_yaml(self.config_file.read_text(), str(self.config_file))
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{self.config_file}: not a text file: {exc}") from exc
        if not isinstance(data, dict):
            raise ConfigError(f"{self.config_file}: expected a mapping of fields")
        return data

    def purge_step(self, resume_from: Path | None) -> int | None:
        """The first opt step whose records an interrupted run wrote after its checkpoint (hidden when
        resuming, so curves continue from the checkpoint); ``None`` for a new run."""
        # A checkpoint is named by its opt steps (checked against its books when it was loaded).
        return None if resume_from is None else int(resume_from.name) + 1

    def mlflow_run_id(self) -> str | None:
        """The MLflow run this directory records to; ``None`` before the first MLflow run."""
        path = self.path / MLFLOW_RUN_FILE
        if path.is_symlink() or not path.is_file():
            return None
        return path.read_text().strip() or None

    def keep_mlflow_run_id(self, run_id: str) -> None:
        """Remembers the MLflow run, so that a resume continues it."""
        path = self.path / MLFLOW_RUN_FILE
        if path.is_symlink():
            path.unlink()
        path.write_text(run_id)

    def artifacts(self) -> dict[str, Path]:
        """What a tracking server keeps of a finished run: ``best/`` and the newest checkpoint."""
        found: dict[str, Path] = {}
        best = resolve_saved(self.path / "best")
        if best.is_dir() and not best.is_symlink():
            found["best"] = best
        final = self.resume_point()
        if final is not None:
            found[f"checkpoints/{final.name}"] = final
        return found

    def last_result(self) -> TrainResult:
        """What the run here reported at its newest checkpoint: counters, evaluations, best score.

        Raises:
            FileNotFoundError: there is no complete checkpoint.
            ValueError: its trainer state is malformed (the file named).
        """
        point = self.resume_point()
        if point is None:
            raise FileNotFoundError(f"{self.path} holds no complete checkpoint")
        books = read_trainer_state(point)["books"]
        try:
            evaluations = tuple(parse_evaluations(books["evaluations"]))
            return TrainResult(
                opt_steps=int(books["opt_steps"]),
                env_steps=int(books["env_steps"]),
                best_score=float(books["best_score"]),
                last_score=evaluations[-1].score if evaluations else None,
                evaluations=evaluations,
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{point / TRAINER_STATE_FILE}: the counters are malformed: {exc!r}") from exc


_EVENTS = "events.out.tfevents."
"""The names of the event files TensorBoard's writers (a run's recorder) write."""


def _is_experiment(path: Path) -> bool:
    """Whether ``path`` reads as an experiment border_py wrote: a YAML mapping of experiment sections only,
    an agent among them (its values are not checked: a run's own file may name code)."""
    from border_py.run.experiment import Experiment, OfflineExperiment

    try:
        data = parse_yaml(path.read_text(), str(path))
    except (OSError, UnicodeDecodeError, ConfigError):
        return False
    known = {a.name for cls in (Experiment, OfflineExperiment) for a in attrs.fields(cls)}
    return isinstance(data, dict) and "agent" in data and set(data) <= known
