"""``n_updates_per_opt`` for DQN, QR-DQN and IQN: SB3's ``gradient_steps`` in one block per opt call. One opt
call of n updates is n opt calls of one, bit for bit (the target network counted in updates), but for the
opt-step count and the record, which averages the block."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
import torch

from border_py.agents import DqnConfig, IqnConfig, QrDqnConfig
from border_py.base import Spaces
from border_py.config import ConfigError, from_dict
from tests.agents.random_buffer import random_buffer

SPACES = Spaces(obs_shape=(4,), n_actions=3)
CONFIGS: dict[str, Any] = {
    "dqn": DqnConfig(hidden=(16,), batch_size=8, target_update_interval=2),
    "qrdqn": QrDqnConfig(hidden=(16,), n_quantiles=5, batch_size=8, target_update_interval=2),
    "iqn": IqnConfig(hidden=(16,), embed_dim=8, head_hidden=(8,), batch_size=8, target_update_interval=2),
}


def _tensors(agent: Any) -> list[torch.Tensor]:
    net = agent.parts.net
    return [t.detach().clone() for m in (net.net, net.target) for t in m.state_dict().values()]


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_one_opt_of_three_updates_is_three_opts_of_one(name: str) -> None:
    blocks = attrs.evolve(CONFIGS[name], n_updates_per_opt=3).build(SPACES, 0)
    single = CONFIGS[name].build(SPACES, 0)
    buffer_a, buffer_b = random_buffer(64), random_buffer(64)  # the same transitions, the same sampling seed
    record = blocks.opt(buffer_a)
    records = [single.opt(buffer_b) for _ in range(3)]
    assert record is not None
    assert all(r is not None for r in records)
    for a, b in zip(_tensors(blocks), _tensors(single), strict=True):
        assert torch.equal(a, b)  # online and target networks: updates 2 moved the target in both
    assert (blocks.opt_steps, single.opt_steps) == (1, 3)
    losses = [r["train/loss"] for r in records if r is not None]
    assert record["train/loss"] == pytest.approx(sum(losses) / 3)
    assert not torch.equal(_tensors(blocks)[0], _tensors(CONFIGS[name].build(SPACES, 0))[0])  # it learnt


def test_n_updates_per_opt_below_one_is_refused_naming_it() -> None:
    with pytest.raises(ConfigError, match=r"'n_updates_per_opt' must be >= 1: 0 @ agent"):
        from_dict(DqnConfig, {"n_updates_per_opt": 0}, source="agent")
