"""Model directories: atomic saves of an agent's files plus a metadata file.

Layout::

    model_dir/
      best/            replaced on each new best evaluation score
        qnet.pt ...    the agent's files (Agent.save_params)
        meta.yaml      opt_steps, env_steps, score, the configs
      1000/            every save_interval opt steps
      ...

A save writes into a hidden temporary sibling and renames it into place, so a crash mid-save never leaves
a half-written ``best``: the previous one stays until the new one is complete.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Protocol

import yaml

META_FILE = "meta.yaml"


class _SavesParams(Protocol):
    def save_params(self, path: Path) -> list[Path]: ...


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


def save_checkpoint(agent: _SavesParams, path: Path, meta: dict[str, Any]) -> list[Path]:
    """Saves ``agent``'s files and ``meta`` into the directory ``path``, atomically.

    Args:
        agent: anything with ``save_params(dir)``.
        path: the final directory, e.g. ``model_dir/best``; replaced if it exists.
        meta: plain data written to ``meta.yaml``.

    Returns:
        The paths of the files written, inside ``path``.
    """
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    old = path.with_name(f".{path.name}.old-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        written = agent.save_params(tmp)
        (tmp / META_FILE).write_text(yaml.safe_dump(meta, sort_keys=False))
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if path.exists():
        path.rename(old)
    tmp.rename(path)
    shutil.rmtree(old, ignore_errors=True)
    return [path / p.relative_to(tmp) for p in written] + [path / META_FILE]


def load_meta(path: Path) -> dict[str, Any]:
    """Reads ``meta.yaml`` of a saved model directory.

    Raises:
        FileNotFoundError: ``path`` holds no ``meta.yaml`` (not a complete checkpoint).
        ValueError: the file is not a YAML mapping.
    """
    meta_path = path / META_FILE
    if not meta_path.is_file():
        raise FileNotFoundError(f"{meta_path} not found: {path} is not a complete saved model")
    data = yaml.safe_load(meta_path.read_text())
    if not isinstance(data, dict):
        raise ValueError(f"{meta_path}: expected a mapping, got {type(data).__name__}")
    return data
