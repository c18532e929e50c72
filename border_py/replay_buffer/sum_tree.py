"""A sum tree (with a min tree beside it) for prioritized replay, vectorised over batches.

With numba installed (the ``fast`` extra) the two tree walks run compiled, as scalar loops instead of
about ten numpy calls per tree level: the update leaf by leaf, the search level by level. Both versions do
the same float64 additions and comparisons in the same tree, so they return identical results (a test
checks this); ``SumTree(..., compiled=False)`` forces the numpy one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

_Kernels = tuple[Callable[..., None], Callable[..., None]]
_kernels: _Kernels | None = None
_kernels_tried = False


def _update_kernel(
    sums: npt.NDArray[np.float64],
    mins: npt.NDArray[np.float64],
    size: int,
    indices: npt.NDArray[np.int64],
    values: npt.NDArray[np.float64],
) -> None:
    # Leaf by leaf, each walk recomputing ancestors from their children. A walk stops below the first
    # ancestor of the next leaf: the next walk recomputes that node and everything above it, after this
    # leaf is set. So the last walk through a node comes after every leaf below it is set, and the result
    # is the bottom-up one. Sorted indices (what stratified sampling returns) share most upper nodes, so
    # most walks stop early.
    n = indices.shape[0]
    for j in range(n):
        node = indices[j] + size
        sums[node] = values[j]
        # A zero leaf is never sampled: it takes no part in the minimum.
        mins[node] = values[j] if values[j] > 0.0 else np.inf
        # The next leaf's ancestor at the current height; 0, never a node, after the last leaf.
        next_node = indices[j + 1] + size if j + 1 < n else 0
        node >>= 1
        next_node >>= 1
        while node >= 1 and node != next_node:
            left = node << 1
            sums[node] = sums[left] + sums[left + 1]
            mins[node] = min(mins[left], mins[left + 1])
            node >>= 1
            next_node >>= 1


def _find_kernel(
    sums: npt.NDArray[np.float64],
    size: int,
    values: npt.NDArray[np.float64],
    out: npt.NDArray[np.int64],
) -> None:
    # All walks go down one level at a time, branch-free, like the numpy version: the loads of one level
    # do not depend on each other, so the CPU overlaps their cache misses and mispredicts nothing (walk
    # by walk is slower: benchmarks/RESULTS.md). ``values`` is overwritten.
    n = values.shape[0]
    for j in range(n):
        out[j] = 1
    level = size
    while level > 1:
        for j in range(n):
            left = out[j] << 1
            left_sum = sums[left]
            go_right = (values[j] >= left_sum) & (sums[left + 1] > 0.0)
            values[j] -= left_sum * go_right
            out[j] = left + go_right
        level >>= 1
    for j in range(n):
        out[j] -= size


def compiled_kernels() -> _Kernels | None:
    """The numba-compiled tree walks, or ``None`` without numba (compiled on first use, about 1 s)."""
    global _kernels, _kernels_tried
    if not _kernels_tried:
        _kernels_tried = True
        try:
            import numba
        except ImportError:
            return None
        jit: Any = numba.njit(nogil=True)
        _kernels = (jit(_update_kernel), jit(_find_kernel))
    return _kernels


class SumTree:
    """Leaf values with O(log n) prefix-sum search, total and minimum.

    The tree is an array of ``2 * size`` nodes (``size`` the capacity rounded up to a power of two):
    node 1 is the root, the children of node ``k`` are ``2k`` and ``2k + 1``, and leaf ``i`` is node
    ``size + i``. Invariants: every inner node of ``_sum`` is the sum of its children and every inner node
    of ``_min`` their minimum; unused leaves are 0 in ``_sum`` and +inf in ``_min``.

    Args:
        capacity: the number of leaves.
        compiled: use the numba tree walks when numba is installed.

    Examples:
        >>> t = SumTree(4)
        >>> t.update(np.array([0, 1]), np.array([1.0, 3.0]))
        >>> t.total(), t.min()
        (4.0, 1.0)
        >>> t.find(np.array([0.5, 1.5]))
        array([0, 1])
    """

    @staticmethod
    def nbytes_for(capacity: int) -> int:
        """The bytes of a tree of ``capacity`` leaves: two float64 arrays of ``2 * size`` nodes."""
        return 2 * 2 * (1 << max(0, (capacity - 1).bit_length())) * 8

    def __init__(self, capacity: int, compiled: bool = True) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity}")
        self.capacity = capacity
        self._kernels = compiled_kernels() if compiled else None
        self._depth = max(0, (capacity - 1).bit_length())
        self._size = 1 << self._depth
        self._sum = np.zeros(2 * self._size, dtype=np.float64)
        self._min = np.full(2 * self._size, np.inf, dtype=np.float64)

    def update(self, indices: npt.NDArray[np.int64], values: npt.NDArray[np.float64]) -> None:
        """Sets leaves ``indices`` to ``values`` (the last one wins for a repeated index).

        Raises:
            IndexError: an index is outside ``[0, capacity)``.
            ValueError: a value is negative or not finite.
        """
        indices = np.asarray(indices, dtype=np.int64)
        values = np.asarray(values, dtype=np.float64)
        if indices.size == 0:
            return
        if indices.min() < 0 or indices.max() >= self.capacity:
            raise IndexError(f"sum tree indices must be in [0, {self.capacity}), got {indices}")
        # Two reductions check both: a NaN fails ``>= 0``, an infinity fails ``< inf``.
        if not (values.min() >= 0 and values.max() < np.inf):
            raise ValueError(f"sum tree values must be finite and >= 0, got {values}")
        if self._kernels is not None:
            self._kernels[0](self._sum, self._min, self._size, indices.reshape(-1), values.reshape(-1))
            return
        nodes = indices + self._size
        self._sum[nodes] = values
        self._min[nodes] = np.where(values > 0.0, values, np.inf)
        # Level by level up to the root. A node shared by several updated leaves is written once per leaf,
        # always with the same value (its children are final by then): cheaper than deduplicating.
        for _ in range(self._depth):
            nodes >>= 1
            left = nodes << 1
            self._sum[nodes] = self._sum[left] + self._sum[left + 1]
            self._min[nodes] = np.minimum(self._min[left], self._min[left + 1])

    def get(self, indices: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        """Returns the leaf values at ``indices``."""
        return self._sum[np.asarray(indices) + self._size]

    def total(self) -> float:
        """The sum of all leaves."""
        return float(self._sum[1])

    def min(self) -> float:
        """The smallest positive leaf (+inf when none is): a zero leaf is never sampled, so it never sets the
        scale of importance weights."""
        return float(self._min[1])

    def find(self, prefix_sums: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
        """For each value ``v`` in ``[0, total)``, returns the leaf ``i`` with
        ``sum(leaves[:i]) <= v < sum(leaves[:i + 1])``.

        Values at or past the total (rounding) land on the last leaf with a positive value.
        """
        values = np.asarray(prefix_sums, dtype=np.float64).copy()
        if self._kernels is not None:
            out = np.empty(values.shape, dtype=np.int64)
            self._kernels[1](self._sum, self._size, values.reshape(-1), out.reshape(-1))
            return out
        nodes = np.ones(values.shape, dtype=np.int64)
        if nodes.size == 0:
            return nodes
        while nodes[0] < self._size:
            left = 2 * nodes
            left_sum = self._sum[left]
            # Go right when v >= left sum, unless the right subtree is empty (guards rounding at the end).
            go_right = (values >= left_sum) & (self._sum[left + 1] > 0.0)
            values -= left_sum * go_right
            nodes = left + go_right
        return nodes - self._size
