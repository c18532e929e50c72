"""IQN: quantile Huber loss by hand, fractions, network, one opt step, priorities, save and load."""

from __future__ import annotations

import math
from pathlib import Path

import attrs
import numpy as np
import pytest
import torch

from border_py import PerConfig
from border_py.agents import EpsilonGreedyConfig, EvenTaus, FixedTaus, Iqn, IqnConfig, UniformTaus
from border_py.agents.iqn.losses import quantile_huber_loss, quantile_target
from border_py.agents.iqn.model import IqnNetwork, sample_taus
from border_py.base import Spaces
from tests.agents.random_buffer import random_buffer as _buffer

_SMALL = IqnConfig(hidden=(16,), embed_dim=16, n_cos=8, head_hidden=(16,), batch_size=16)


# --- losses.py: hand-computed values ---------------------------------------------------------------


def test_quantile_huber_loss_by_hand() -> None:
    # One prediction at tau 0.25, two targets; kappa 1.
    # u = 2 - 0 = 2 (> kappa): H = 1 * (2 - 0.5) = 1.5, weight |0.25 - 0| = 0.25 -> 0.375.
    # u = -0.5 - 0 = -0.5 (<= kappa, negative): H = 0.125, weight |0.25 - 1| = 0.75 -> 0.09375.
    loss = quantile_huber_loss(
        torch.tensor([[0.0]]), torch.tensor([[0.25]]), torch.tensor([[2.0, -0.5]]), 1.0
    )
    torch.testing.assert_close(loss, torch.tensor([(0.375 + 0.09375) / 2]))


def test_quantile_huber_loss_sums_over_predictions_and_divides_by_kappa() -> None:
    pred, taus, target = torch.tensor([[0.0, 1.0]]), torch.tensor([[0.1, 0.9]]), torch.tensor([[3.0]])
    # kappa 2: u = 3 (> 2): H = 2 (3 - 1) = 4, /2 = 2, weight 0.1 -> 0.2;
    #          u = 2 (<= 2): H = 2, /2 = 1, weight 0.9 -> 0.9.
    torch.testing.assert_close(quantile_huber_loss(pred, taus, target, 2.0), torch.tensor([1.1]))


def test_large_errors_give_the_pinball_loss() -> None:
    taus = torch.tensor([[0.3]])
    for u in (50.0, -50.0):
        loss = quantile_huber_loss(torch.tensor([[0.0]]), taus, torch.tensor([[u]]), 1.0)
        pinball = abs(0.3 - (u < 0)) * abs(u)
        assert float(loss) == pytest.approx(pinball - abs(0.3 - (u < 0)) * 0.5)


def test_quantile_loss_gradient_moves_a_quantile_towards_its_fraction() -> None:
    # Targets uniform on 0..99: the 0.25-quantile minimiser is about 25.
    pred = torch.zeros(1, 1, requires_grad=True)
    target = torch.arange(100.0).reshape(1, -1)
    opt = torch.optim.SGD([pred], lr=1.0)
    for _ in range(2000):
        opt.zero_grad()
        quantile_huber_loss(pred, torch.tensor([[0.25]]), target, 1.0).sum().backward()
        opt.step()
    assert float(pred.detach()) == pytest.approx(24.5, abs=1.0)


def test_quantile_target_discounts_unless_terminated() -> None:
    target = quantile_target(
        torch.tensor([1.0, 1.0]),
        torch.tensor([0.0, 1.0]),
        torch.tensor([0.5, 0.5]),
        torch.tensor([[2.0, 4.0]] * 2),
    )
    torch.testing.assert_close(target, torch.tensor([[2.0, 3.0], [1.0, 1.0]]))


# --- model.py --------------------------------------------------------------------------------------


def test_tau_sampling() -> None:
    g, cpu = torch.Generator().manual_seed(0), torch.device("cpu")
    torch.testing.assert_close(sample_taus(EvenTaus(n=2), 3, g, cpu), torch.tensor([[0.25, 0.75]] * 3))
    torch.testing.assert_close(sample_taus(FixedTaus(taus=(0.1, 0.5)), 1, g, cpu), torch.tensor([[0.1, 0.5]]))
    uniform = sample_taus(UniformTaus(n=5), 4, g, cpu)
    assert uniform.shape == (4, 5)
    assert bool(((uniform > 0) & (uniform < 1)).all())
    assert len(set(uniform.flatten().tolist())) == 20
    with pytest.raises(ValueError, match="fractions in"):
        FixedTaus(taus=(0.5, 1.0))


def test_network_uses_the_cosine_embedding_of_each_fraction() -> None:
    torch.manual_seed(0)
    net = IqnNetwork(4, 3, hidden=(8,), embed_dim=8, n_cos=6, head_hidden=(8,))
    obs, taus = torch.randn(2, 4), torch.rand(2, 5)
    out = net(obs, taus)
    assert out.shape == (2, 5, 3)
    # By hand for item 1, fraction 3: f(psi(s) * ReLU(W cos(pi i tau) + b)), i = 0..5.
    cos = torch.cos(math.pi * torch.arange(6.0) * taus[1, 3])
    expected = net.head(net.psi(obs[1]) * net.phi(cos))
    torch.testing.assert_close(out[1, 3], expected)


# --- agent.py --------------------------------------------------------------------------------------


def test_opt_skips_until_a_batch_then_records_finite_values() -> None:
    agent = Iqn(_SMALL, Spaces(obs_shape=(4,), n_actions=2), seed=0)
    assert agent.opt(_buffer(15)) is None
    record = agent.opt(_buffer(64))
    assert record is not None
    assert set(record) == {"train/loss", "train/q_mean", "train/grad_norm", "train/epsilon"}
    assert all(np.isfinite(record.get_scalar(k)) for k in record)


def test_quantiles_learn_a_fixed_reward_with_no_bootstrap() -> None:
    # Every transition terminates with reward 3: every quantile of every taken action goes to 3.
    config = IqnConfig(hidden=(32,), embed_dim=32, n_cos=8, head_hidden=(32,), batch_size=32, lr=3e-3)
    agent = Iqn(config, Spaces(obs_shape=(4,), n_actions=2), seed=0)
    buffer = _buffer(32, reward=3.0, is_terminated=True)
    for _ in range(400):
        record = agent.opt(buffer)
    assert record is not None
    assert record.get_scalar("train/q_mean") == pytest.approx(3.0, abs=0.1)
    assert record.get_scalar("train/loss") < 0.01


def test_eval_is_greedy_on_the_mean_quantile_and_deterministic() -> None:
    always_explore = EpsilonGreedyConfig(eps_start=1.0, eps_final=1.0)
    agent = Iqn(attrs.evolve(_SMALL, explorer=always_explore), Spaces(obs_shape=(4,), n_actions=2), seed=0)
    obs = np.random.default_rng(0).normal(size=(20, 4)).astype(np.float32)
    agent.eval()
    with torch.no_grad():
        taus = sample_taus(EvenTaus(n=32), 20, agent.generator, agent.device)
        greedy = agent.parts.net.net(torch.from_numpy(obs), taus).mean(dim=1).argmax(dim=1).tolist()
    assert [int(agent.sample(o)) for o in obs] == greedy
    assert [int(agent.sample(o)) for o in obs] == greedy


def test_prioritized_replay_sets_each_priority_to_the_items_loss() -> None:
    buffer = _buffer(16, per=PerConfig(alpha=1.0, eps=1e-6))
    agent = Iqn(_SMALL, Spaces(obs_shape=(4,), n_actions=2), seed=0)
    assert buffer._tree is not None
    before = buffer._tree.get(np.arange(16)).copy()
    record = agent.opt(buffer)
    assert record is not None
    after = buffer._tree.get(np.arange(16))
    assert not np.array_equal(after, before)
    assert np.all(after > 0)


def test_save_then_load_gives_identical_actions_and_next_update(tmp_path: Path) -> None:
    agent = Iqn(_SMALL, Spaces(obs_shape=(4,), n_actions=2), seed=0)
    buffer = _buffer(64)
    for _ in range(5):
        agent.opt(buffer)
    files = agent.save_params(tmp_path)
    assert sorted(p.name for p in files) == ["iqn.pt", "iqn_tgt.pt", "state.pt"]
    loaded = Iqn(_SMALL, Spaces(obs_shape=(4,), n_actions=2), seed=7)
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


def test_load_of_a_mismatched_network_names_the_file(tmp_path: Path) -> None:
    Iqn(_SMALL, Spaces(obs_shape=(4,), n_actions=2), seed=0).save_params(tmp_path)
    with pytest.raises(ValueError, match=r"iqn\.pt does not match this IQN's network"):
        Iqn(_SMALL, Spaces(obs_shape=(4,), n_actions=3), seed=0).load_params(tmp_path)
