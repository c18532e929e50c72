"""Model directories: atomic saves, recovery after a crash, the newest checkpoint, rotation.

Layout::

    model_dir/
      best/                 replaced on each new best evaluation score
        qnet.pt ...         the agent's files (Agent.save_params)
        meta.yaml           opt_steps, env_steps, score, the configs (written last)
      1000/                 a full training checkpoint every save_interval opt steps
        qnet.pt ...         the agent's files, optimiser and explorer states included
        trainer_state.pkl   counters, evaluations, RNG states, the sampler's unfinished episode
        replay_buffer.npz   the buffer's contents and priorities (TrainerConfig.checkpoint_buffer)
        meta.yaml
      ...

A save writes every file into a hidden temporary sibling (``.1000.tmp-<pid>``), flushes them to disk and
only then renames the directory into place, so a crash, a kill or a full disk during a save never leaves a
half-written checkpoint under a visible name. Replacing ``best`` takes two renames (``best`` aside to
``.best.old-<pid>``, then the new one in); a crash exactly between them leaves the previous ``best`` complete
under its aside name: :func:`resolve_saved` finds it there and :func:`recover_model_dir` (run when training
starts) moves it back.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

META_FILE = "meta.yaml"
TRAINER_STATE_FILE = "trainer_state.pkl"

Writer = Callable[[Path], list[Path]]
"""Writes files into an existing directory and returns them (e.g. ``Agent.save_params``)."""

_HIDDEN = re.compile(r"^\.(?P<name>.+)\.(?P<kind>tmp|old)-\d+$")


def ensure_writable_dir(path: Path) -> None:
    """Creates ``path`` if needed and checks that files can be written in it.

    Raises:
        PermissionError: the directory cannot be created or written; the message names it.
    """
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".write-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise PermissionError(f"model_dir {str(path)!r} is not writable: {exc}") from exc


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def save_checkpoint(path: Path, meta: dict[str, Any], writers: Sequence[Writer]) -> list[Path]:
    """Saves what ``writers`` write, plus ``meta``, into the directory ``path``, atomically.

    Every file is written and flushed to disk in a temporary sibling directory; ``meta.yaml`` comes last,
    so a directory holding it is complete. The temporary one is then renamed to ``path`` (replacing an
    existing ``path``).

    Args:
        path: the final directory, e.g. ``model_dir/best``.
        meta: plain data written to ``meta.yaml``.
        writers: each writes its files into the directory it is given.

    Returns:
        The paths of the files written, inside ``path``.

    Raises:
        OSError: writing failed (a full disk, say); the message names ``path``. Nothing visible was
            changed: the previous ``path`` and every other checkpoint are intact.
    """
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    old = path.with_name(f".{path.name}.old-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        tmp.mkdir(parents=True)
        written = [file for write in writers for file in write(tmp)]
        (tmp / META_FILE).write_text(yaml.safe_dump(meta, sort_keys=False))
        for file in [*written, tmp / META_FILE, tmp]:
            _fsync(file)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise OSError(
            exc.errno, f"could not save {path}: {exc}. Nothing was replaced; earlier saves are intact"
        ) from exc
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if path.exists():
        path.rename(old)
    tmp.rename(path)
    _fsync(path.parent)
    shutil.rmtree(old, ignore_errors=True)
    return [path / p.relative_to(tmp) for p in written] + [path / META_FILE]


def recover_model_dir(model_dir: Path) -> list[str]:
    """Cleans up after a save that a crash interrupted; returns what it did, one line per directory.

    A temporary ``.<name>.tmp-<pid>`` is an unfinished save and is removed. An aside ``.<name>.old-<pid>``
    whose ``<name>`` is missing is the previous complete directory (the crash hit between the two renames)
    and is moved back; one whose ``<name>`` exists is stale and is removed. Run it only when no other
    process is saving into ``model_dir`` (the trainer runs it before its first env step).
    """
    done: list[str] = []
    if not model_dir.is_dir():
        return done
    for entry in sorted(model_dir.iterdir()):
        match = _HIDDEN.match(entry.name)
        if match is None or not entry.is_dir():
            continue
        target = model_dir / match["name"]
        if match["kind"] == "old" and not target.exists() and (entry / META_FILE).is_file():
            entry.rename(target)
            done.append(f"restored {target} from {entry.name}")
        else:
            shutil.rmtree(entry)
            done.append(f"removed the unfinished save {entry}")
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
        if _HIDDEN.match(p.name) and (p / META_FILE).is_file()
    ]
    return max(asides, key=lambda p: p.stat().st_mtime) if asides else path


def is_resumable(path: Path) -> bool:
    """Whether ``path`` is a complete training checkpoint (``meta.yaml`` and the trainer state)."""
    return (path / META_FILE).is_file() and (path / TRAINER_STATE_FILE).is_file()


def periodic_checkpoints(model_dir: Path) -> list[Path]:
    """The complete ``model_dir/<opt_steps>`` checkpoints, oldest first (by opt steps)."""
    if not model_dir.is_dir():
        return []
    found = [p for p in model_dir.iterdir() if p.name.isdigit() and p.is_dir() and is_resumable(p)]
    return sorted(found, key=lambda p: int(p.name))


def latest_checkpoint(model_dir: Path) -> Path | None:
    """The complete checkpoint with the most opt steps in ``model_dir``; ``None`` when there is none.

    Incomplete directories (no ``meta.yaml`` or no trainer state) are never picked.

    Example:
        >>> latest_checkpoint(Path("no/such/dir")) is None
        True
    """
    found = periodic_checkpoints(model_dir)
    return found[-1] if found else None


def prune_checkpoints(model_dir: Path, keep: int) -> list[Path]:
    """Removes all but the newest ``keep`` periodic checkpoints (``best`` is never touched); returns the
    removed ones.

    Raises:
        ValueError: ``keep`` < 1.
    """
    if keep < 1:
        raise ValueError(f"keep must be >= 1, got {keep}")
    removed = periodic_checkpoints(model_dir)[:-keep]
    for path in removed:
        shutil.rmtree(path)
    return removed


def load_meta(path: Path) -> dict[str, Any]:
    """Reads ``meta.yaml`` of a saved model directory.

    Raises:
        FileNotFoundError: ``path`` holds no ``meta.yaml`` (not a complete saved model).
        ValueError: the file is not a YAML mapping.
    """
    meta_path = path / META_FILE
    if not meta_path.is_file():
        raise FileNotFoundError(f"{meta_path} not found: {path} is not a complete saved model")
    try:
        data = yaml.safe_load(meta_path.read_text())
    except yaml.YAMLError as exc:
        raise ValueError(f"{meta_path} is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{meta_path}: expected a mapping, got {type(data).__name__}")
    return data
