"""TD3+BC: its policy loss by hand, the delayed policy and targets, fitting the dataset's actions, save and
load."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from border_py.agents import Td3Bc, Td3BcConfig
from border_py.agents.td3bc.losses import td3bc_actor_loss
from border_py.base import Spaces
from tests.agents.test_offline_agents import BOUNDS, _dataset


def _agent(seed: int = 0, alpha: float = 2.5) -> Td3Bc:
    config = Td3BcConfig(
        actor_hidden=(64,), critic_hidden=(64,), batch_size=64, normalize_obs=False, alpha=alpha
    )
    return Td3Bc(config, Spaces(obs_shape=(3,), action_low=BOUNDS[0], action_high=BOUNDS[1]), seed=seed)


def _params(module: torch.nn.Module) -> list[torch.Tensor]:
    return [p.detach().clone() for p in module.parameters()]


def test_actor_loss_by_hand_with_lambda_held_constant() -> None:
    q = torch.tensor([1.0, -3.0], requires_grad=True)
    pi = torch.tensor([[0.5], [0.0]], requires_grad=True)
    data = torch.tensor([[0.0], [1.0]])
    loss = td3bc_actor_loss(q, pi, data, alpha=2.0)
    # lambda = 2 / mean|Q| = 2 / 2 = 1; -1 * mean Q = 1; MSE = (0.25 + 1) / 2 = 0.625.
    assert float(loss.detach()) == pytest.approx(1.625)
    loss.backward()
    assert q.grad is not None
    assert torch.allclose(q.grad, torch.tensor([-0.5, -0.5]))  # lambda / n, with no gradient through lambda
    assert pi.grad is not None
    assert torch.allclose(pi.grad, torch.tensor([[0.5], [-1.0]]))  # 2 (pi - a) / n


def test_the_policy_and_targets_move_every_second_update_only() -> None:
    agent, dataset = _agent(), _dataset()
    parts = agent.parts
    actor, actor_tgt, critic_tgt = (
        _params(parts.actor.net),
        _params(parts.actor.target),
        _params(parts.critic.target),
    )
    first = agent.opt(dataset)
    assert first is not None
    assert "train/actor_loss" not in first
    assert all(torch.equal(a, b) for a, b in zip(actor, _params(parts.actor.net), strict=True))
    assert all(torch.equal(a, b) for a, b in zip(critic_tgt, _params(parts.critic.target), strict=True))
    second = agent.opt(dataset)
    assert second is not None
    assert "train/actor_loss" in second
    assert not all(torch.equal(a, b) for a, b in zip(actor, _params(parts.actor.net), strict=True))
    assert not all(torch.equal(a, b) for a, b in zip(actor_tgt, _params(parts.actor.target), strict=True))


@pytest.mark.functional
def test_the_bc_term_pulls_the_policy_to_the_datasets_actions() -> None:
    # A small alpha: the behaviour-cloning term dominates the Q term (random rewards here).
    agent, dataset = _agent(alpha=0.1), _dataset()
    first = None
    for _ in range(400):
        record = agent.opt(dataset)
        if record is not None and "train/bc_mse" in record:
            first = first or record.get_scalar("train/bc_mse")
            last = record.get_scalar("train/bc_mse")
    assert first is not None
    assert last < 0.3 * first
    obs = dataset.storage.obs[:64]
    actions = np.stack([agent.sample(o) for o in obs])
    assert ((actions >= BOUNDS[0]) & (actions <= BOUNDS[1])).all()
    assert np.abs(actions - dataset.storage.act[:64]).mean() < 0.3


def test_save_then_load_continues_identically(tmp_path: Path) -> None:
    agent, dataset = _agent(0), _dataset()
    agent.opt(dataset)
    agent.save_params(tmp_path)
    loaded = _agent(1)
    loaded.load_params(tmp_path)
    twin = _dataset()
    twin.batch(64)  # where the first update left the dataset's sampling RNG
    for _ in range(2):
        r1, r2 = agent.opt(dataset), loaded.opt(twin)
        assert r1 is not None
        assert r2 is not None
        assert dict(r1) == dict(r2)
