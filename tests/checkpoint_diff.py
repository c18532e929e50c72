"""What differs between two training checkpoints, file by file and tensor by tensor: the exact-resume
tests compare a resumed run's final checkpoint with an uninterrupted run's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from border_py.checkpoint import TRAINER_STATE_FILE, load_meta
from border_py.trainer.state import read_trainer_state


def checkpoint_differences(a: Path, b: Path) -> list[str]:
    """Where checkpoints ``a`` and ``b`` differ (empty: the same): their counters and score, every agent
    file (``.pt``: each tensor), the trainer state (counters, evaluations, RNG states, the regime's state)
    and the buffer's arrays (``.npz``). The configs in ``meta.yaml`` are not compared: a resumed run may
    change its budget."""
    meta_a, meta_b = load_meta(a), load_meta(b)
    found = [
        f"meta.yaml {key}: {meta_a[key]!r} vs {meta_b[key]!r}"
        for key in ("opt_steps", "env_steps", "score", "files")
        if meta_a[key] != meta_b[key]
    ]
    for name in meta_a["files"]:
        if name == TRAINER_STATE_FILE:
            left: Any = read_trainer_state(a)
            right: Any = read_trainer_state(b)
        elif name.endswith(".pt"):
            left, right = (torch.load(p / name, weights_only=True) for p in (a, b))
        elif name.endswith(".npz"):
            with np.load(a / name) as x, np.load(b / name) as y:
                left, right = dict(x), dict(y)
        else:
            left, right = ((p / name).read_bytes() for p in (a, b))
        found += _differences(left, right, name)
    return found


def _differences(a: Any, b: Any, where: str) -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return [f"{where}: keys {sorted(a)} vs {sorted(b)}"]
        return [d for k in a for d in _differences(a[k], b[k], f"{where}.{k}")]
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        if len(a) != len(b):
            return [f"{where}: {len(a)} vs {len(b)} items"]
        return [
            d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _differences(x, y, f"{where}[{i}]")
        ]
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        same = a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)
    elif isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        same = a.dtype == b.dtype and np.array_equal(a, b)
    else:
        same = type(a) is type(b) and a == b
    return [] if same else [f"{where}: {a!r:.80} vs {b!r:.80}"]
