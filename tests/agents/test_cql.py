"""CQL: the conservative gap and the Lagrangian by hand, values pushed down away from the dataset's
actions, the multiplier's direction, acting, and learning a contextual bandit."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch

from border_py import ArrayDataset
from border_py.agents import Cql, CqlConfig
from border_py.agents.cql.losses import conservative_gap, conservative_penalty, uniform_log_density
from border_py.base import Spaces
from tests.agents.test_offline_agents import BOUNDS, _dataset


def _agent(seed: int = 0, **changes: Any) -> Cql:
    config = CqlConfig(
        actor_hidden=(32, 32), critic_hidden=(32, 32), batch_size=32, critic_lr=1e-3, normalize_obs=False,
        **changes,
    )  # fmt: skip
    return Cql(config, Spaces(obs_shape=(3,), action_low=BOUNDS[0], action_high=BOUNDS[1]), seed=seed)


def test_the_conservative_gap_and_its_gradient_by_hand() -> None:
    # One critic, two states, one sampled action of each kind, temperature 2.
    q = torch.tensor([[[1.0, 2.0, 0.0, -1.0], [0.5, 0.0, 1.0, 3.0]]], requires_grad=True)
    log_mu = torch.tensor([[-1.0, -2.0, 0.0], [0.0, -1.0, -3.0]])
    gap = conservative_gap(q, 1, log_mu, 2.0)
    # Q - log mu: [3, 2, -1] and [0, 2, 6]; 2 log sum exp(v / 2), minus Q at the dataset's action.
    first = 2.0 * math.log(math.exp(1.5) + math.exp(1.0) + math.exp(-0.5)) - 1.0
    second = 2.0 * math.log(1.0 + math.exp(1.0) + math.exp(3.0)) - 0.5
    assert gap.shape == (1,)
    assert float(gap.detach()) == pytest.approx((first + second) / 2, rel=1e-6)
    gap.sum().backward()
    assert q.grad is not None
    # d/dQ_j of the soft maximum is softmax(v / 2)_j; the dataset's action gets -1; both over the batch of 2.
    v = torch.tensor([[3.0, 2.0, -1.0], [0.0, 2.0, 6.0]])
    expected = torch.cat([-torch.ones(2, 1), torch.softmax(v / 2.0, dim=1)], dim=1) / 2.0
    torch.testing.assert_close(q.grad[0], expected)
    with pytest.raises(ValueError, match="expected 1 \\+ 3 \\* 2"):
        conservative_gap(q, 2, log_mu, 1.0)


def test_the_uniform_density_and_the_lagrangian_by_hand() -> None:
    assert uniform_log_density(2) == pytest.approx(math.log(0.25))
    gap = torch.tensor([3.0, 1.0], requires_grad=True)
    log_alpha_prime = torch.tensor(math.log(2.0), requires_grad=True)
    penalty, loss = conservative_penalty(gap, 5.0, log_alpha_prime, 1.0)
    assert loss is not None
    assert float(penalty.detach()) == pytest.approx(
        2.0 * 5.0 * (2.0 + 0.0)
    )  # alpha' weight (gap - target), summed
    assert float(loss.detach()) == pytest.approx(-(2.0 * 5.0 * 2.0 + 0.0) / 2)
    loss.backward()
    assert log_alpha_prime.grad is not None
    assert float(log_alpha_prime.grad) == pytest.approx(
        -10.0
    )  # d/dlog a' = the loss: a' rises when gaps exceed
    assert gap.grad is None  # the multiplier's loss holds the gaps constant
    penalty.backward()
    assert gap.grad is not None
    torch.testing.assert_close(
        gap.grad, torch.tensor([10.0, 10.0])
    )  # and the critics' loss holds a' constant


def _value_gap(agent: Cql, seed: int) -> float:
    """Mean over the dataset's states of Q(s, a_data) - Q(s, a_uniform), in unit actions."""
    data = _dataset()
    obs = torch.as_tensor(data.storage.obs)
    assert agent.scale is not None
    data_act = agent.scale.to_unit(torch.as_tensor(data.storage.act))
    uniform = 2.0 * torch.rand(data_act.shape, generator=torch.Generator().manual_seed(seed)) - 1.0
    with torch.no_grad():
        critic = agent.parts.critic.net
        return float((critic(obs, data_act) - critic(obs, uniform)).mean())


@pytest.mark.functional
def test_the_penalty_pushes_values_down_away_from_the_datasets_actions() -> None:
    results = {}
    for weight in (1e-6, 5.0):
        agent, dataset = _agent(cql_alpha=weight), _dataset()
        for _ in range(200):
            record = agent.opt(dataset)
        assert record is not None
        results[weight] = (_value_gap(agent, 1), record.get_scalar("train/cql_gap"))
    # Near-SAC critics do not care which action was the dataset's; CQL's value it above uniform ones.
    assert abs(results[1e-6][0]) < 0.5, results
    assert results[5.0][0] > 2.0, results
    assert results[5.0][1] < results[1e-6][1], results


@pytest.mark.parametrize(("target", "rises"), [(-100.0, True), (100.0, False)])
def test_the_lagrange_multiplier_rises_while_the_gap_exceeds_its_target(target: float, rises: bool) -> None:
    agent, dataset = _agent(target_action_gap=target), _dataset()
    values = []
    for _ in range(20):
        record = agent.opt(dataset)
        assert record is not None
        values.append(record.get_scalar("train/alpha_prime"))
    assert (values[-1] > values[0] > math.e) if rises else (values[-1] < values[0] < math.e), values
    assert "train/alpha_prime" not in (_agent().opt(dataset) or {})


def test_it_samples_in_train_mode_and_acts_with_the_squashed_mean_in_eval_mode() -> None:
    agent = _agent()
    obs = np.array([0.3, -0.2, 1.0], np.float32)
    agent.train()
    drawn = np.stack([agent.sample(obs) for _ in range(50)])
    assert drawn.std(axis=0).min() > 0.01
    assert ((drawn >= BOUNDS[0]) & (drawn <= BOUNDS[1])).all()
    agent.eval()
    mean, _ = agent.parts.actor.net(torch.as_tensor(obs)[None])
    expected = (BOUNDS[1] + BOUNDS[0]) / 2 + (BOUNDS[1] - BOUNDS[0]) / 2 * np.tanh(mean.detach().numpy()[0])
    np.testing.assert_allclose(agent.sample(obs), expected, rtol=1e-6)
    assert agent.sample(obs).tolist() == agent.sample(obs).tolist()


@pytest.mark.functional
def test_it_learns_the_best_action_of_a_contextual_bandit_from_uniform_data() -> None:
    # One-step episodes: reward 1 - 4 (a - 0.8 s_0)^2 for uniform actions; the best action is 0.8 s_0. A
    # policy that ignores the state errs by 0.4 on average, a uniform one by about 0.55.
    rng = np.random.default_rng(0)
    n = 4096
    obs = rng.uniform(-1.0, 1.0, (n, 2)).astype(np.float32)
    act = rng.uniform(-1.0, 1.0, (n, 1)).astype(np.float32)
    reward = (1.0 - 4.0 * (act[:, 0] - 0.8 * obs[:, 0]) ** 2).astype(np.float32)
    columns = {
        "obs": obs, "next_obs": obs, "act": act, "reward": reward,
        "is_terminated": np.ones(n, np.float32), "is_truncated": np.zeros(n, np.float32),
        "discount": np.full(n, 0.99, np.float32),
    }  # fmt: skip
    dataset = ArrayDataset(columns, seed=0)
    config = CqlConfig(
        actor_hidden=(32, 32), critic_hidden=(32, 32), batch_size=64, actor_lr=1e-3, critic_lr=1e-3,
        cql_alpha=1.0, normalize_obs=False,
    )  # fmt: skip
    agent = Cql(
        config, Spaces(obs_shape=(2,), action_low=np.array([-1.0]), action_high=np.array([1.0])), seed=0
    )
    for _ in range(400):
        agent.opt(dataset)
    agent.eval()
    test = rng.uniform(-1.0, 1.0, (200, 2)).astype(np.float32)
    error = np.abs(np.stack([agent.sample(o) for o in test])[:, 0] - 0.8 * test[:, 0]).mean()
    assert error < 0.1, error
