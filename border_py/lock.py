"""One training run per model directory: an exclusive lock held for the whole run.

The lock is an ``flock`` on ``model_dir/.lock``, which holds the holder's PID. The kernel releases it when
the holder exits in any way (a crash and ``kill -9`` included), so a lock is never stale. A process that
already holds the lock may take it again (the example harness and then its trainer): it is counted, and
released when the outermost holder lets go.

Linux and macOS only (``fcntl``); the lock is advisory, so it guards against border_py runs, not against
other programs writing into the directory.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_FILE = ".lock"

_held: dict[Path, tuple[int, int]] = {}
"""Locks this process holds: the resolved model directory -> (file descriptor, how many times taken)."""


class ModelDirBusyError(RuntimeError):
    """Another live process holds the model directory's lock.

    Attributes:
        model_dir: the directory.
        holder: the PID of the process holding it, when it could be read.
    """

    def __init__(self, model_dir: Path, holder: int | None) -> None:
        self.model_dir, self.holder = model_dir, holder
        who = f"process {holder}" if holder is not None else "another process"
        super().__init__(
            f"model_dir {str(model_dir)!r} is in use by {who} (a training run holds "
            f"{model_dir / LOCK_FILE}); wait for it to finish, stop it, or train into another model_dir"
        )


def _holder(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii").strip()
        return int(text) if text else None
    except (OSError, UnicodeDecodeError, ValueError):
        return None


@contextmanager
def model_dir_lock(model_dir: Path) -> Iterator[None]:
    """Holds the exclusive lock of ``model_dir`` (which must exist) while the block runs.

    Raises:
        ModelDirBusyError: another live process holds it (the message names its PID).

    Examples:
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as d, model_dir_lock(Path(d)), model_dir_lock(Path(d)):
        ...     pass
    """
    key = model_dir.resolve()
    if key in _held:
        fd, count = _held[key]
        _held[key] = (fd, count + 1)
        try:
            yield
        finally:
            fd, count = _held[key]
            _held[key] = (fd, count - 1)
        return
    try:
        # O_NOFOLLOW: a model directory is untrusted; a planted link must not make us write through it.
        fd = os.open(model_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as exc:
        if (model_dir / LOCK_FILE).is_symlink():
            raise PermissionError(
                f"{model_dir / LOCK_FILE} is a symbolic link: refusing to write through it (remove it)"
            ) from exc
        raise
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(fd)
        os.close(fd)
        raise ModelDirBusyError(model_dir, holder) from None
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        _held[key] = (fd, 1)
        yield
    finally:
        _held.pop(key, None)
        # Unlocked explicitly: a child process forked during the run shares the open file and would
        # otherwise keep the lock until it exits.
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
