"""``TransitionStorage``: the column arrays of stored transitions, shared by the replay buffer (a ring) and
the datasets (fixed)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from border_py.replay_buffer.transition import Transition, TransitionBatch

COLUMNS = ("obs", "next_obs", "act", "reward", "is_terminated", "is_truncated", "discount")
"""The columns a saved buffer or a dataset file holds, one row per transition."""


class TransitionStorage:
    """One numpy array per transition field, ``capacity`` rows each.

    Observations are float32; actions int64 (discrete) or float32; the four scalar columns are views of
    one ``(capacity, 4)`` float32 array, so a sampled transition's scalars share a cache line (one miss
    instead of four in a large buffer).

    Args:
        obs_shape: the shape of one observation.
        act_shape: the shape of one action (``()`` for a discrete action).
        act_int: whether actions are integers.
        capacity: the number of rows.
    """

    def __init__(
        self, obs_shape: tuple[int, ...], act_shape: tuple[int, ...], act_int: bool, capacity: int
    ) -> None:
        self.obs = np.zeros((capacity, *obs_shape), dtype=np.float32)
        self.next_obs = np.zeros((capacity, *obs_shape), dtype=np.float32)
        self.act = np.zeros((capacity, *act_shape), dtype=np.int64 if act_int else np.float32)
        self.scalars = np.zeros((capacity, 4), dtype=np.float32)
        self.reward, self.is_terminated, self.is_truncated, self.discount = (
            self.scalars[:, k] for k in range(4)
        )

    @property
    def obs_shape(self) -> tuple[int, ...]:
        """The shape of one observation."""
        return tuple(self.obs.shape[1:])

    @property
    def act_shape(self) -> tuple[int, ...]:
        """The shape of one action."""
        return tuple(self.act.shape[1:])

    @staticmethod
    def for_first(first: Transition, capacity: int) -> TransitionStorage:
        """Storage shaped after the first transition pushed."""
        obs, act = np.asarray(first.obs), np.asarray(first.act)
        return TransitionStorage(obs.shape, act.shape, bool(np.issubdtype(act.dtype, np.integer)), capacity)

    def gather(self, ix: npt.NDArray[np.int64], weight: torch.Tensor | None = None) -> TransitionBatch:
        """The rows ``ix`` as a batch of tensors that share memory with no further copy."""
        # ``take(ix, axis=0)``, not ``a[ix]``: the same rows, without numpy's general fancy-indexing
        # machinery (benchmarks/RESULTS.md has the measured gain). The scalar columns come out as strided
        # views of one gathered array.
        reward, is_terminated, is_truncated, discount = torch.from_numpy(
            self.scalars.take(ix, axis=0)
        ).unbind(1)
        return TransitionBatch(
            obs=torch.from_numpy(self.obs.take(ix, axis=0)),
            act=torch.from_numpy(self.act.take(ix, axis=0)),
            next_obs=torch.from_numpy(self.next_obs.take(ix, axis=0)),
            reward=reward,
            is_terminated=is_terminated,
            is_truncated=is_truncated,
            discount=discount,
            ix_sample=ix,
            weight=weight,
        )

    def columns(self, n: int) -> dict[str, npt.NDArray[Any]]:
        """The first ``n`` rows of every column, by name (views, not copies)."""
        return {name: getattr(self, name)[:n] for name in COLUMNS}

    @staticmethod
    def from_columns(arrays: Mapping[str, npt.NDArray[Any]], capacity: int, source: str) -> TransitionStorage:
        """Storage of ``capacity`` rows whose first rows are ``arrays`` (every column of :data:`COLUMNS`,
        all of one length, finite, terminated and truncated 0 or 1).

        Raises:
            ValueError: a column is missing, of another length, does not fit the first one's shapes, or
                holds a value that is not finite; the message names ``source`` and the column.
        """
        missing = [name for name in COLUMNS if name not in arrays]
        if missing:
            raise ValueError(f"{source}: the columns {missing} are missing")
        n = len(arrays["obs"])
        if n > capacity or any(len(arrays[name]) != n for name in COLUMNS):
            lengths = {name: len(arrays[name]) for name in COLUMNS}
            raise ValueError(f"{source}: the columns must have one length <= {capacity}, got {lengths}")
        obs, act = np.asarray(arrays["obs"]), np.asarray(arrays["act"])
        act_int = bool(np.issubdtype(act.dtype, np.integer))
        storage = TransitionStorage(obs.shape[1:], act.shape[1:], act_int, capacity)
        for name in COLUMNS:
            column = np.asarray(arrays[name])
            if column.dtype.kind not in "biuf":
                raise ValueError(f"{source}: column {name} has dtype {column.dtype}, not numbers")
            target = getattr(storage, name)
            if column.shape[1:] != target.shape[1:]:
                raise ValueError(
                    f"{source}: column {name} has rows of shape {column.shape[1:]}, expected "
                    f"{target.shape[1:]}"
                )
            target[:n] = column
            if not np.isfinite(target[:n]).all():
                raise ValueError(f"{source}: column {name} holds a value that is not finite (in float32)")
        for name in ("is_terminated", "is_truncated"):
            if not np.isin(getattr(storage, name)[:n], (0.0, 1.0)).all():
                raise ValueError(f"{source}: column {name} must hold only 0 and 1")
        if not ((storage.discount[:n] >= 0.0) & (storage.discount[:n] <= 1.0)).all():
            raise ValueError(f"{source}: column discount must lie in [0, 1]")
        return storage
