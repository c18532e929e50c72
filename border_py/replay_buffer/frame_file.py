"""A `FrameReplayBuffer` to and from ``replay_buffer.npz``: plain arrays and a
JSON state, no pickle, everything checked before the buffer changes."""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from border_py.replay_buffer.npz import read_npz
from border_py.replay_buffer.sum_tree import SumTree

if TYPE_CHECKING:
    from border_py.replay_buffer.frames import FrameReplayBuffer

SAVED = ("frames", "act", "scalars", "back", "offset", "valid")
"""The per-slot arrays a saved buffer holds (``FrameReplayBuffer._columns``)."""


Segments = list[tuple[int, int, int]]
"""Where saved rows go: ``(first row in the buffer, first row in the file, rows)`` runs."""


def _lane_segments(lane: int, filled: list[int]) -> Segments:
    """Each lane's written rows, laid one lane after another in the file (``filled``: rows per lane).

    Examples:
        >>> _lane_segments(10, [3, 0, 10])
        [(0, 0, 3), (20, 3, 10)]
    """
    segments, at = [], 0
    for k, rows in enumerate(filled):
        if rows:
            segments.append((k * lane, at, rows))
            at += rows
    return segments


def _buffer_rows(segments: Segments) -> npt.NDArray[np.int64]:
    """The buffer rows of ``segments``, in the file's order."""
    return np.concatenate(
        [np.arange(start, start + n) for start, _, n in segments] or [np.zeros(0, np.int64)]
    )


def save_frame_buffer(buffer: FrameReplayBuffer, file: Path) -> Path:
    """Writes ``buffer``'s written rows (each lane's, one lane after another), priorities, sampling RNG and
    counters to ``file``. A vector env's lanes fill side by side, so the rows up to the last lane's head
    were mostly empty: DQN's Pong entry (4 lanes) wrote 4.4 times the frames it held."""
    filled = [min(head, buffer._lane) for head in buffer._heads]
    rows = _buffer_rows(_lane_segments(buffer._lane, filled))
    arrays: dict[str, npt.NDArray[Any]] = {}
    if buffer._frames is not None:
        arrays = {name: column[rows] for name, column in buffer._columns().items()}
        if buffer._tree is not None:
            arrays["priority"] = buffer._tree.get(rows)
    config = buffer.config
    state = {
        "kind": "frames",
        "capacity": config.capacity,
        "stack": config.stack,
        "streams": config.streams,
        "prioritized": buffer._tree is not None,
        "heads": buffer._heads,
        "layout": "lanes",
        "episode_starts": buffer._episode_starts,
        "pending": [[list(p) for p in pending] for pending in buffer._pending],
        "n_batches": buffer._n_batches,
        "max_priority": buffer._max_priority,
        "rng": buffer._rng.bit_generator.state,
    }
    arrays["state"] = np.array(json.dumps(state))
    with file.open("wb") as f:
        np.savez(f, **arrays)  # type: ignore[arg-type]  # every value is an array
    return file


def load_frame_buffer(buffer: FrameReplayBuffer, file: Path) -> None:
    """Replaces ``buffer``'s contents with what `save_frame_buffer` wrote to ``file``.

    Raises:
        FileNotFoundError: ``file`` is missing.
        ValueError: the file is corrupt, or was saved by a buffer of another kind, capacity, stack, streams
            or sampling (the message names the file and what differs); the buffer is unchanged then.
    """
    if not file.is_file():
        raise FileNotFoundError(f"{file} not found: the checkpoint holds no replay buffer")
    config = buffer.config
    arrays = read_npz(file, "frame replay buffer")
    try:
        state = json.loads(str(arrays.pop("state")))
        rng = np.random.default_rng()
        rng.bit_generator.state = state["rng"]
        heads = [int(h) for h in state["heads"]]
        starts = [int(s) for s in state["episode_starts"]]
        pending = [deque((int(a), int(b)) for a, b in lane) for lane in state["pending"]]
        counters = int(state["n_batches"]), float(state["max_priority"])
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{file} is not a readable frame replay buffer file: {exc}") from exc
    expected = {
        "kind": "frames",
        "capacity": config.capacity,
        "stack": config.stack,
        "streams": config.streams,
    }
    expected["prioritized"] = config.per is not None
    saved = {key: state.get(key) for key in expected}
    if saved != expected:
        raise ValueError(f"{file} holds a buffer with {saved}, this one has {expected}")
    if not len(heads) == len(starts) == len(pending) == config.streams or min(heads, default=0) < 0:
        raise ValueError(f"{file}: the lanes' counters are not consistent")
    filled = [min(h, buffer._lane) for h in heads]
    if state.get("layout") == "lanes":
        segments = _lane_segments(buffer._lane, filled)
    else:  # border_py before 2026-11-27: rows 0 to the last lane's head, the lanes' gaps included
        rows = max((k * buffer._lane + n for k, n in enumerate(filled) if n), default=0)
        segments = [(0, 0, rows)] if rows else []
    _restore(buffer, file, arrays, segments)
    buffer._rng, buffer._heads, buffer._episode_starts, buffer._pending = rng, heads, starts, pending
    buffer._n_batches, buffer._max_priority = counters


def _restore(
    buffer: FrameReplayBuffer, file: Path, arrays: dict[str, npt.NDArray[Any]], segments: Segments
) -> None:
    """Checks the saved columns of the rows ``segments`` place, then copies them into ``buffer``."""
    names = [*SAVED, "priority"] if buffer.config.per is not None else list(SAVED)
    rows = sum(n for _, _, n in segments)
    if rows == 0:
        return
    if sorted(arrays) != sorted(names) or any(len(arrays[n]) != rows for n in names):
        raise ValueError(f"{file}: expected the columns {sorted(names)} of {rows} rows")
    frames, priority = arrays["frames"], arrays.get("priority")
    if frames.dtype != np.uint8 or frames.ndim != 3 or arrays["valid"].dtype != bool:
        raise ValueError(f"{file}: frames must be uint8 (n, height, width) and valid boolean")
    if not np.isfinite(arrays["scalars"]).all() or (arrays["offset"] > 0).sum() < arrays["valid"].sum():
        raise ValueError(f"{file}: the transition columns are not finite or not consistent")
    if priority is not None and not (np.isfinite(priority).all() and (priority >= 0).all()):
        raise ValueError(f"{file}: priorities must be finite and >= 0")
    cap = buffer.config.capacity
    buffer._valid[:] = False
    buffer._frames = np.zeros((cap + 1, *frames.shape[1:]), np.uint8)
    buffer._act = np.zeros((cap, *arrays["act"].shape[1:]), arrays["act"].dtype)
    for name, target in buffer._columns().items():
        for start, at, n in segments:
            target[start : start + n] = arrays[name][at : at + n]
    buffer._n_valid = int(buffer._valid.sum())
    if buffer.config.per is not None:
        buffer._tree = SumTree(cap)
        assert priority is not None
        buffer._tree.update(_buffer_rows(segments), priority)
