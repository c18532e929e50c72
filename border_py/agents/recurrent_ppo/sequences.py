"""How recurrent PPO cuts a rollout into sequences and packs them into minibatches, as pure functions of
arrays: a sequence never crosses an episode start, is never longer than a minibatch, and is never split
between two minibatches, so the LSTM runs over it from its first step's memory, as it did when acting.

A rollout's steps are laid out step-major, ``row = t * num_envs + lane`` (the on-policy agents' flat data).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Int64s = npt.NDArray[np.int64]


def episode_starts(done: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """Where a rollout's ``(n_steps, num_envs)`` steps begin a sequence: every lane's first step, and each
    step after an episode's end.

    Examples:
        >>> episode_starts(np.array([[False], [True], [False]])).ravel().tolist()
        [True, False, True]
    """
    starts = np.ones_like(done)
    starts[1:] = done[:-1]
    return starts


def cut(starts: npt.NDArray[np.bool_], max_length: int) -> Int64s:
    """The sequences of a rollout whose ``(n_steps, num_envs)`` flags ``starts`` mark where each begins
    (`episode_starts`), each cut further into pieces of at most ``max_length`` steps: rows of ``(lane,
    first step, length)``, lane by lane, in time order.

    Examples:
        >>> starts = np.array([[True, True], [False, False], [True, False], [False, False]])
        >>> cut(starts, max_length=3).tolist()
        [[0, 0, 2], [0, 2, 2], [1, 0, 3], [1, 3, 1]]
    """
    if max_length < 1:
        raise ValueError(f"max_length must be >= 1, got {max_length}")
    n_steps, num_envs = starts.shape
    rows: list[tuple[int, int, int]] = []
    for lane in range(num_envs):
        firsts = [int(t) for t in np.flatnonzero(starts[:, lane])]
        ends = [*firsts[1:], n_steps]
        for first, end in zip(firsts, ends, strict=True):
            for piece in range(first, end, max_length):
                rows.append((lane, piece, min(max_length, end - piece)))
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


def pack(lengths: Int64s, order: Sequence[int], batch_size: int) -> list[Int64s]:
    """Minibatches of whole sequences: the sequences of ``lengths`` taken in ``order``, each minibatch
    filled until the next would take it past ``batch_size`` steps (a longer sequence is a minibatch of its
    own). Returns each minibatch's sequence indices.

    Examples:
        >>> [m.tolist() for m in pack(np.array([3, 2, 2, 4]), [0, 1, 2, 3], batch_size=5)]
        [[0, 1], [2], [3]]
    """
    batches: list[list[int]] = []
    size = batch_size  # past the limit: the first sequence opens a minibatch
    for i in order:
        length = int(lengths[i])
        if size + length > batch_size:
            batches.append([])
            size = 0
        batches[-1].append(int(i))
        size += length
    return [np.array(b, dtype=np.int64) for b in batches]


def padded(pieces: Int64s, num_envs: int) -> tuple[Int64s, npt.NDArray[np.bool_]]:
    """The rows of sequences ``pieces`` (`cut`'s ``(lane, first step, length)``) side by side, padded to
    the longest: ``(index, valid)``, both ``(longest, len(pieces))``; ``index`` holds each step's flat row
    (padding repeats the sequence's last row), ``valid`` whether it is a step of the sequence.

    Examples:
        >>> index, valid = padded(np.array([[1, 0, 2], [0, 2, 1]]), num_envs=2)
        >>> index.tolist(), valid.tolist()
        ([[1, 4], [3, 4]], [[True, True], [True, False]])
    """
    lane, first, length = pieces[:, 0], pieces[:, 1], pieces[:, 2]
    steps = np.arange(int(length.max()))[:, None]
    valid = steps < length[None, :]
    t = first[None, :] + np.minimum(steps, length[None, :] - 1)
    return (t * num_envs + lane[None, :]).astype(np.int64), valid
