"""TQC: the truncated target and the quantile critics' loss by hand, the agent's loss against sb3-contrib's
formula worked out here, updates, learning a fixed return, save and load (export:
`tests/unit/test_export.py`; exact resume: `tests/functional/test_resume.py`)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import attrs
import numpy as np
import numpy.typing as npt
import pytest
import torch

from border_py import PerConfig
from border_py.agents import Tqc, TqcConfig
from border_py.agents.tqc.losses import quantile_critic_loss, truncated_target
from border_py.base import Spaces
from tests.agents.random_buffer import random_buffer

LOW, HIGH = np.array([-2.0, -1.0], np.float32), np.array([2.0, 3.0], np.float32)
SPACES = Spaces(obs_shape=(4,), action_low=LOW, action_high=HIGH)
SMALL = TqcConfig(
    actor_hidden=(16,),
    critic_hidden=(16,),
    batch_size=16,
    n_critics=2,
    n_quantiles=3,
    top_quantiles_to_drop_per_net=1,
)


def _in_bounds(rng: np.random.Generator) -> npt.NDArray[np.float32]:
    return rng.uniform(LOW, HIGH).astype(np.float32)


_buffer = partial(random_buffer, sample_act=_in_bounds)


def test_the_truncated_target_by_hand() -> None:
    # Item 0: 2 critics x 2 quantiles (5, 1) and (2, 4), pooled and sorted (1, 2, 4, 5), the 2 largest
    # dropped: (1, 2). r 1, discount 0.5, alpha 0.1, log pi -2 (bonus +0.2): 1 + 0.5 (1.2, 2.2) = (1.6, 2.1).
    # Item 1 terminated: r 3 for each kept atom.
    z = torch.tensor([[[5.0, 1.0], [0.0, 0.0]], [[2.0, 4.0], [9.0, 9.0]]])  # (critics, batch, quantiles)
    target = truncated_target(
        torch.tensor([1.0, 3.0]),
        torch.tensor([0.0, 1.0]),
        torch.tensor([0.5, 0.5]),
        z,
        2,
        torch.tensor([-2.0, -2.0]),
        0.1,
        1.0,
    )
    torch.testing.assert_close(target, torch.tensor([[1.6, 2.1], [3.0, 3.0]]))


def test_the_quantile_critics_loss_by_hand() -> None:
    # 2 critics of 1 quantile (fraction 0.5), one item, atoms (0, 2). kappa 1.
    # critic 0 at 0: u 0 -> 0; u 2 -> H 1.5 x 0.5 = 0.75.           mean over atoms 0.375
    # critic 1 at 3: u -3 -> H 2.5 x 0.5 = 1.25; u -1 -> 0.5 x 0.5 = 0.25.   mean 0.75
    # the mean over critics and quantiles: 0.5625; with the item's weight 2: 1.125.
    q, target = torch.tensor([[[0.0]], [[3.0]]]), torch.tensor([[0.0, 2.0]])
    torch.testing.assert_close(quantile_critic_loss(q, target), torch.tensor(0.5625))
    torch.testing.assert_close(quantile_critic_loss(q, target, torch.tensor([2.0])), torch.tensor(1.125))


def test_the_agents_critic_loss_is_sb3_contribs_formula() -> None:
    agent = Tqc(SMALL, SPACES, seed=0)
    batch = _buffer(16).batch(16)
    with torch.no_grad():
        alpha = agent.parts.log_alpha.value.exp()
        agent.generator.manual_seed(5)
        target = agent._critic_target(batch, alpha)  # (16, 2 x 3 - 2 x 1 = 4)
        q = agent.parts.critic.net(batch.obs, batch.act)  # (2, 16, 3)
        loss = agent._critic_loss(q, target, None)
        # sb3-contrib: current (batch, critics, quantiles, 1) against target (batch, 1, 1, atoms).
        current = q.permute(1, 0, 2).unsqueeze(-1)
        delta = target[:, None, None, :] - current
        huber = torch.where(delta.abs() > 1, delta.abs() - 0.5, 0.5 * delta**2)
        taus = (torch.arange(3.0) + 0.5) / 3
        expected = ((taus.view(1, 1, 3, 1) - (delta < 0).float()).abs() * huber).mean()
    assert target.shape == (16, 4)
    torch.testing.assert_close(loss, expected)
    # The policy climbs the mean of every critic's quantiles.
    torch.testing.assert_close(agent._policy_value(q), q.mean(dim=(0, 2)))


def test_opt_skips_until_a_batch_then_records_finite_values() -> None:
    agent = Tqc(SMALL, SPACES, seed=0)
    assert agent.opt(_buffer(15)) is None
    record = agent.opt(_buffer(64))
    assert record is not None
    assert {"train/critic_loss", "train/actor_loss", "train/q_mean", "train/alpha"} <= set(record)
    assert all(np.isfinite(record.get_scalar(k)) for k in record)


def test_every_quantile_learns_a_fixed_terminal_return() -> None:
    config = attrs.evolve(SMALL, critic_hidden=(32,), critic_lr=3e-3, batch_size=32)
    agent = Tqc(config, SPACES, seed=0)
    buffer = _buffer(32, reward=2.0, is_terminated=True)
    for _ in range(1500):
        agent.opt(buffer)
    batch = buffer.batch(32)
    with torch.no_grad():
        q = agent.parts.critic.net(batch.obs, batch.act)
    np.testing.assert_allclose(q.numpy(), 2.0, atol=0.2)


def test_prioritized_replay_priorities_change() -> None:
    buffer = _buffer(16, per=PerConfig(alpha=1.0, eps=1e-6))
    agent = Tqc(SMALL, SPACES, seed=0)
    assert buffer._tree is not None
    before = buffer._tree.get(np.arange(16)).copy()
    assert agent.opt(buffer) is not None
    assert not np.array_equal(buffer._tree.get(np.arange(16)), before)


def test_save_then_load_gives_identical_actions_and_next_update(tmp_path: Path) -> None:
    agent = Tqc(SMALL, SPACES, seed=0)
    for _ in range(4):
        agent.opt(_buffer(64))
    assert sorted(p.name for p in agent.save_params(tmp_path)) == [
        "actor.pt",
        "critic.pt",
        "critic_tgt.pt",
        "state.pt",
    ]
    loaded = Tqc(SMALL, SPACES, seed=9)
    loaded.load_params(tmp_path)
    obs = np.random.default_rng(1).normal(size=(10, 4)).astype(np.float32)
    assert [a.tolist() for a in agent.sample_batch(list(obs))] == [
        a.tolist() for a in loaded.sample_batch(list(obs))
    ]
    r1, r2 = agent.opt(_buffer(64, seed=2)), loaded.opt(_buffer(64, seed=2))
    assert r1 is not None
    assert r2 is not None
    assert r1["train/critic_loss"] == r2["train/critic_loss"]


def test_another_number_of_quantiles_is_refused_naming_the_file(tmp_path: Path) -> None:
    Tqc(SMALL, SPACES, seed=0).save_params(tmp_path)
    with pytest.raises(ValueError, match=r"critic\.pt does not match this TQC's network"):
        Tqc(attrs.evolve(SMALL, n_quantiles=4), SPACES, seed=0).load_params(tmp_path)


def test_dropping_every_quantile_is_refused() -> None:
    with pytest.raises(ValueError, match="top_quantiles_to_drop_per_net"):
        TqcConfig(n_quantiles=3, top_quantiles_to_drop_per_net=3)
