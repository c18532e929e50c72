"""Model directories: atomic saves and removals, recovery after a crash, the newest checkpoint, one run at
a time.

Layout:

    model_dir/
      .lock                 held by the training run using the directory (see border_py.lock)
      best/                 replaced on each new best evaluation score
        qnet.pt ...         the agent's files (Agent.save_params)
        meta.yaml           opt_steps, env_steps, score, the configs, the files (written last)
      1000/                 a full training checkpoint every save_interval opt steps
        qnet.pt ...         the agent's files, optimiser and explorer states included
        trainer_state.json  counters, evaluations, RNG states, the sampler's unfinished episode
        replay_buffer.npz   the buffer's contents and priorities (TrainerConfig.checkpoint_buffer)
        meta.yaml
      ...

What a crash can cost, and what it cannot:

- A save writes every file into a hidden temporary sibling (``.1000.tmp-<pid>``), flushes them to disk and
  only then renames the directory into place, so no visible name ever holds a half-written save.
  ``meta.yaml`` lists every file; a directory whose files are not all there is never taken for complete.
- Replacing ``best`` takes two renames (``best`` aside to ``.best.old-<pid>``, then the new one in); a crash
  exactly between them leaves the previous ``best`` complete under its aside name: `resolve_saved`
  finds it there and `recover_model_dir` (run when training starts) moves it back.
- Removing a checkpoint (``keep_checkpoints``) first renames it to a hidden ``.<name>.del-<pid>``, then
  deletes that: a crash mid-removal leaves a hidden leftover, never a half-deleted visible checkpoint.
- A crash loses at most the work since the last checkpoint.

A model directory is untrusted input: a symbolic link found inside it (a numbered checkpoint, ``best``, a
hidden leftover) is never followed, read or written through; a link where a checkpoint is expected is
passed over (`skipped_checkpoints` names it), and cleaning up removes the link itself, never what it
points to.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import yaml

from border_py.config import ConfigError, parse_yaml

META_FILE = "meta.yaml"
TRAINER_STATE_FILE = "trainer_state.json"
LEGACY_STATE_FILE = "trainer_state.pkl"
"""The pickled trainer state of border_py 0.1: never loaded (see border_py.trainer.state)."""


class CheckpointError(ValueError):
    """A saved file of a model directory is damaged, inconsistent or of another kind; the message names
    the file and the field. The fault is the directory's, not the config's, so the run layer reports it as
    it is."""


Writer = Callable[[Path], list[Path]]
"""Writes files into an existing directory and returns them (e.g. ``Agent.save_params``)."""

_HIDDEN = re.compile(r"^\.(?P<name>.+)\.(?P<kind>tmp|old|del)-(?P<pid>\d+)$")
_META_KEYS = ("opt_steps", "env_steps", "score", "files")


def ensure_writable_dir(path: Path) -> None:
    """Creates ``path`` if needed and checks that files can be written in it.

    Raises:
        PermissionError: the directory cannot be created or written; the message names it.
        ValueError: ``path`` is the filesystem root or the home directory.
    """
    resolved = path.resolve()
    for forbidden, what in (
        (Path(resolved.anchor), "the filesystem root"),
        (Path.home().resolve(), "your home"),
    ):
        if resolved == forbidden:
            raise ValueError(
                f"model_dir {str(path)!r} is {what}: a run directory is a folder of its own "
                "(runs/<algo>/<env>/seed<N> by default)"
            )
    try:
        path.mkdir(parents=True, exist_ok=True)
        # mkstemp creates a new name exclusively and never follows a link planted under a guessable name.
        fd, probe = tempfile.mkstemp(prefix=".write-probe-", dir=path)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise PermissionError(f"model_dir {str(path)!r} is not writable: {exc}") from exc


def open_saved(file: Path) -> BinaryIO:
    """Opens a file of a save for reading, never through a symbolic link (``O_NOFOLLOW``): a model
    directory is untrusted, and a link in it could make a load read any file of the machine.

    Raises:
        CheckpointError: ``file`` is a link (named).
        OSError: it cannot be opened (a missing file raises `FileNotFoundError`).
    """
    try:
        fd = os.open(file, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        if file.is_symlink():
            raise CheckpointError(
                f"{file} is a symbolic link: never followed inside a model directory"
            ) from exc
        raise
    return os.fdopen(fd, "rb")


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def save_checkpoint(path: Path, meta: dict[str, Any], writers: Sequence[Writer]) -> list[Path]:
    """Saves what ``writers`` write, plus ``meta`` and the list of files, into the directory ``path``,
    atomically.

    Every file is written and flushed to disk in a temporary sibling directory; ``meta.yaml`` comes last,
    so a directory holding it is complete. The temporary one is then renamed to ``path`` (replacing an
    existing ``path``).

    Args:
        path: the final directory, e.g. ``model_dir/best``.
        meta: plain data written to ``meta.yaml`` (with ``files`` added: the names written).
        writers: each writes its files into the directory it is given.

    Returns:
        The paths of the files written, inside ``path``.

    Raises:
        OSError: writing failed (a full disk, say); the message names ``path``. Nothing visible was
            changed: the previous ``path`` and every other checkpoint are intact.
    """
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    old = path.with_name(f".{path.name}.old-{os.getpid()}")
    _remove(tmp)
    try:
        tmp.mkdir(parents=True)
        written = [file for write in writers for file in write(tmp)]
        names = sorted(str(file.relative_to(tmp)) for file in written)
        (tmp / META_FILE).write_text(yaml.safe_dump({**meta, "files": names}, sort_keys=False))
        for file in [*written, tmp / META_FILE, tmp]:
            _fsync(file)
    except (OSError, RuntimeError) as exc:
        # torch.save reports a full disk as a RuntimeError ("unexpected pos", "iostream error").
        code = exc.errno if isinstance(exc, OSError) else _full_disk(path.parent)
        shutil.rmtree(tmp, ignore_errors=True)
        if code is None:
            raise
        said = exc if isinstance(exc, OSError) else f"{os.strerror(code)} (torch: {exc})"
        raise OSError(
            code, f"could not save {path}: {said}. Nothing was replaced; earlier saves are intact"
        ) from exc
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if path.exists() or path.is_symlink():
        path.rename(old)  # a link renames as itself: what it points to is never replaced
    tmp.rename(path)
    _fsync(path.parent)
    _remove(old)
    return [path / p.relative_to(tmp) for p in written] + [path / META_FILE]


def _full_disk(directory: Path) -> int | None:
    """``ENOSPC`` when the filesystem of ``directory`` has less than a megabyte left, else ``None``."""
    try:
        stats = os.statvfs(directory)
    except OSError:
        return None
    return errno.ENOSPC if stats.f_bavail * stats.f_frsize < 2**20 else None


def _remove(path: Path) -> None:
    """Removes ``path`` if there: a link itself (never what it points to), a directory with its files."""
    if path.is_symlink():
        path.unlink()
    else:
        shutil.rmtree(path, ignore_errors=True)


def remove_checkpoint(path: Path) -> None:
    """Removes the saved directory ``path`` so that no visible name is ever half-deleted: renamed to a
    hidden ``.<name>.del-<pid>`` first (one atomic step), then deleted."""
    doomed = path.with_name(f".{path.name}.del-{os.getpid()}")
    path.rename(doomed)
    _fsync(path.parent)
    shutil.rmtree(doomed)


def _may_be_saving(pid: int) -> bool:
    """Whether process ``pid`` may still be writing its hidden directory: it is alive and not this one
    (this process's leftovers are from an earlier save or removal of its own, finished or failed)."""
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def recover_model_dir(model_dir: Path) -> list[str]:
    """Cleans up after a save or a removal that a crash interrupted; returns what it did, one line each.

    A temporary ``.<name>.tmp-<pid>`` is an unfinished save and ``.<name>.del-<pid>`` an unfinished
    removal: both are deleted. An aside ``.<name>.old-<pid>`` whose ``<name>`` is missing is the previous
    complete directory (the crash hit between the two renames) and is moved back; one whose ``<name>``
    exists is stale and is deleted. A hidden directory of a process that is still alive is left alone.
    """
    done: list[str] = []
    if not model_dir.is_dir():
        return done
    for entry in sorted(model_dir.iterdir()):
        match = _HIDDEN.match(entry.name)
        if match is None or _may_be_saving(int(match["pid"])):
            continue
        if entry.is_symlink():  # never ours: a save or a removal renames directories, never links
            entry.unlink()
            done.append(f"removed the link {entry} (not what it points to)")
            continue
        if not entry.is_dir():
            if match["kind"] == "tmp" and entry.is_file():  # a file written aside (config.yaml's) a kill cut
                entry.unlink()
                done.append(f"removed the unfinished write {entry}")
            continue
        target = model_dir / match["name"]
        if match["kind"] == "old" and not target.exists() and (entry / META_FILE).is_file():
            entry.rename(target)
            done.append(f"restored {target} from {entry.name}")
        else:
            shutil.rmtree(entry)
            done.append(f"removed the unfinished {'removal' if match['kind'] == 'del' else 'save'} {entry}")
    return done


def resolve_saved(path: Path) -> Path:
    """``path`` if it exists, else the complete aside copy a crash mid-replace left (see the module doc).

    Read-only: safe while another process trains into the same model directory.
    """
    if path.exists() or not path.parent.is_dir():
        return path
    asides = [
        p
        for p in path.parent.glob(f".{path.name}.old-*")
        if _HIDDEN.match(p.name) and not p.is_symlink() and (p / META_FILE).is_file()
    ]
    return max(asides, key=lambda p: p.stat().st_mtime) if asides else path


def saved_model_problem(path: Path) -> str | None:
    """Why ``path`` is not a complete saved model (``best`` or a checkpoint); ``None`` when it is: its
    ``meta.yaml`` is readable and every file it lists is there."""
    return _read_complete(path)[1]


def checkpoint_problem(path: Path) -> str | None:
    """Why ``path`` is not a complete training checkpoint; ``None`` when it is (a complete saved model
    with a trainer state)."""
    return _read_checkpoint(path)[1]


def checkpoint_meta(path: Path) -> dict[str, Any]:
    """The ``meta.yaml`` of the complete training checkpoint ``path``, read once for every check that
    needs it.

    Raises:
        FileNotFoundError: ``path`` is not a complete training checkpoint (the message says what is
            missing).
    """
    meta, problem = _read_checkpoint(path)
    if meta is None:
        raise FileNotFoundError(f"{path} is not a complete training checkpoint: {problem}")
    return meta


def _read_checkpoint(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    if not (path / TRAINER_STATE_FILE).is_file():
        if (path / LEGACY_STATE_FILE).is_file():
            return (
                None,
                f"its trainer state is the pickle {LEGACY_STATE_FILE} of an older border_py, never loaded",
            )
        return None, f"{path / TRAINER_STATE_FILE} not found"
    return _read_complete(path)


def _read_complete(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """``path``'s meta and ``None`` when every file it lists is there, else ``None`` and why not."""
    try:
        meta = load_meta(path)
    except (FileNotFoundError, ValueError) as exc:
        return None, str(exc)
    linked = [name for name in meta["files"] if _through_a_link(path, str(name))]
    if linked:
        return None, f"{path / linked[0]} is a symbolic link: never followed inside a model directory"
    missing = [name for name in meta["files"] if not (path / name).is_file()]
    if missing:
        return None, f"{path} lacks {missing}, which its meta.yaml lists"
    return meta, None


def _through_a_link(path: Path, name: str) -> bool:
    """Whether ``path/name`` is a link or lies under one (a save writes plain files and folders only)."""
    part = path
    for piece in Path(name).parts:
        part = part / piece
        if part.is_symlink():
            return True
    return False


def is_resumable(path: Path) -> bool:
    """Whether ``path`` is a complete training checkpoint (see `checkpoint_problem`)."""
    return checkpoint_problem(path) is None


def load_meta(path: Path) -> dict[str, Any]:
    """Reads ``meta.yaml`` of a saved model directory and checks it is whole.

    Raises:
        FileNotFoundError: ``path`` holds no ``meta.yaml`` (not a complete saved model).
        CheckpointError: the file is unreadable, not a YAML mapping, lacks a field every ``meta.yaml``
            has (truncated, or written by an older border_py), or lists a file that is not a name inside
            ``path``.
    """
    meta_path = path / META_FILE
    if not meta_path.is_file() and not meta_path.is_symlink():
        raise FileNotFoundError(f"{meta_path} not found: {path} is not a complete saved model")
    try:
        with open_saved(meta_path) as file:
            data = parse_yaml(file.read().decode(), str(meta_path))
    except (OSError, UnicodeDecodeError, ConfigError) as exc:
        raise CheckpointError(f"{meta_path} is not readable YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise CheckpointError(f"{meta_path}: expected a mapping, got {type(data).__name__}")
    missing = [key for key in _META_KEYS if key not in data]
    if missing or not isinstance(data["files"], list):
        raise CheckpointError(
            f"{meta_path} is incomplete (no {missing or ['files']}): truncated, or written by an older "
            "border_py"
        )
    # Names inside the saved model, as a save writes them; 255 is the longest name Linux and macOS take
    # (a longer one was an OSError naming no meta.yaml, from every command looking for a checkpoint).
    for name in data["files"]:
        rel = Path(name) if isinstance(name, str) and name and "\x00" not in name else None
        if rel is None or rel.is_absolute() or any(p == ".." or len(p) > 255 for p in rel.parts):
            raise CheckpointError(f"{meta_path}: files lists {name!r:.80}, not a file name inside {path}")
    return data
