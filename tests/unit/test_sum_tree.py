"""Sum-tree invariants and sampling proportions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from border_py import SumTree


def _check_invariants(tree: SumTree) -> None:
    size = tree._size
    for node in range(1, size):
        left, right = 2 * node, 2 * node + 1
        assert tree._sum[node] == pytest.approx(tree._sum[left] + tree._sum[right])
        assert tree._min[node] == min(tree._min[left], tree._min[right])


@settings(max_examples=60, deadline=None)
@given(
    capacity=st.integers(1, 33),
    updates=st.lists(
        st.tuples(st.integers(0, 32), st.floats(0.0, 100.0, allow_nan=False, allow_infinity=False)),
        max_size=60,
    ),
)
def test_any_update_sequence_keeps_sum_and_min_invariants(
    capacity: int, updates: list[tuple[int, float]]
) -> None:
    tree = SumTree(capacity)
    leaves = np.zeros(capacity)
    touched = np.zeros(capacity, dtype=bool)
    for ix, value in updates:
        if ix >= capacity:
            continue
        tree.update(np.array([ix]), np.array([value]))
        leaves[ix], touched[ix] = value, True
    _check_invariants(tree)
    assert tree.total() == pytest.approx(leaves.sum())
    positive = touched & (leaves > 0)  # a zero leaf is never sampled: it takes no part in the minimum
    assert tree.min() == (leaves[positive].min() if positive.any() else np.inf)


def test_batched_update_with_repeated_index_keeps_the_last_value() -> None:
    tree = SumTree(4)
    tree.update(np.array([1, 2, 1]), np.array([5.0, 1.0, 2.0]))
    assert tree.get(np.array([1, 2])).tolist() == [2.0, 1.0]
    assert tree.total() == 3.0
    _check_invariants(tree)


def test_find_returns_the_leaf_whose_prefix_interval_holds_the_value() -> None:
    tree = SumTree(5)
    tree.update(np.arange(5), np.array([1.0, 0.0, 2.0, 3.0, 4.0]))
    # Cumulative bounds: [0,1) -> 0, [1,3) -> 2, [3,6) -> 3, [6,10) -> 4; leaf 1 (zero) is never found.
    values = np.array([0.0, 0.99, 1.0, 2.99, 3.0, 5.99, 6.0, 9.99])
    assert tree.find(values).tolist() == [0, 0, 2, 2, 3, 3, 4, 4]


def test_find_at_or_past_the_total_lands_on_a_positive_leaf() -> None:
    tree = SumTree(8)
    tree.update(np.arange(3), np.array([1.0, 1.0, 1.0]))  # leaves 3..7 unused
    assert tree.find(np.array([3.0, 3.0000001])).tolist() == [2, 2]


def test_sampling_proportions_match_priorities() -> None:
    tree = SumTree(4)
    priorities = np.array([1.0, 2.0, 3.0, 4.0])
    tree.update(np.arange(4), priorities)
    rng = np.random.default_rng(0)
    ix = tree.find(rng.random(200_000) * tree.total())
    freq = np.bincount(ix, minlength=4) / ix.size
    np.testing.assert_allclose(freq, priorities / priorities.sum(), atol=0.005)


@pytest.mark.parametrize(
    ("ix", "value", "error"), [(4, 1.0, IndexError), (-1, 1.0, IndexError), (0, -1.0, ValueError)]
)
def test_bad_updates_are_refused(ix: int, value: float, error: type[Exception]) -> None:
    with pytest.raises(error):
        SumTree(4).update(np.array([ix]), np.array([value]))


def test_numba_is_installed_so_the_compiled_tree_is_the_one_tested() -> None:
    """The dev extra includes the fast one: the default tree must be the compiled one here, or the
    property tests above would silently exercise only the numpy walks."""
    assert SumTree(4)._kernels is not None


@settings(max_examples=80, deadline=None)
@given(
    capacity=st.integers(1, 70),
    batches=st.lists(
        st.lists(
            st.tuples(st.integers(0, 69), st.floats(0.0, 1e6, allow_nan=False, allow_infinity=False)),
            min_size=1,
            max_size=20,
        ),
        max_size=12,
    ),
    queries=st.lists(st.floats(0.0, 1.05), min_size=1, max_size=40),
    sort=st.booleans(),
)
def test_the_compiled_and_numpy_trees_are_identical(
    capacity: int, batches: list[list[tuple[int, float]]], queries: list[float], sort: bool
) -> None:
    """Batched updates with repeated indices, in any order or sorted (as stratified sampling returns them,
    where the compiled update skips shared ancestors), then searches (some past the total): the same
    nodes, bit for bit, and the same leaves found."""
    compiled, plain = SumTree(capacity), SumTree(capacity, compiled=False)
    for batch in batches:
        if sort:  # stable: repeated indices keep their order, so the same value wins
            batch = sorted(batch, key=lambda item: item[0] % capacity)
        ix = np.array([i % capacity for i, _ in batch], dtype=np.int64)
        values = np.array([v for _, v in batch])
        compiled.update(ix, values)
        plain.update(ix, values)
        assert np.array_equal(compiled._sum, plain._sum)
        assert np.array_equal(compiled._min, plain._min)
    if plain.total() > 0:
        v = np.array(queries) * plain.total()
        assert np.array_equal(compiled.find(v), plain.find(v))
        assert np.array_equal(compiled.find(v.reshape(-1, 1)), plain.find(v.reshape(-1, 1)))
