"""BC, IQL, AWAC and CQL: losses by hand, the Gaussian policy against torch.distributions, one update, the
observation statistics, and save/load."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from border_py import ArrayDataset
from border_py.agents import Awac, AwacConfig, Bc, BcConfig, Cql, CqlConfig, Iql, IqlConfig
from border_py.agents.bc.losses import classification_loss, likelihood_loss, regression_loss
from border_py.agents.iql.losses import advantage_weights, cosine_lr, expectile_loss, value_target
from border_py.agents.policies import ActionScale, GaussianPolicy
from border_py.base import Spaces

BOUNDS = (np.array([-2.0, 0.0], np.float32), np.array([2.0, 1.0], np.float32))
_CQL_LAGRANGIAN = CqlConfig(batch_size=32, normalize_obs=False, target_action_gap=1.0)  # every module moves


def _dataset(n: int = 256, discrete: bool = False, seed: int = 0) -> ArrayDataset:
    """Observations of size 3; the action a fixed function of them (so BC can fit it)."""
    rng = np.random.default_rng(seed)
    obs = rng.normal(size=(n, 3)).astype(np.float32)
    if discrete:
        act: Any = (obs[:, 0] > 0).astype(np.int64)
    else:
        act = np.stack([np.tanh(obs[:, 0]) * 2.0, (np.tanh(obs[:, 1]) + 1.0) / 2.0], axis=1).astype(
            np.float32
        )
    columns = {
        "obs": obs, "next_obs": obs + 0.1, "act": act, "reward": rng.normal(size=n),
        "is_terminated": (rng.random(n) < 0.05).astype(np.float32), "is_truncated": np.zeros(n, np.float32),
        "discount": np.full(n, 0.99, np.float32),
    }  # fmt: skip
    return ArrayDataset(columns, seed=seed)


def test_losses_by_hand() -> None:
    assert float(regression_loss(torch.tensor([[0.0, 1.0]]), torch.tensor([[1.0, 3.0]]))) == 5.0
    assert float(likelihood_loss(torch.tensor([-1.0, -2.0]))) == 1.5
    assert float(
        classification_loss(torch.tensor([[0.0, math.log(3.0)]]), torch.tensor([1]))
    ) == pytest.approx(-math.log(0.75))
    # Q - V = 2 above (weight 0.7), -2 below (weight 0.3): mean(0.7 * 4, 0.3 * 4) = 2.
    assert float(expectile_loss(torch.tensor([2.0, -2.0]), 0.7)) == pytest.approx(2.0)
    assert advantage_weights(torch.tensor([-1.0, 0.5, 10.0]), 2.0, 100.0).tolist() == pytest.approx(
        [math.exp(-2.0), math.e, 100.0]
    )
    assert value_target(
        torch.tensor([1.0]), torch.tensor([0.0]), torch.tensor([0.9]), torch.tensor([10.0])
    ).tolist() == [pytest.approx(10.0)]


def test_expectile_loss_is_minimised_at_the_expectile() -> None:
    q = torch.tensor([0.0, 1.0, 2.0, 3.0, 10.0])
    v = torch.zeros(1, requires_grad=True)
    optimizer = torch.optim.SGD([v], lr=0.05)
    for _ in range(2000):
        optimizer.zero_grad()
        expectile_loss(q - v, 0.9).backward()
        optimizer.step()
    # The 0.9-expectile solves 0.9 * sum(q - v)+ = 0.1 * sum(v - q)+. For 3 < v < 10:
    # 0.9 (10 - v) = 0.1 (4 v - 6), so v = 9.6 / 1.3.
    assert float(v.detach()) == pytest.approx(9.6 / 1.3, abs=1e-3)
    assert float(v.detach()) > float(q.mean())  # above the mean, towards the max


def test_action_scale_and_the_gaussian_policy_against_torch_distributions() -> None:
    scale = ActionScale(*BOUNDS, torch.device("cpu"))
    act = torch.tensor([[1.0, 0.25]])
    torch.testing.assert_close(scale.to_unit(act), torch.tensor([[0.5, -0.5]]))
    torch.testing.assert_close(scale.from_unit(torch.tensor([[0.5, -3.0]])), torch.tensor([[1.0, 0.0]]))
    policy = GaussianPolicy(3, 2, (8,))
    obs, unit = torch.randn(5, 3), torch.rand(5, 2) * 2 - 1
    mean, log_std = policy(obs)
    expected = torch.distributions.Normal(mean, log_std.exp()).log_prob(unit).sum(-1)
    torch.testing.assert_close(policy.log_prob(obs, unit), expected)


@pytest.mark.parametrize("kind", ["deterministic", "gaussian", "discrete"])
def test_bc_fits_the_datasets_actions(kind: str) -> None:
    discrete = kind == "discrete"
    config = BcConfig(
        hidden=(64,), batch_size=64, policy="gaussian" if kind == "gaussian" else "deterministic"
    )
    low, high = BOUNDS
    spaces = (
        Spaces(obs_shape=(3,), n_actions=2)
        if discrete
        else Spaces(obs_shape=(3,), action_low=low, action_high=high)
    )
    agent = Bc(config, spaces, seed=0)
    dataset = _dataset(discrete=discrete)
    first = agent.opt(dataset)
    for _ in range(400):
        last = agent.opt(dataset)
    assert first is not None
    assert last is not None
    assert last.get_scalar("train/loss") < 0.5 * first.get_scalar("train/loss")
    obs = dataset.storage.obs[:64]
    actions = np.stack([agent.sample(o) for o in obs])
    expected = dataset.storage.act[:64]
    if discrete:
        assert (actions == expected).mean() > 0.9
    else:
        assert np.abs(actions - expected).mean() < 0.15
        assert (actions >= BOUNDS[0]).all()
        assert (actions <= BOUNDS[1]).all()


@pytest.mark.parametrize(
    "make",
    [
        lambda: Iql(
            IqlConfig(batch_size=32),
            Spaces(obs_shape=(3,), action_low=BOUNDS[0], action_high=BOUNDS[1]),
            seed=0,
        ),
        lambda: Awac(
            AwacConfig(batch_size=32),
            Spaces(obs_shape=(3,), action_low=BOUNDS[0], action_high=BOUNDS[1]),
            seed=0,
        ),
        lambda: Cql(
            _CQL_LAGRANGIAN, Spaces(obs_shape=(3,), action_low=BOUNDS[0], action_high=BOUNDS[1]), seed=0
        ),
    ],
)
def test_one_update_moves_every_network_and_records_finite_values(make: Any) -> None:
    agent = make()
    trained = {name: m for name, m in agent._modules().items() if name != "normalizer.pt"}
    before = {name: [p.detach().clone() for p in m.parameters()] for name, m in trained.items()}
    record = agent.opt(_dataset())
    assert record is not None
    assert all(math.isfinite(record.get_scalar(k)) for k in record)
    for name, module in trained.items():
        moved = any(not torch.equal(a, b) for a, b in zip(before[name], module.parameters(), strict=True))
        assert moved, name  # critic_tgt too: by Polyak averaging
    assert agent.opt(_dataset(16)) is None  # fewer than a batch


def test_awac_advantage_and_weights_come_from_the_critics_before_the_step() -> None:
    """As in the AWAC authors' code: ``A = min_i Q_i(s, a) - min_i Q_i(s, a_pi)`` with the critics as they
    were before this update's critic step (recomputed here from a copy of the agent taken before it)."""
    agent = Awac(
        AwacConfig(batch_size=32, lam=0.5, max_weight=3.0),
        Spaces(obs_shape=(3,), action_low=BOUNDS[0], action_high=BOUNDS[1]),
        seed=0,
    )
    batch = _dataset().batch(32)
    act = agent._unit(batch.act)
    generator = torch.Generator().set_state(agent.generator.get_state())
    actor, critic = agent.parts.actor.net, agent.parts.critic.net
    with torch.no_grad():
        actor.sample(batch.next_obs, generator)  # the Q target's a' comes first
        pi_act = actor.sample(batch.obs, generator).clamp(-1.0, 1.0)
        expected = critic(batch.obs, act).min(dim=0).values - critic(batch.obs, pi_act).min(dim=0).values
    record = agent._update(batch)
    assert record["train/advantage_mean"] == pytest.approx(float(expected.mean()), rel=1e-5)
    weights = torch.exp(expected / 0.5).clamp(max=3.0)
    assert record["train/weight_mean"] == pytest.approx(float(weights.mean()), rel=1e-5)
    with torch.no_grad():  # the step moved the critics: their advantage now differs
        after = critic(batch.obs, act).min(dim=0).values - critic(batch.obs, pi_act).min(dim=0).values
    assert float(after.mean()) != pytest.approx(float(expected.mean()), rel=1e-5)


@pytest.mark.functional
def test_iql_weights_are_clipped_and_its_value_tracks_the_upper_expectile_of_q() -> None:
    agent = Iql(
        IqlConfig(batch_size=64, expectile=0.9, max_weight=5.0),
        Spaces(obs_shape=(3,), action_low=BOUNDS[0], action_high=BOUNDS[1]),
        seed=0,
    )
    dataset = _dataset()
    for _ in range(300):
        record = agent.opt(dataset)
    assert record is not None
    assert record.get_scalar("train/weight_mean") <= 5.0
    batch = dataset.batch(256)
    with torch.no_grad():
        q = agent.parts.critic.target(batch.obs, agent._unit(batch.act)).min(dim=0).values
        v = agent.parts.value.net(batch.obs).squeeze(-1)
    assert float((q > v).float().mean()) < 0.5  # V sits above most Q values (expectile 0.9 > the median)


def test_iql_anneals_the_actor_learning_rate_along_a_cosine_and_resumes_it(tmp_path: Path) -> None:
    # By hand: base 1e-3 over 4 updates gives 1e-3, (1 + cos(pi/4))/2 * 1e-3, 0.5e-3, ..., then 0.
    assert cosine_lr(1e-3, 1, 4) == pytest.approx(1e-3 * (1 + math.sqrt(0.5)) / 2)
    assert [cosine_lr(1e-3, k, 4) for k in (0, 2, 4, 9)] == pytest.approx([1e-3, 0.5e-3, 0.0, 0.0])
    config = IqlConfig(batch_size=32, actor_lr=1e-3, critic_lr=2e-3, actor_lr_decay_steps=4)
    agent, dataset = (
        Iql(config, Spaces(obs_shape=(3,), action_low=BOUNDS[0], action_high=BOUNDS[1]), seed=0),
        _dataset(),
    )
    lrs = []
    for _ in range(3):
        record = agent.opt(dataset)
        assert record is not None
        lrs.append(record.get_scalar("train/actor_lr"))
    assert lrs == pytest.approx([cosine_lr(1e-3, k, 4) for k in range(3)])
    assert agent.parts.critic.optimizer.param_groups[0]["lr"] == 2e-3  # the critics' rate is not annealed
    agent.save_params(tmp_path)
    resumed = Iql(config, Spaces(obs_shape=(3,), action_low=BOUNDS[0], action_high=BOUNDS[1]), seed=1)
    resumed.load_params(tmp_path)
    for _ in range(2):
        record = resumed.opt(dataset)
    assert record is not None
    assert record.get_scalar("train/actor_lr") == 0.0  # update 4 (from 0): the decay is over
    constant = Iql(
        IqlConfig(batch_size=32, actor_lr=1e-3),
        Spaces(obs_shape=(3,), action_low=BOUNDS[0], action_high=BOUNDS[1]),
        seed=0,
    )
    for _ in range(3):
        record = constant.opt(dataset)
    assert record is not None
    assert record.get_scalar("train/actor_lr") == 1e-3


def test_observation_statistics_are_used_saved_and_required_for_training(tmp_path: Path) -> None:
    stats = (np.array([1.0, 2.0, 3.0]), np.array([2.0, 2.0, 2.0]))
    agent = Bc(
        BcConfig(normalize_obs=True, batch_size=32),
        Spaces(obs_shape=(3,), action_low=BOUNDS[0], action_high=BOUNDS[1]),
        seed=0,
        obs_stats=stats,
    )
    torch.testing.assert_close(
        agent.parts.normalizer.net(torch.tensor([[3.0, 2.0, 1.0]])), torch.tensor([[1.0, 0.0, -1.0]])
    )
    agent.opt(_dataset())
    agent.save_params(tmp_path)
    no_stats = Bc(
        BcConfig(normalize_obs=True, batch_size=32),
        Spaces(obs_shape=(3,), action_low=BOUNDS[0], action_high=BOUNDS[1]),
        seed=5,
    )
    with pytest.raises(ValueError, match="normalize_obs needs the dataset's observation statistics"):
        no_stats.opt(_dataset())
    no_stats.load_params(tmp_path)
    obs = np.array([0.5, -1.0, 4.0], np.float32)
    assert no_stats.sample(obs).tolist() == agent.sample(obs).tolist()
    assert no_stats.opt(_dataset()) is not None


@pytest.mark.parametrize(
    "make",
    [
        lambda s: Iql(
            IqlConfig(batch_size=32),
            Spaces(obs_shape=(3,), action_low=BOUNDS[0], action_high=BOUNDS[1]),
            seed=s,
        ),
        lambda s: Awac(
            AwacConfig(batch_size=32),
            Spaces(obs_shape=(3,), action_low=BOUNDS[0], action_high=BOUNDS[1]),
            seed=s,
        ),
        lambda s: Cql(
            _CQL_LAGRANGIAN, Spaces(obs_shape=(3,), action_low=BOUNDS[0], action_high=BOUNDS[1]), seed=s
        ),
    ],
)
def test_save_then_load_continues_identically(make: Any, tmp_path: Path) -> None:
    agent = make(0)
    dataset = _dataset()
    agent.opt(dataset)
    agent.save_params(tmp_path)
    loaded = make(1)
    loaded.load_params(tmp_path)
    obs = np.zeros(3, np.float32)
    assert [agent.sample(obs).tolist() for _ in range(3)] == [loaded.sample(obs).tolist() for _ in range(3)]
    twin = _dataset()
    twin.batch(32)  # where the first update left the dataset's sampling RNG
    r1, r2 = agent.opt(dataset), loaded.opt(twin)
    assert r1 is not None
    assert r2 is not None
    assert dict(r1) == dict(r2)
