"""A policy for a vector env's sampler that plays actions given in advance (the tests that replay a run's
actions, or another library's, through `SyncSampler`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt


class ScriptedActions:
    """Call ``k`` of `sample_batch` (from ``start``) takes row ``k`` of ``rows``, one action per sub-env."""

    def __init__(self, rows: npt.NDArray[np.int64], start: int = 0) -> None:
        self.rows = rows
        self.k = start

    def sample(self, obs: npt.NDArray[np.float32]) -> npt.NDArray[np.int64]:
        raise AssertionError("acts through sample_batch")

    def sample_batch(self, obs: Sequence[npt.NDArray[np.float32]]) -> list[npt.NDArray[np.int64]]:
        self.k += 1
        return [np.array(a) for a in self.rows[self.k - 1]]
