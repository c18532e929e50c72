"""The memory estimate that refuses networks too large for the machine before any is built."""

from __future__ import annotations

import pytest

from border_py.agents import DqnConfig, SacConfig
from border_py.base import Spaces
from border_py.run import sizes


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
