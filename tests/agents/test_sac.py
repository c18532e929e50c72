"""SAC: log-probability against torch.distributions, loss math by hand, updates, targets, save and load."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
import torch
from torch.distributions import Independent, Normal, TransformedDistribution
from torch.distributions.transforms import AffineTransform, TanhTransform

from border_py import PerConfig
from border_py.agents import Sac, SacConfig
from border_py.agents.sac.losses import (
    actor_loss,
    alpha_loss,
    critic_loss,
    soft_q_target,
    squashed_gaussian_log_prob,
)
from border_py.base import Spaces
from tests.agents.random_buffer import random_buffer

LOW, HIGH = np.array([-2.0, 0.0, -1.0], np.float32), np.array([2.0, 1.0, 3.0], np.float32)


def _in_bounds(rng: np.random.Generator) -> npt.NDArray[np.float32]:
    return rng.uniform(LOW, HIGH).astype(np.float32)


_buffer = partial(random_buffer, sample_act=_in_bounds)


def _agent(**overrides: object) -> Sac:
    config = SacConfig(actor_hidden=(32,), critic_hidden=(32,), batch_size=16, **overrides)  # type: ignore[arg-type]
    return Sac(config, Spaces(obs_shape=(4,), action_low=LOW, action_high=HIGH), seed=0)


# --- losses.py -------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_log_prob_equals_torch_distributions_with_tanh_and_scale(seed: int) -> None:
    g = torch.Generator().manual_seed(seed)
    batch, dim = 64, 3
    mean = torch.randn(batch, dim, generator=g, dtype=torch.float64)
    log_std = torch.empty(batch, dim, dtype=torch.float64).uniform_(-2.0, 0.5, generator=g)
    u = mean + log_std.exp() * torch.randn(batch, dim, generator=g, dtype=torch.float64)
    low, high = torch.tensor(LOW, dtype=torch.float64), torch.tensor(HIGH, dtype=torch.float64)
    scale, bias = (high - low) / 2, (high + low) / 2
    reference = TransformedDistribution(
        Independent(Normal(mean, log_std.exp()), 1),
        [TanhTransform(), AffineTransform(loc=bias, scale=scale, event_dim=1)],
    )
    action = bias + scale * torch.tanh(u)
    # torch's TanhTransform inverts through atanh, which loses precision as |tanh u| -> 1: compare where
    # the inversion is exact enough, which random draws at these scales almost always are.
    ok = torch.tanh(u).abs().amax(dim=1) < 0.999
    assert ok.sum() > batch // 2
    ours = squashed_gaussian_log_prob(u, mean, log_std, scale)
    torch.testing.assert_close(ours[ok], reference.log_prob(action)[ok], atol=1e-5, rtol=0.0)


def test_log_prob_stays_finite_where_tanh_saturates() -> None:
    u = torch.tensor([[30.0], [-30.0]])
    zero = torch.zeros(2, 1)
    log_prob = squashed_gaussian_log_prob(u, zero, zero, torch.ones(1))
    assert torch.isfinite(log_prob).all()
    # log(1 - tanh(30)^2) = 2 (log 2 - 30 - softplus(-60)) ~= 2 log 2 - 60.
    expected = -0.5 * 30.0**2 - 0.5 * np.log(2 * np.pi) - (2 * np.log(2) - 60.0)
    torch.testing.assert_close(log_prob, torch.tensor([expected, expected], dtype=torch.float32))


def test_soft_q_target_by_hand() -> None:
    target = soft_q_target(
        reward=torch.tensor([1.0, 1.0, 1.0]),
        is_terminated=torch.tensor([0.0, 1.0, 0.0]),
        discount=torch.tensor([0.9, 0.9, 0.81]),
        next_q_min=torch.tensor([10.0, 10.0, 10.0]),
        next_log_prob=torch.tensor([-2.0, -2.0, -2.0]),
        alpha=0.5,
        reward_scale=2.0,
    )
    # 2 * 1 + discount * (10 + 0.5 * 2) unless terminated.
    torch.testing.assert_close(target, torch.tensor([2.0 + 0.9 * 11.0, 2.0, 2.0 + 0.81 * 11.0]))


def test_critic_actor_and_alpha_losses_by_hand() -> None:
    q = torch.tensor([[1.0, 2.0], [3.0, 0.0]])  # 2 critics, batch 2
    target = torch.tensor([2.0, 2.0])
    # Critic 1: 0.5 * (1 + 0) / 2 = 0.25; critic 2: 0.5 * (1 + 4) / 2 = 1.25.
    assert float(critic_loss(q, target)) == pytest.approx(1.5)
    assert float(critic_loss(q, target, torch.tensor([1.0, 0.0]))) == pytest.approx(0.25 + 0.25)
    assert float(actor_loss(torch.tensor([-1.0, 1.0]), torch.tensor([3.0, 5.0]), 2.0)) == pytest.approx(-4.0)
    log_alpha = torch.tensor(0.3, requires_grad=True)
    loss = alpha_loss(log_alpha, torch.tensor([1.0, 3.0]), target_entropy=-1.0)
    assert float(loss.detach()) == pytest.approx(-0.3 * 1.0)
    loss.backward()
    assert log_alpha.grad is not None
    # Entropy (-log pi = -2) below the target (-1): the gradient step raises log_alpha.
    assert float(log_alpha.grad) < 0


# --- agent.py --------------------------------------------------------------------------------------


def test_actions_stay_within_the_bounds_and_eval_is_deterministic() -> None:
    agent = _agent()
    obs = np.random.default_rng(0).normal(size=(200, 4)).astype(np.float32) * 10
    train_acts = np.stack([agent.sample(o) for o in obs])
    assert train_acts.dtype == np.float32
    assert train_acts.shape == (200, 3)
    assert np.all(train_acts >= LOW)
    assert np.all(train_acts <= HIGH)
    assert len(np.unique(train_acts[:, 0])) > 100  # stochastic in train mode
    agent.eval()
    first = [agent.sample(o) for o in obs[:20]]
    second = [agent.sample(o) for o in obs[:20]]
    assert all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))
    with torch.no_grad():
        mean, _ = agent.parts.actor.net(torch.from_numpy(obs[:1]))
    expected = (HIGH + LOW) / 2 + (HIGH - LOW) / 2 * np.tanh(mean.numpy()[0])
    np.testing.assert_allclose(first[0], expected, rtol=1e-6)


def test_it_takes_a_box_whose_bounds_spaces_has_checked() -> None:
    with pytest.raises(ValueError, match="action bounds must be finite with low < high"):
        Spaces(obs_shape=(4,), action_low=np.array([-np.inf]), action_high=np.array([1.0]))
    with pytest.raises(TypeError, match="SAC needs continuous \\(box\\) actions; the env's are 2 discrete"):
        Sac(SacConfig(), Spaces(obs_shape=(4,), n_actions=2), seed=0)


def test_opt_skips_until_a_batch_then_records_finite_values() -> None:
    agent = _agent()
    assert agent.opt(_buffer(15)) is None
    record = agent.opt(_buffer(64))
    assert record is not None
    assert set(record) == {
        "train/critic_loss",
        "train/actor_loss",
        "train/q_mean",
        "train/entropy",
        "train/alpha",
        "train/alpha_loss",
    }
    assert all(np.isfinite(record.get_scalar(k)) for k in record)
    assert agent.opt_steps == 1


def test_target_critics_follow_by_polyak_averaging() -> None:
    agent = _agent(tau=0.1)
    old = [p.detach().clone() for p in agent.parts.critic.target.parameters()]
    agent.opt(_buffer(64))
    for p_tgt, p, o in zip(
        agent.parts.critic.target.parameters(), agent.parts.critic.net.parameters(), old, strict=True
    ):
        torch.testing.assert_close(p_tgt, 0.9 * o + 0.1 * p.detach())


def test_fixed_alpha_does_not_move_and_auto_alpha_does() -> None:
    fixed = _agent(auto_alpha=False, init_alpha=0.2)
    record = fixed.opt(_buffer(64))
    assert record is not None
    assert "train/alpha_loss" not in record
    assert fixed.alpha() == pytest.approx(0.2)
    auto = _agent(init_alpha=0.2, alpha_lr=0.1)
    auto.opt(_buffer(64))
    assert auto.alpha() != pytest.approx(0.2)


def test_n_updates_per_opt_runs_that_many_updates() -> None:
    agent = _agent(n_updates_per_opt=3, tau=1.0, auto_alpha=False)
    adam_steps = []
    agent.opt(_buffer(64))
    adam_steps.append(agent.parts.critic.optimizer.state_dict()["state"][0]["step"])
    assert float(adam_steps[0]) == 3.0
    assert agent.opt_steps == 1


def test_critic_learns_a_fixed_target_on_a_fixed_batch() -> None:
    # With discount 0 the target is the reward alone: the critic loss must fall.
    agent = _agent(critic_lr=1e-2)
    buffer = _buffer(16, discount=0.0, is_terminated=False)
    losses = []
    for _ in range(200):
        record = agent.opt(buffer)
        assert record is not None
        losses.append(record.get_scalar("train/critic_loss"))
    assert np.mean(losses[-10:]) < 0.1 * np.mean(losses[:10])


def test_prioritized_replay_priorities_change() -> None:
    buffer = _buffer(32, per=PerConfig(alpha=1.0))
    assert buffer._tree is not None
    before = buffer._tree.get(np.arange(32)).copy()
    _agent().opt(buffer)
    assert not np.array_equal(buffer._tree.get(np.arange(32)), before)


def test_save_then_load_restores_everything_including_the_target_critics(tmp_path: Path) -> None:
    agent = _agent()
    buffer = _buffer(64)
    for _ in range(5):
        agent.opt(buffer)
    files = agent.save_params(tmp_path)
    assert sorted(p.name for p in files) == ["actor.pt", "critic.pt", "critic_tgt.pt", "state.pt"]
    # The target critics are saved as themselves, not as copies of the online critics.
    x, a = torch.randn(8, 4), torch.rand(8, 3)
    assert not torch.equal(agent.parts.critic.target(x, a), agent.parts.critic.net(x, a))

    loaded = Sac(agent.config, Spaces(obs_shape=(4,), action_low=LOW, action_high=HIGH), seed=99)
    loaded.load_params(tmp_path)
    assert torch.equal(loaded.parts.critic.target(x, a), agent.parts.critic.target(x, a))
    assert torch.equal(loaded.parts.critic.net(x, a), agent.parts.critic.net(x, a))
    assert loaded.alpha() == agent.alpha()
    assert loaded.opt_steps == 5
    # Same optimiser states and sampling generator: the next update is identical.
    r1, r2 = agent.opt(_buffer(64, seed=3)), loaded.opt(_buffer(64, seed=3))
    assert r1 is not None
    assert r2 is not None
    assert r1["train/critic_loss"] == r2["train/critic_loss"]
    assert r1["train/actor_loss"] == r2["train/actor_loss"]


def test_load_names_a_missing_or_mismatched_file(tmp_path: Path) -> None:
    _agent().save_params(tmp_path)
    with pytest.raises(ValueError, match=r"critic\.pt does not match"):
        Sac(
            SacConfig(actor_hidden=(32,), critic_hidden=(8,)),
            Spaces(obs_shape=(4,), action_low=LOW, action_high=HIGH),
            seed=0,
        ).load_params(tmp_path)
    (tmp_path / "critic_tgt.pt").unlink()
    with pytest.raises(FileNotFoundError, match=r"critic_tgt\.pt not found"):
        _agent().load_params(tmp_path)


def test_a_failed_load_leaves_the_agent_unchanged(tmp_path: Path) -> None:
    _agent().save_params(tmp_path)
    # The critics match but the target critics' file is from another network: nothing may be loaded.
    torch.save(
        Sac(
            SacConfig(critic_hidden=(8,)), Spaces(obs_shape=(4,), action_low=LOW, action_high=HIGH), seed=0
        ).parts.critic.net.state_dict(),
        tmp_path / "critic_tgt.pt",
    )
    agent = _agent()
    agent.parts.actor.net.net[0].weight.data.fill_(0.123)  # type: ignore[operator]
    before = {k: v.clone() for k, v in agent.parts.actor.net.state_dict().items()}
    with pytest.raises(ValueError, match=r"critic_tgt\.pt does not match this SAC's network"):
        agent.load_params(tmp_path)
    assert all(torch.equal(v, agent.parts.actor.net.state_dict()[k]) for k, v in before.items())
