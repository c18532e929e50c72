"""A sum tree (with a min tree beside it) for prioritized replay, vectorised over batches."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


class SumTree:
    """Leaf values with O(log n) prefix-sum search, total and minimum.

    The tree is an array of ``2 * size`` nodes (``size`` the capacity rounded up to a power of two):
    node 1 is the root, the children of node ``k`` are ``2k`` and ``2k + 1``, and leaf ``i`` is node
    ``size + i``. Invariants: every inner node of ``_sum`` is the sum of its children and every inner node
    of ``_min`` their minimum; unused leaves are 0 in ``_sum`` and +inf in ``_min``.

    Args:
        capacity: the number of leaves.

    Example:
        >>> t = SumTree(4)
        >>> t.update(np.array([0, 1]), np.array([1.0, 3.0]))
        >>> t.total(), t.min()
        (4.0, 1.0)
        >>> t.find(np.array([0.5, 1.5]))
        array([0, 1])
    """

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity}")
        self.capacity = capacity
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
        if not np.all(np.isfinite(values)) or values.min() < 0:
            raise ValueError(f"sum tree values must be finite and >= 0, got {values}")
        nodes = indices + self._size
        self._sum[nodes] = values
        self._min[nodes] = values
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
        """The smallest leaf set so far (+inf when none is set)."""
        return float(self._min[1])

    def find(self, prefix_sums: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
        """For each value ``v`` in ``[0, total)``, returns the leaf ``i`` with
        ``sum(leaves[:i]) <= v < sum(leaves[:i + 1])``.

        Values at or past the total (rounding) land on the last leaf with a positive value.
        """
        values = np.asarray(prefix_sums, dtype=np.float64).copy()
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
