"""``ModelDir``: a model directory held for one training run (the lock, crash recovery, another run's saves).

Every trainer holds its ``model_dir`` through `ModelDir` while it trains; the run layer's
`RunDir` extends it with the files it owns (``config.yaml``, the recorder's). A model
directory is untrusted input: nothing here writes through a link found in it.

Examples:
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d, ModelDir(Path(d) / "run").hold() as held:
    ...     held.saved_runs(), held.resume_point()
    ([], None)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from border_py.checkpoint import ensure_writable_dir, latest_checkpoint, previous_run, recover_model_dir
from border_py.lock import LOCK_FILE, model_dir_lock


class ModelDir:
    """A training run's model directory.

    Args:
        path: the directory (created by `hold` when missing).
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    @contextmanager
    def hold(self) -> Iterator[ModelDir]:
        """Creates the directory if needed, checks it is writable, takes its lock for the block (a process
        holding it already takes it again) and cleans up after a crashed save (hidden temporary directories
        of dead processes).

        Raises:
            PermissionError: the directory cannot be written, or its lock file is a link.
            border_py.ModelDirBusyError: another process trains here.
        """
        if self.path.is_symlink():
            # The path the user named may be a link (their choice); links found inside it are refused.
            self.path = self.path.resolve()
        created = not self.path.exists()
        ensure_writable_dir(self.path)
        with model_dir_lock(self.path):
            recover_model_dir(self.path)
            try:
                yield self
            except BaseException:
                if created:  # a run refused at its checks leaves nothing behind (removed under the lock)
                    self._remove_if_only_the_lock()
                raise

    def _remove_if_only_the_lock(self) -> None:
        lock = self.path / LOCK_FILE
        if [entry.name for entry in self.path.iterdir()] == [LOCK_FILE]:
            lock.unlink()
            self.path.rmdir()

    def saved_runs(self) -> list[str]:
        """What an earlier run saved here: ``best/`` and the numbered checkpoints (complete or not)."""
        return previous_run(self.path)

    def resume_point(self) -> Path | None:
        """The newest complete checkpoint; ``None`` when there is none."""
        return latest_checkpoint(self.path)

    def refuse_saved_run(self) -> None:
        """A run from scratch never replaces another run's saves.

        Raises:
            FileExistsError: the directory holds ``best/`` or checkpoints (named, with what to do).
        """
        found = self.saved_runs()
        if found:
            raise FileExistsError(
                f"model_dir {str(self.path)!r} holds another run ({', '.join(found)}): resume it "
                "(resume_from=latest_checkpoint(model_dir), or border-py resume), or remove it to start over "
                "(border_py.checkpoint.clear_checkpoints, or --overwrite), or train into another model_dir"
            )
