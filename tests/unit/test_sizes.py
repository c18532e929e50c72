"""The memory estimates that refuse networks, replay buffers and evaluations too large for the machine
before any is built."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from border_py.agents import DqnConfig, SacConfig
from border_py.base import Spaces
from border_py.replay_buffer import (
    FrameReplayBufferConfig,
    FrameTransition,
    PerConfig,
    RolloutBufferConfig,
    SimpleReplayBufferConfig,
    Transition,
)
from border_py.run import sizes

DISCRETE = Spaces(obs_shape=(4,), n_actions=2)
BOX = Spaces(obs_shape=(3,), action_low=[-1.0, -1.0], action_high=[1.0, 1.0])


def test_the_estimate_counts_weights_and_a_batchs_activations_by_hand() -> None:
    spaces = Spaces(obs_shape=(4,), n_actions=2)
    # 4 -> 10 -> 2: 60 weights, 12 units a row.
    expected = 4 * (sizes.WEIGHT_COPIES * 60 + sizes.ACTIVATION_COPIES * 8 * 12)
    assert sizes.update_bytes(DqnConfig(hidden=(10,), batch_size=8), spaces) == expected
    box = Spaces(obs_shape=(3,), action_low=[-1.0], action_high=[1.0])
    # SAC's actor and critic each from observation and action (4) through (5,) to one output.
    one = 4 * (sizes.WEIGHT_COPIES * (4 * 5 + 5) + sizes.ACTIVATION_COPIES * 2 * 6)
    assert sizes.update_bytes(SacConfig(actor_hidden=(5,), critic_hidden=(5,), batch_size=2), box) == 2 * one


def test_networks_beyond_the_machines_memory_are_refused_naming_the_fields(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sizes, "machine_bytes", lambda: 24 * 2**30)
    spaces = Spaces(obs_shape=(4,), n_actions=2)
    sizes.check_fits_memory(DqnConfig(hidden=(4096, 4096)), spaces)
    with pytest.raises(
        ValueError, match=r"networks of hidden=\[100000000\] need about 83 GiB .* machine's 24 GiB"
    ):
        sizes.check_fits_memory(DqnConfig(hidden=(100_000_000,)), spaces)


def _transition(spaces: Spaces) -> Transition:
    obs = np.zeros(spaces.obs_shape, np.float32)
    act = np.array(1) if spaces.discrete else np.zeros(spaces.action_dim, np.float32)
    return Transition(
        obs=obs, act=act, next_obs=obs, reward=1.0, is_terminated=False, is_truncated=False, discount=0.99
    )


def _held(*arrays: Any) -> int:
    return sum(a.nbytes for a in arrays)


@pytest.mark.parametrize("spaces", [DISCRETE, BOX], ids=["discrete", "box"])
@pytest.mark.parametrize("per", [None, PerConfig()], ids=["uniform", "prioritized"])
def test_a_buffers_estimate_is_what_its_arrays_hold_once_allocated(
    spaces: Spaces, per: PerConfig | None
) -> None:
    config = SimpleReplayBufferConfig(capacity=100, per=per)
    buffer = config.build(seed=0)
    buffer.push(_transition(spaces))  # the storage is allocated, whole, at the first push
    s, tree = buffer._storage, buffer._tree
    assert s is not None
    trees = () if tree is None else (tree._sum, tree._min)
    assert config.full_nbytes(spaces) == _held(s.obs, s.next_obs, s.act, s.scalars, *trees)
    rollout = RolloutBufferConfig(n_steps=5, num_envs=2)
    built = rollout.build(seed=0)
    built.push(_transition(spaces))
    r = built._storage
    assert r is not None
    assert rollout.full_nbytes(spaces) == _held(r.obs, r.next_obs, r.act, r.scalars)


def test_a_frame_buffers_estimate_is_what_its_arrays_hold_once_allocated() -> None:
    config = FrameReplayBufferConfig(capacity=8, stack=2, per=PerConfig())
    buffer = config.build(seed=0)
    f = np.ones((3, 3), np.uint8)
    buffer.push(
        FrameTransition(frame=f, act=np.array(1), reward=1.0, is_terminated=True, is_truncated=False,
                        discount=0.99, episode_start=True, next_offset=1, final_frame=2 * f)
    )  # fmt: skip
    assert buffer._tree is not None
    tree = _held(buffer._tree._sum, buffer._tree._min)
    assert config.full_nbytes(Spaces(obs_shape=(2, 3, 3), n_actions=4)) == buffer.nbytes() + tree


def test_a_buffer_or_an_evaluation_beyond_the_machines_memory_is_refused_naming_the_field(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``capacity=10**16`` and ``n_episodes=10**18`` were allocation tracebacks at the first push and at
    the first evaluation, after ``config.yaml`` was written."""
    monkeypatch.setattr(sizes, "machine_bytes", lambda: 24 * 2**30)
    sizes.check_buffer_fits_memory(SimpleReplayBufferConfig(capacity=10**8), DISCRETE)  # 5.2 GiB
    with pytest.raises(
        ValueError,
        match=r"^a capacity of 10,000,000,000,000,000 transitions needs about 521,540,642 GiB \(56 bytes a "
        r"transition\), more than this machine's 24 GiB: lower capacity$",
    ):
        sizes.check_buffer_fits_memory(SimpleReplayBufferConfig(capacity=10**16), DISCRETE)
    with pytest.raises(ValueError, match=r"lower n_steps$"):
        sizes.check_buffer_fits_memory(RolloutBufferConfig(n_steps=10**12, num_envs=8), DISCRETE)
    sizes.check_buffer_fits_memory(object(), DISCRETE)  # a buffer of one's own that states no estimate
    sizes.check_episodes_fit_memory(10**6, "n_episodes")
    with pytest.raises(
        ValueError,
        match=r"^n_episodes 1,000,000,000,000,000,000 needs about 14,901,161,194 GiB for the episodes' "
        r"returns and lengths \(16 bytes an episode\), more than this machine's 24 GiB: lower n_episodes$",
    ):
        sizes.check_episodes_fit_memory(10**18, "n_episodes")
