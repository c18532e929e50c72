"""CrossQ: batch renormalisation by hand (the warm-up, then ``r`` and ``d`` clipped; eval mode; stacked
statistics; folded for export), the joint target by hand, the agent's critic loss against SBX's formula
worked out here, the joint batch's statistics, the policy's delay, updates, learning a fixed return, save
and load (export: `tests/unit/test_export.py`; exact resume: `tests/functional/test_resume.py`)."""

from __future__ import annotations

import copy
import math
from functools import partial
from pathlib import Path

import attrs
import numpy as np
import numpy.typing as npt
import pytest
import torch
from torch import nn

from border_py.agents import CrossQ, CrossQConfig
from border_py.agents.batch_renorm import BatchRenorm, folded_linear_layers, renorm_statistics
from border_py.agents.crossq.losses import joint_critic_values
from border_py.agents.ensemble import CriticEnsemble
from border_py.agents.parts import Tracked
from border_py.agents.toolkit import mlp
from border_py.base import Spaces
from tests.agents.random_buffer import random_buffer

LOW, HIGH = np.array([-2.0, -1.0], np.float32), np.array([2.0, 3.0], np.float32)
SPACES = Spaces(obs_shape=(4,), action_low=LOW, action_high=HIGH)
SMALL = CrossQConfig(actor_hidden=(16,), critic_hidden=(16,), batch_size=16)


def _in_bounds(rng: np.random.Generator) -> npt.NDArray[np.float32]:
    return rng.uniform(LOW, HIGH).astype(np.float32)


_buffer = partial(random_buffer, sample_act=_in_bounds)


def _norm(shape: tuple[int, ...], warmup_steps: int = 1, momentum: float = 0.5) -> BatchRenorm:
    return BatchRenorm(shape, momentum=momentum, eps=0.0, warmup_steps=warmup_steps, r_max=3.0, d_max=1.0)


def test_batch_renorm_is_batch_norm_during_its_warm_up_then_clips_r_and_d_by_hand() -> None:
    norm = _norm((3,))
    # Call 1, in the warm-up: the batch's means (1, 3, 2) and biased variances (1, 4, 4).
    y = norm(torch.tensor([[0.0, 1.0, 0.0], [2.0, 5.0, 4.0]]))
    torch.testing.assert_close(y.detach(), torch.tensor([[-1.0, -1.0, -1.0], [1.0, 1.0, 1.0]]))
    # Momentum 0.5: halfway from (0, 0, 0) and (1, 1, 1).
    torch.testing.assert_close(norm.running_mean, torch.tensor([0.5, 1.5, 1.0]))
    torch.testing.assert_close(norm.running_var, torch.tensor([1.0, 2.5, 2.5]))
    assert int(norm.steps) == 1
    # Call 2, renormalised: (x - batch mean) / batch std * r + d, r and d against the running statistics.
    # Feature 0: mean 0.5, std 1 as the running ones: r 1, d 0. Feature 1: mean 20, std 10 against 1.5 and
    # sqrt(2.5): r 6.3 -> 3, d 11.7 -> 1, so (-1, 1) x 3 + 1. Feature 2: mean 0.01, std 0.01 against 1 and
    # sqrt(2.5): r 0.006 -> 1/3, d -0.99 / sqrt(2.5) (within 1).
    y = norm(torch.tensor([[-0.5, 10.0, 0.0], [1.5, 30.0, 0.02]]))
    d = -0.99 / math.sqrt(2.5)
    expected = torch.tensor([[-1.0, -2.0, -1 / 3 + d], [1.0, 4.0, 1 / 3 + d]])
    torch.testing.assert_close(y.detach(), expected, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(norm.running_mean, torch.tensor([0.5, 10.75, 0.505]))
    torch.testing.assert_close(norm.running_var, torch.tensor([1.0, 51.25, 1.25005]))
    assert int(norm.steps) == 2


def test_renorm_statistics_unclipped_normalise_as_the_running_ones() -> None:
    # r 2 and d 1 within the clips: (x - m) / s * r + d = (x - running mean) / running std.
    mean, var = renorm_statistics(
        torch.tensor([3.0]), torch.tensor([4.0]), torch.tensor([2.0]), torch.tensor([1.0]), 0.0, 3.0, 5.0
    )
    torch.testing.assert_close((mean, var), (torch.tensor([2.0]), torch.tensor([1.0])))


def test_batch_renorm_in_eval_mode_uses_its_running_statistics_and_changes_nothing() -> None:
    norm = _norm((2,)).eval()
    with torch.no_grad():
        norm.running_mean.copy_(torch.tensor([1.0, -2.0]))
        norm.running_var.copy_(torch.tensor([4.0, 0.25]))
        norm.weight.copy_(torch.tensor([3.0, 1.0]))
        norm.bias.copy_(torch.tensor([-1.0, 0.5]))
    y = norm(torch.tensor([[5.0, -1.0]]))  # (5 - 1) / 2 x 3 - 1 = 5; (-1 + 2) / 0.5 + 0.5 = 2.5
    torch.testing.assert_close(y.detach(), torch.tensor([[5.0, 2.5]]))
    torch.testing.assert_close(norm.running_mean, torch.tensor([1.0, -2.0]))
    assert int(norm.steps) == 0


def test_a_constant_feature_keeps_the_gradients_finite_after_the_warm_up() -> None:
    # SBX's sqrt(var) sends 0 x inf = NaN back from a feature of variance 0, in its warm-up too.
    norm = BatchRenorm((2,), momentum=0.5, eps=1e-3, warmup_steps=0, r_max=3.0, d_max=1.0)
    x = torch.tensor([[1.0, 0.5], [2.0, 0.5], [4.0, 0.5]], requires_grad=True)
    (norm(x) * torch.tensor([1.0, 2.0])).sum().backward()
    assert x.grad is not None
    assert torch.isfinite(x.grad).all()


def test_stacked_statistics_are_per_member_over_one_shared_batch() -> None:
    norm = _norm((2, 1, 3))
    with torch.no_grad():
        norm.weight[1].fill_(2.0)
    x = torch.tensor([[[0.0, 1.0, 0.0], [2.0, 5.0, 4.0]]])  # (1, batch, features): one input for both
    y = norm(x).detach()
    assert y.shape == (2, 2, 3)
    torch.testing.assert_close(y[1], 2 * y[0])
    torch.testing.assert_close(norm.running_mean, torch.tensor([0.5, 1.5, 1.0]).expand(2, 1, 3))


def test_folded_layers_compute_the_eval_mode_network() -> None:
    torch.manual_seed(0)
    net = mlp(3, 2, (5, 4), norm=lambda width: _norm((width,))).eval()
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, BatchRenorm):
                m.running_mean.normal_()
                m.running_var.uniform_(0.5, 2.0)
                m.weight.normal_()
                m.bias.normal_()
    x = torch.randn(7, 3)
    h = x.numpy().astype(np.float64)
    layers = folded_linear_layers(net)
    for i, (weight, bias) in enumerate(layers):
        h = h @ weight + bias
        h = np.maximum(h, 0.0) if i < len(layers) - 1 else h
    with torch.no_grad():
        np.testing.assert_allclose(h, net(x).numpy(), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="after the last linear layer"):
        folded_linear_layers(nn.Sequential(nn.Linear(2, 2), _norm((2,))))


def test_the_ensembles_normalisations_sit_at_the_input_and_after_each_hidden_activation() -> None:
    critic = CriticEnsemble(3, 1, (8, 6), n=2, norm=lambda n, width: _norm((n, 1, width)))
    assert [tuple(m.running_mean.shape) for m in critic.norms if isinstance(m, BatchRenorm)] == [
        (2, 1, 4),
        (2, 1, 8),
        (2, 1, 6),
    ]
    assert critic(torch.zeros(5, 3), torch.zeros(5, 1)).shape == (2, 5)
    with pytest.raises(ValueError, match="all their members"):
        critic.first(torch.zeros(5, 3), torch.zeros(5, 1))
    with pytest.raises(ValueError, match="not a plain MLP"):
        critic.member(0)
    plain = CriticEnsemble(3, 1, (8, 6), n=2)
    assert all(key.startswith("layers.") for key in plain.state_dict())


def test_the_joint_target_by_hand() -> None:
    # 2 critics x (2 current, 2 next) items. Next minimum (2, 1); alpha 0.1, log pi -2 (bonus +0.2).
    # Item 0: 1 + 0.5 x (2 + 0.2) = 2.1. Item 1 terminated: 3.
    q_joint = torch.tensor([[1.0, 2.0, 3.0, 4.0], [0.0, 5.0, 2.0, 1.0]], requires_grad=True)
    q, target = joint_critic_values(
        q_joint,
        torch.tensor([1.0, 3.0]),
        torch.tensor([0.0, 1.0]),
        torch.tensor([0.5, 0.5]),
        torch.tensor([-2.0, -2.0]),
        0.1,
        1.0,
    )
    torch.testing.assert_close(q.detach(), torch.tensor([[1.0, 2.0], [0.0, 5.0]]))
    torch.testing.assert_close(target, torch.tensor([2.1, 3.0]))
    assert q.requires_grad
    assert not target.requires_grad


def test_the_agents_critic_loss_is_sbxs_formula_on_the_joint_batch() -> None:
    agent = CrossQ(SMALL, SPACES, seed=0)
    batch = _buffer(16).batch(16)
    critic_before = copy.deepcopy(agent.parts.critic.net)
    alpha = agent.parts.log_alpha.value.detach().exp()
    agent.generator.manual_seed(5)
    q, target = agent._critic_values(batch, alpha)
    loss = agent._critic_loss(q, target, None)
    with torch.no_grad():
        agent.generator.manual_seed(5)
        next_act, next_log_prob = agent._sample_policy(batch.next_obs)  # the policy in eval mode
        # SBX: one forward pass in train mode, (n_critics, 2 batch), split into current and next.
        joint = critic_before.train()(
            torch.cat([batch.obs, batch.next_obs]), torch.cat([batch.act, next_act])
        )
        current, following = joint[:, :16], joint[:, 16:]
        next_q = following.min(dim=0).values - alpha * next_log_prob
        expected_target = batch.reward + (1 - batch.is_terminated) * batch.discount * next_q
        expected = 0.5 * ((expected_target - current) ** 2).mean(dim=1).sum()
    torch.testing.assert_close(loss.detach(), expected)
    torch.testing.assert_close(target, expected_target)


def test_the_critics_statistics_cover_the_current_and_the_next_items() -> None:
    obs, next_obs = np.array([1, 2, 3, 4], np.float32), np.array([5, 6, 7, 8], np.float32)
    agent = CrossQ(SMALL, SPACES, seed=0)
    assert agent.opt(_buffer(32, obs=obs, next_obs=next_obs)) is not None
    first = agent.parts.critic.net.norms[0]
    assert isinstance(first, BatchRenorm)
    # The joint batch's observations: half (1, 2, 3, 4), half (5, 6, 7, 8): means (3, 4, 5, 6), biased
    # variance 4 (the current items alone would give 0). Momentum 0.01 from means 0 and variances 1.
    torch.testing.assert_close(first.running_mean[:, 0, :4], torch.tensor([[0.03, 0.04, 0.05, 0.06]] * 2))
    torch.testing.assert_close(first.running_var[:, 0, :4], torch.full((2, 4), 1.03))


def test_the_policy_and_alpha_step_every_third_update_with_the_critics_in_eval_mode() -> None:
    agent = CrossQ(SMALL, SPACES, seed=0)
    buffer = _buffer(64)
    actor_before = [p.detach().clone() for p in agent.parts.actor.params]
    records = [agent.opt(buffer) for _ in range(3)]
    assert all(r is not None for r in records)
    keys = [set(r) if r is not None else set() for r in records]
    assert "train/actor_loss" not in keys[0] | keys[1]
    assert {"train/actor_loss", "train/alpha_loss", "train/entropy"} <= keys[2]
    assert all({"train/critic_loss", "train/q_mean", "train/alpha"} <= k for k in keys)
    assert not all(torch.equal(a, b) for a, b in zip(actor_before, agent.parts.actor.params, strict=True))
    # Every critic normalisation counted 3 updates (none in the policy's step: eval mode); the policy's,
    # its one step. Both networks rest in eval mode.
    critic_steps = {int(m.steps) for m in agent.parts.critic.net.modules() if isinstance(m, BatchRenorm)}
    actor_steps = {int(m.steps) for m in agent.parts.actor.net.modules() if isinstance(m, BatchRenorm)}
    assert (critic_steps, actor_steps) == ({3}, {1})
    assert not agent.parts.critic.net.training
    assert not agent.parts.actor.net.training


def test_adam_decays_its_first_moment_at_one_half_for_the_networks() -> None:
    agent = CrossQ(SMALL, SPACES, seed=0)
    assert agent.parts.actor.optimizer.param_groups[0]["betas"] == (0.5, 0.999)
    assert agent.parts.critic.optimizer.param_groups[0]["betas"] == (0.5, 0.999)
    assert agent.parts.log_alpha.optimizer.param_groups[0]["betas"] == (0.9, 0.999)
    assert not isinstance(agent.parts.critic, Tracked)  # no target critics


def test_opt_skips_until_a_batch_then_records_finite_values() -> None:
    agent = CrossQ(attrs.evolve(SMALL, policy_delay=1), SPACES, seed=0)
    assert agent.opt(_buffer(15)) is None
    record = agent.opt(_buffer(64))
    assert record is not None
    assert {"train/critic_loss", "train/actor_loss", "train/q_mean", "train/alpha"} <= set(record)
    assert all(np.isfinite(record.get_scalar(k)) for k in record)


def test_the_critics_learn_a_fixed_terminal_return() -> None:
    config = attrs.evolve(SMALL, critic_hidden=(32,), critic_lr=3e-3, batch_size=32)
    agent = CrossQ(config, SPACES, seed=0)
    buffer = _buffer(32, reward=2.0, is_terminated=True)
    for _ in range(1000):
        agent.opt(buffer)
    batch = buffer.batch(32)
    with torch.no_grad():  # eval mode: the running statistics, as the policy's step sees the critics
        q = agent.parts.critic.net(batch.obs, batch.act)
    np.testing.assert_allclose(q.numpy(), 2.0, atol=0.2)


def test_save_then_load_gives_identical_actions_and_next_updates(tmp_path: Path) -> None:
    agent = CrossQ(SMALL, SPACES, seed=0)
    for _ in range(4):
        agent.opt(_buffer(64))
    assert sorted(p.name for p in agent.save_params(tmp_path)) == ["actor.pt", "critic.pt", "state.pt"]
    loaded = CrossQ(SMALL, SPACES, seed=9)
    loaded.load_params(tmp_path)
    assert loaded.updates == 4
    obs = np.random.default_rng(1).normal(size=(10, 4)).astype(np.float32)
    for a in (agent, loaded):
        a.eval()
    assert [a.tolist() for a in agent.sample_batch(list(obs))] == [
        a.tolist() for a in loaded.sample_batch(list(obs))
    ]
    for a in (agent, loaded):
        a.train()
    for seed in (2, 3):  # the 6th update steps the policy on both
        r1, r2 = agent.opt(_buffer(64, seed=seed)), loaded.opt(_buffer(64, seed=seed))
        assert r1 is not None
        assert r1 == r2


def test_contradictory_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="adam_beta1"):
        CrossQConfig(adam_beta1=1.0)
    with pytest.raises(ValueError, match="log_std_min"):
        CrossQConfig(log_std_min=2.0, log_std_max=2.0)
    with pytest.raises(TypeError, match="tau"):
        CrossQConfig(tau=0.005)  # type: ignore[call-arg]
