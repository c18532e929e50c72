"""QR-DQN: the quantile pieces and its loss by hand, one opt step, learning a fixed return, acting, save
and load (export: `tests/unit/test_export.py`; exact resume: `tests/functional/test_resume.py`)."""

from __future__ import annotations

from pathlib import Path

import attrs
import numpy as np
import pytest
import torch

from border_py import PerConfig, SimpleReplayBufferConfig, Transition
from border_py.agents import EpsilonGreedyConfig, QrDqn, QrDqnConfig
from border_py.agents.iqn.losses import greedy_quantiles, quantile_huber_loss, quantiles_of_action
from border_py.agents.qrdqn.model import QuantileNetwork, midpoint_fractions
from border_py.base import Spaces
from tests.agents.random_buffer import random_buffer as _buffer

_SMALL = QrDqnConfig(n_quantiles=4, hidden=(16,), batch_size=16)
_CARTPOLE = Spaces(obs_shape=(4,), n_actions=2)


def test_midpoint_fractions_are_the_centres_of_equal_slices() -> None:
    torch.testing.assert_close(midpoint_fractions(2), torch.tensor([0.25, 0.75]))
    torch.testing.assert_close(midpoint_fractions(5), torch.tensor([0.1, 0.3, 0.5, 0.7, 0.9]))


def test_quantiles_of_an_action_and_of_the_greedy_action_by_hand() -> None:
    # Two items, 2 quantiles, 3 actions; item 0's means are (1, 3, 2), item 1's (5, 0, 5): greedy 1 and 0.
    z = torch.tensor([[[0.0, 2.0, 2.0], [2.0, 4.0, 2.0]], [[4.0, 0.0, 6.0], [6.0, 0.0, 4.0]]])
    torch.testing.assert_close(
        quantiles_of_action(z, torch.tensor([2, 1])), torch.tensor([[2.0, 2.0], [0.0, 0.0]])
    )
    torch.testing.assert_close(greedy_quantiles(z), torch.tensor([[2.0, 4.0], [4.0, 6.0]]))


def test_the_qr_loss_at_midpoint_fractions_by_hand() -> None:
    # Quantiles 0 and 1 at fractions 0.25 and 0.75; targets 0.5 and 3; kappa 1. u = target - pred:
    # pred 0:  u 0.5 -> H 0.125 x |0.25 - 0| = 0.03125;  u 3 -> H 2.5 x 0.25 = 0.625;  mean 0.328125
    # pred 1:  u -0.5 -> H 0.125 x |0.75 - 1| = 0.03125; u 2 -> H 1.5 x 0.75 = 1.125; mean 0.578125
    # summed over the predictions: 0.90625 (sb3-contrib's quantile_huber_loss gives the same).
    loss = quantile_huber_loss(
        torch.tensor([[0.0, 1.0]]), midpoint_fractions(2).expand(1, 2), torch.tensor([[0.5, 3.0]]), 1.0
    )
    torch.testing.assert_close(loss, torch.tensor([0.90625]))


def test_the_network_reads_its_output_quantile_major() -> None:
    torch.manual_seed(0)
    net = QuantileNetwork(4, 3, 2, hidden=(8,))
    obs = torch.randn(5, 4)
    flat = net.net(obs)
    z = net(obs)
    assert z.shape == (5, 2, 3)
    torch.testing.assert_close(z[:, 1, 2], flat[:, 1 * 3 + 2])


def test_the_agents_loss_is_the_qr_loss_of_its_networks_by_hand() -> None:
    agent = QrDqn(_SMALL, _CARTPOLE, seed=0)
    batch = _buffer(16).batch(16)
    loss, priority, q_mean = agent._loss(batch)
    net, target = agent.parts.net.net, agent.parts.net.target
    with torch.no_grad():
        pred = net(batch.obs)[torch.arange(16), :, batch.act.long()]  # (16, 4)
        z_next = target(batch.next_obs)
        best = z_next.mean(dim=1).argmax(dim=1)
        bootstrap = batch.discount * (1.0 - batch.is_terminated)
        expected_target = batch.reward[:, None] + bootstrap[:, None] * z_next[torch.arange(16), :, best]
        u = expected_target[:, None, :] - pred[:, :, None]  # (16, N, N')
        huber = torch.where(u.abs() <= 1.0, 0.5 * u**2, u.abs() - 0.5)
        taus = torch.tensor([0.125, 0.375, 0.625, 0.875])[None, :, None]
        per_item = ((taus - (u < 0).float()).abs() * huber).mean(dim=2).sum(dim=1)
    torch.testing.assert_close(priority, per_item)
    torch.testing.assert_close(loss.detach(), per_item.mean())
    torch.testing.assert_close(q_mean, pred.mean())


def test_opt_skips_until_a_batch_then_records_finite_values() -> None:
    agent = QrDqn(_SMALL, _CARTPOLE, seed=0)
    assert agent.opt(_buffer(15)) is None
    record = agent.opt(_buffer(64))
    assert record is not None
    assert set(record) == {"train/loss", "train/q_mean", "train/grad_norm", "train/epsilon"}
    assert all(np.isfinite(record.get_scalar(k)) for k in record)


def test_every_quantile_learns_a_fixed_return_with_no_bootstrap() -> None:
    config = QrDqnConfig(n_quantiles=8, hidden=(32,), batch_size=32, lr=1e-2)
    agent = QrDqn(config, _CARTPOLE, seed=0)
    buffer = _buffer(32, reward=3.0, is_terminated=True)
    for _ in range(1000):
        record = agent.opt(buffer)
    assert record is not None
    assert record.get_scalar("train/q_mean") == pytest.approx(3.0, abs=0.1)
    batch = buffer.batch(32)
    with torch.no_grad():
        z = quantiles_of_action(agent.parts.net.net(batch.obs), batch.act)  # the taken actions'
    np.testing.assert_allclose(z.numpy(), 3.0, atol=0.15)


def test_quantiles_spread_to_a_two_valued_return() -> None:
    # Rewards 0 or 10 with equal odds, terminal: the lower half of the quantiles goes to 0, the upper to 10
    # (within the noise of batches drawn with replacement, whose share of 10s varies).
    config = QrDqnConfig(n_quantiles=4, hidden=(32,), batch_size=64, lr=3e-3)
    agent = QrDqn(config, Spaces(obs_shape=(4,), n_actions=1), seed=0)
    buffer = SimpleReplayBufferConfig(capacity=64).build(0)
    zeros = np.zeros(4, np.float32)
    for i in range(64):
        reward = 10.0 * (i % 2)
        buffer.push(
            Transition(
                obs=zeros,
                act=np.array(0),
                next_obs=zeros,
                reward=reward,
                is_terminated=True,
                is_truncated=False,
                discount=0.99,
            )
        )
    for _ in range(1500):
        agent.opt(buffer)
    with torch.no_grad():
        z = agent.parts.net.net(torch.zeros(1, 4))[0, :, 0]
    np.testing.assert_allclose(z.numpy(), [0.0, 0.0, 10.0, 10.0], atol=1.0)


def test_eval_is_greedy_on_the_mean_quantile_and_deterministic() -> None:
    always_explore = EpsilonGreedyConfig(eps_start=1.0, eps_final=1.0)
    agent = QrDqn(attrs.evolve(_SMALL, explorer=always_explore), Spaces(obs_shape=(4,), n_actions=3), seed=0)
    obs = np.random.default_rng(0).normal(size=(20, 4)).astype(np.float32)
    agent.eval()
    with torch.no_grad():
        greedy = agent.parts.net.net(torch.from_numpy(obs)).mean(dim=1).argmax(dim=1).tolist()
    assert [int(agent.sample(o)) for o in obs] == greedy
    assert [int(a) for a in agent.sample_batch(list(obs))] == greedy


def test_prioritized_replay_sets_each_priority_to_the_items_loss() -> None:
    buffer = _buffer(16, per=PerConfig(alpha=1.0, eps=1e-6))
    agent = QrDqn(_SMALL, _CARTPOLE, seed=0)
    assert buffer._tree is not None
    before = buffer._tree.get(np.arange(16)).copy()
    assert agent.opt(buffer) is not None
    after = buffer._tree.get(np.arange(16))
    assert not np.array_equal(after, before)
    assert np.all(after > 0)


def test_save_then_load_gives_identical_actions_and_next_update(tmp_path: Path) -> None:
    agent = QrDqn(_SMALL, _CARTPOLE, seed=0)
    for _ in range(5):
        agent.opt(_buffer(64))
    files = agent.save_params(tmp_path)
    assert sorted(p.name for p in files) == ["qrdqn.pt", "qrdqn_tgt.pt", "state.pt"]
    loaded = QrDqn(_SMALL, _CARTPOLE, seed=7)
    loaded.load_params(tmp_path)
    obs = np.random.default_rng(1).normal(size=(30, 4)).astype(np.float32)
    agent.eval()
    loaded.eval()
    assert [int(agent.sample(o)) for o in obs] == [int(loaded.sample(o)) for o in obs]
    agent.train()
    loaded.train()
    r1, r2 = agent.opt(_buffer(64, seed=2)), loaded.opt(_buffer(64, seed=2))
    assert r1 is not None
    assert r2 is not None
    assert r1["train/loss"] == r2["train/loss"]


def test_load_of_another_number_of_quantiles_names_the_file(tmp_path: Path) -> None:
    QrDqn(_SMALL, _CARTPOLE, seed=0).save_params(tmp_path)
    with pytest.raises(ValueError, match=r"qrdqn\.pt does not match this QR-DQN's network"):
        QrDqn(attrs.evolve(_SMALL, n_quantiles=5), _CARTPOLE, seed=0).load_params(tmp_path)


def test_continuous_actions_are_refused_by_name() -> None:
    with pytest.raises(TypeError, match="QR-DQN"):
        QrDqn(_SMALL, Spaces(obs_shape=(3,), action_low=[-1.0], action_high=[1.0]), seed=0)
