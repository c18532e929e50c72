"""SimpleReplayBuffer: ring wrap-around, seeded sampling, prioritized replay."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from border_py import PerConfig, SimpleReplayBuffer, SimpleReplayBufferConfig, Transition


def _transition(k: int, terminated: bool = False, truncated: bool = False) -> Transition:
    return Transition(
        obs=np.full(3, k, dtype=np.float32),
        act=np.array(k % 2),
        next_obs=np.full(3, k + 1, dtype=np.float32),
        reward=float(k),
        is_terminated=terminated,
        is_truncated=truncated,
        discount=0.5 + k / 1000,
    )


def _filled(capacity: int, n: int, per: PerConfig | None = None, seed: int = 0) -> SimpleReplayBuffer:
    buffer = SimpleReplayBufferConfig(capacity=capacity, per=per).build(seed)
    for k in range(n):
        buffer.push(_transition(k))
    return buffer


def test_ring_wraps_around_keeping_the_newest() -> None:
    buffer = _filled(capacity=4, n=6)
    assert len(buffer) == 4
    rewards = set(buffer.batch(400).reward.tolist())
    assert rewards == {2.0, 3.0, 4.0, 5.0}


def test_batch_fields_are_consistent_tensors() -> None:
    buffer = _filled(capacity=10, n=10)
    batch = buffer.batch(32)
    assert batch.obs.shape == (32, 3)
    assert batch.obs.dtype == torch.float32
    assert batch.act.shape == (32,)
    assert batch.act.dtype == torch.int64
    k = batch.reward
    assert torch.equal(batch.obs[:, 0], k)
    assert torch.equal(batch.next_obs[:, 0], k + 1)
    assert torch.equal(batch.act, k.long() % 2)
    torch.testing.assert_close(batch.discount, 0.5 + k / 1000)
    assert batch.discount.dtype == torch.float32
    assert batch.weight is None
    assert np.array_equal(batch.ix_sample, k.numpy().astype(np.int64))


def test_terminated_and_truncated_flags_are_stored_apart() -> None:
    buffer = SimpleReplayBufferConfig(capacity=2).build(0)
    buffer.push(_transition(0, terminated=True))
    buffer.push(_transition(1, truncated=True))
    batch = buffer.batch(64)
    assert torch.equal(batch.is_terminated, (batch.reward == 0).float())
    assert torch.equal(batch.is_truncated, (batch.reward == 1).float())


def test_same_seed_same_batches_other_seed_other_batches() -> None:
    a, b, c = _filled(100, 100, seed=1), _filled(100, 100, seed=1), _filled(100, 100, seed=2)
    assert np.array_equal(a.batch(16).ix_sample, b.batch(16).ix_sample)
    assert not np.array_equal(a.batch(16).ix_sample, c.batch(16).ix_sample)


def test_empty_buffer_and_bad_size_are_refused() -> None:
    with pytest.raises(ValueError, match="empty"):
        SimpleReplayBufferConfig(capacity=3).build(0).batch(1)
    with pytest.raises(ValueError, match="batch size"):
        _filled(3, 3).batch(0)


def test_shape_mismatch_names_both_shapes() -> None:
    buffer = _filled(3, 1)
    bad = Transition(
        obs=np.zeros(5, np.float32),
        act=np.array(0),
        next_obs=np.zeros(5, np.float32),
        reward=0.0,
        is_terminated=False,
        is_truncated=False,
        discount=0.99,
    )
    with pytest.raises(
        ValueError, match=r"obs \(5,\), next_obs \(5,\) do not match the buffer's observations \(3,\)"
    ):
        buffer.push(bad)


def test_prioritized_sampling_follows_updated_priorities() -> None:
    buffer = _filled(4, 4, per=PerConfig(alpha=1.0, beta_0=1.0, beta_final=1.0))
    buffer.update_priority(np.arange(4), np.array([1.0, 1.0, 1.0, 7.0]) - 1e-6)
    counts = np.bincount(np.concatenate([buffer.batch(100).ix_sample for _ in range(200)]), minlength=4)
    np.testing.assert_allclose(counts / counts.sum(), [0.1, 0.1, 0.1, 0.7], atol=0.02)


def test_prioritized_weights_are_normalised_by_the_smallest_priority() -> None:
    buffer = _filled(2, 2, per=PerConfig(alpha=1.0, beta_0=0.5, beta_final=0.5, eps=1e-9))
    buffer.update_priority(np.array([0, 1]), np.array([1.0, 4.0]))
    batch = buffer.batch(64)
    assert batch.weight is not None
    # w_i = (p_i / p_min)^-beta: 1 for the smallest priority, (4 / 1)^-0.5 = 0.5 for the other.
    expected = np.where(batch.ix_sample == 0, 1.0, 0.5)
    np.testing.assert_allclose(batch.weight.numpy(), expected, rtol=1e-6)


def test_new_items_get_the_largest_priority_seen() -> None:
    buffer = _filled(3, 2, per=PerConfig(alpha=1.0))
    buffer.update_priority(np.array([0, 1]), np.array([5.0, 0.5]))
    buffer.push(_transition(2))
    assert buffer._tree is not None
    assert buffer._tree.get(np.array([2]))[0] == pytest.approx(5.0 + 1e-6)


def test_beta_is_linear_in_batches_then_constant() -> None:
    buffer = _filled(4, 4, per=PerConfig(beta_0=0.4, beta_final=1.0, n_opts_final=10))
    betas = []
    for _ in range(12):
        betas.append(buffer.beta())
        buffer.batch(1)
    np.testing.assert_allclose(betas[:11], np.linspace(0.4, 1.0, 11))
    assert betas[11] == 1.0


def test_non_finite_td_errors_are_refused() -> None:
    buffer = _filled(2, 2, per=PerConfig())
    with pytest.raises(ValueError, match="finite"):
        buffer.update_priority(np.array([0]), np.array([np.nan]))


@settings(max_examples=40, deadline=None)
@given(
    capacity=st.integers(1, 16),
    ops=st.lists(st.one_of(st.just(-1), st.integers(1, 8)), max_size=40),
    per=st.booleans(),
)
def test_any_push_sample_sequence_keeps_the_invariants(capacity: int, ops: list[int], per: bool) -> None:
    """-1 pushes the next transition; n > 0 samples n (when not empty) and updates their priorities."""
    buffer = SimpleReplayBufferConfig(capacity=capacity, per=PerConfig() if per else None).build(0)
    pushed = 0
    for op in ops:
        if op == -1:
            buffer.push(_transition(pushed))
            pushed += 1
            continue
        if pushed == 0:
            continue
        batch = buffer.batch(op)
        stored = set(range(max(0, pushed - capacity), pushed))
        assert set(batch.reward.long().tolist()) <= stored
        assert (batch.ix_sample < len(buffer)).all()
        if batch.weight is not None:
            assert ((batch.weight > 0) & (batch.weight <= 1.0 + 1e-6)).all()
        buffer.update_priority(batch.ix_sample, np.ones(op, dtype=np.float32))
    assert len(buffer) == min(pushed, capacity)


def _same_batches(a: SimpleReplayBuffer, b: SimpleReplayBuffer, size: int) -> None:
    x, y = a.batch(size), b.batch(size)
    for name in ("obs", "act", "next_obs", "reward", "is_terminated", "is_truncated", "discount"):
        assert torch.equal(getattr(x, name), getattr(y, name)), name
    assert np.array_equal(x.ix_sample, y.ix_sample)
    assert (x.weight is None) == (y.weight is None)
    if x.weight is not None and y.weight is not None:
        assert torch.equal(x.weight, y.weight)


@settings(max_examples=40, deadline=None)
@given(
    capacity=st.integers(1, 12),
    ops=st.lists(st.one_of(st.just(-1), st.integers(1, 6)), max_size=30),
    per=st.booleans(),
)
def test_save_then_load_continues_exactly_as_the_original(capacity: int, ops: list[int], per: bool) -> None:
    """Any push/sample/priority sequence, saved and loaded into a buffer seeded otherwise, samples the
    same batches afterwards and keeps the same contents, priorities and counters."""
    config = SimpleReplayBufferConfig(capacity=capacity, per=PerConfig(n_opts_final=5) if per else None)
    buffer = config.build(0)
    pushed = 0
    for op in ops:
        if op == -1:
            buffer.push(_transition(pushed))
            pushed += 1
        elif pushed > 0:
            batch = buffer.batch(op)
            buffer.update_priority(batch.ix_sample, np.arange(op, dtype=np.float32))
    with tempfile.TemporaryDirectory() as d:
        files = buffer.save(Path(d))
        assert [f.name for f in files] == ["replay_buffer.npz"]
        loaded = config.build(seed=99)
        loaded.load(Path(d))
    assert len(loaded) == len(buffer)
    assert loaded.beta() == buffer.beta()
    if pushed == 0:
        return
    for _ in range(3):
        _same_batches(buffer, loaded, 5)
    buffer.push(_transition(1000))
    loaded.push(_transition(1000))
    _same_batches(buffer, loaded, 7)


def test_load_refuses_another_capacity_or_sampling_naming_the_file(tmp_path: Path) -> None:
    _filled(8, 5, per=PerConfig()).save(tmp_path)
    with pytest.raises(ValueError, match=r"replay_buffer\.npz holds a buffer of capacity 8, this one has 9"):
        SimpleReplayBufferConfig(capacity=9, per=PerConfig()).build(0).load(tmp_path)
    with pytest.raises(
        ValueError, match=r"replay_buffer\.npz holds a prioritized buffer, this one is uniform"
    ):
        SimpleReplayBufferConfig(capacity=8).build(0).load(tmp_path)


def test_load_of_a_missing_or_truncated_file_names_it_and_leaves_the_buffer(tmp_path: Path) -> None:
    buffer = _filled(8, 3)
    with pytest.raises(FileNotFoundError, match=r"replay_buffer\.npz not found"):
        buffer.load(tmp_path)
    _filled(8, 6).save(tmp_path)
    file = tmp_path / "replay_buffer.npz"
    file.write_bytes(file.read_bytes()[:200])
    with pytest.raises(ValueError, match=r"replay_buffer\.npz is not a readable replay buffer file"):
        buffer.load(tmp_path)
    assert len(buffer) == 3
    assert set(buffer.batch(16).reward.long().tolist()) <= {0, 1, 2}


def test_load_refuses_an_observation_shape_it_cannot_hold(tmp_path: Path) -> None:
    buffer = SimpleReplayBufferConfig(capacity=4).build(0)
    buffer.push(_transition(1))
    buffer.save(tmp_path)
    with np.load(tmp_path / "replay_buffer.npz") as data:
        arrays = {k: data[k] for k in data.files}
    arrays["next_obs"] = np.zeros((1, 5), np.float32)
    np.savez(tmp_path / "replay_buffer.npz", **arrays)
    with pytest.raises(ValueError, match=r"column next_obs has rows of shape \(5,\), expected \(3,\)"):
        SimpleReplayBufferConfig(capacity=4).build(0).load(tmp_path)


def test_a_reward_that_overflows_float32_is_refused_when_stored() -> None:
    buffer = SimpleReplayBufferConfig(capacity=4).build(0)
    o = np.zeros(3, np.float32)
    big = Transition(
        obs=o,
        act=np.array(0),
        next_obs=o,
        reward=1e39,
        is_terminated=False,
        is_truncated=False,
        discount=0.99,
    )
    with pytest.raises(ValueError, match=r"transition reward 1e\+39 is not finite as a float32"):
        buffer.push(big)
