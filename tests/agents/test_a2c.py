"""A2C: the policy loss by hand, the whole update against SB3's A2C step written out independently (n-step
returns, the loss, clipping, RMSprop), the config's defaults and checks, and save/load."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from border_py import RolloutBufferConfig
from border_py.agents import A2c, A2cConfig
from border_py.agents.a2c.losses import policy_gradient_loss
from border_py.base import Spaces
from border_py.config import from_dict
from border_py.replay_buffer.rollout import Rollout
from tests.agents.rollouts import fill_rollout

DISCRETE = Spaces(obs_shape=(3,), n_actions=2)
BOX = Spaces(obs_shape=(3,), action_low=[-1.0] * 2, action_high=[1.0] * 2)


def test_policy_gradient_loss_by_hand() -> None:
    log_prob = torch.tensor([-1.0, -2.0], requires_grad=True)
    advantage = torch.tensor([2.0, 1.0], requires_grad=True)
    loss = policy_gradient_loss(log_prob, advantage)
    assert float(loss.detach()) == 2.0  # -((2 * -1) + (1 * -2)) / 2
    loss.backward()
    assert log_prob.grad is not None
    assert log_prob.grad.tolist() == [-1.0, -0.5]
    assert advantage.grad is None  # the advantages are weights, not trained through


def _n_step_returns(rollout: Rollout, next_value: torch.Tensor) -> torch.Tensor:
    """A2C's returns from the definition, env by env: ``R_t = r_t + discount_t R_(t+1)`` within an
    episode, bootstrapped from ``V(next_obs)`` at the rollout's end and at a truncation, 0 at a
    termination."""
    n_steps, num_envs = rollout.shape
    out = torch.zeros(n_steps, num_envs)
    for i in range(num_envs):
        following = 0.0
        for t in reversed(range(n_steps)):
            terminated, truncated = bool(rollout.is_terminated[t, i]), bool(rollout.is_truncated[t, i])
            if terminated:
                following = 0.0
            elif truncated or t == n_steps - 1:
                following = float(next_value[t, i])
            following = float(rollout.reward[t, i]) + float(rollout.discount[t, i]) * following
            out[t, i] = following
    return out


def _sb3_step(
    net: torch.nn.Module, optimizer: torch.optim.Optimizer, rollout: Rollout, ent_coef: float
) -> float:
    """SB3's ``A2C.train`` on ``rollout``, written out: returns the loss before the step."""
    n_steps, num_envs = rollout.shape
    obs = rollout.obs.reshape(n_steps * num_envs, -1)
    with torch.no_grad():
        _, _, next_value = net(rollout.next_obs.reshape(n_steps * num_envs, -1))
    returns = _n_step_returns(rollout, next_value.reshape(n_steps, num_envs)).reshape(-1)
    _, logits, value = net(obs)
    dist = torch.distributions.Categorical(logits=logits)
    advantage = returns - value.detach()
    policy_loss = -(advantage * dist.log_prob(rollout.act.reshape(-1))).mean()
    loss = (
        policy_loss + ent_coef * -dist.entropy().mean() + 0.5 * torch.nn.functional.mse_loss(returns, value)
    )
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(list(net.parameters()), 0.5)
    optimizer.step()
    return float(loss.detach())


def test_two_updates_equal_sb3s_a2c_step_written_out() -> None:
    """Two rollouts (RMSprop's running averages carry over): the agent's parameters after each update equal
    those of a copy of its network trained by SB3's A2C step written out from the definitions."""
    agent = A2c(A2cConfig(ent_coef=0.01), DISCRETE, seed=0)
    reference = copy.deepcopy(agent.parts.model.net)
    optimizer = torch.optim.RMSprop(reference.parameters(), lr=7e-4, alpha=0.99, eps=1e-5)
    rng, copy_rng = np.random.default_rng(0), np.random.default_rng(0)
    for _ in range(2):
        buffer, twin = (RolloutBufferConfig(n_steps=5, num_envs=4).build(0) for _ in range(2))
        fill_rollout(buffer, rng, None)
        fill_rollout(twin, copy_rng, None)
        expected_loss = _sb3_step(reference, optimizer, twin.batch(len(twin)), ent_coef=0.01)
        record = agent.opt(buffer)
        assert record is not None
        scalar = record.get_scalar
        got = scalar("train/policy_loss") - 0.01 * scalar("train/entropy") + 0.5 * scalar("train/value_loss")
        assert got == pytest.approx(expected_loss, rel=1e-5)
        for mine, theirs in zip(agent.parts.model.params, reference.parameters(), strict=True):
            torch.testing.assert_close(mine, theirs, rtol=1e-6, atol=1e-7)
    assert agent.opt_steps == 2
    assert agent.env_steps == 40


def test_the_record_names_the_update_and_the_rollout() -> None:
    agent = A2c(A2cConfig(), BOX, seed=0)
    buffer = RolloutBufferConfig(n_steps=5, num_envs=2).build(0)
    assert agent.opt(buffer) is None  # nothing collected
    fill_rollout(buffer, np.random.default_rng(1), 2)
    record = agent.opt(buffer)
    assert record is not None
    assert len(buffer) == 0
    assert set(record) == {
        "train/policy_loss", "train/value_loss", "train/entropy", "train/grad_norm",
        "train/explained_variance", "train/lr", "train/std",
    }  # fmt: skip
    assert all(math.isfinite(record.get_scalar(k)) for k in record)


def test_the_defaults_are_sb3s_a2c_and_the_optimiser_follows_the_config() -> None:
    c = A2cConfig()
    assert (c.lr, c.gae_lambda, c.normalize_advantage, c.vf_coef, c.ent_coef, c.max_grad_norm) == (
        7e-4, 1.0, False, 0.5, 0.0, 0.5,
    )  # fmt: skip
    assert c.batch_size == 1
    rmsprop = A2c(c, DISCRETE, seed=0).parts.model.optimizer
    assert isinstance(rmsprop, torch.optim.RMSprop)
    group = rmsprop.param_groups[0]
    assert (group["alpha"], group["eps"], group["weight_decay"]) == (0.99, 1e-5, 0)
    adam = A2c(A2cConfig(optimizer="adam"), DISCRETE, seed=0).parts.model.optimizer
    assert isinstance(adam, torch.optim.Adam)
    assert adam.param_groups[0]["eps"] == 1e-5


def test_bad_fields_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="rmsprop_alpha"):
        A2cConfig(rmsprop_alpha=1.0)
    with pytest.raises(ValueError, match="optimizer"):
        from_dict(A2cConfig, {"optimizer": "sgd"})
    with pytest.raises(ValueError, match="a linear lr_schedule needs schedule_env_steps"):
        A2cConfig(lr_schedule="linear")
    with pytest.raises(ValueError, match="gsde is for continuous actions"):
        A2c(A2cConfig(gsde=True), DISCRETE, seed=0)


def test_save_then_load_gives_identical_actions_and_optimiser_state(tmp_path: Path) -> None:
    config = A2cConfig(normalize_obs=True, normalize_reward=True, gsde=True, log_std_init=-2.0)
    agent = A2c(config, BOX, seed=0)
    buffer = RolloutBufferConfig(n_steps=8, num_envs=4).build(0)
    fill_rollout(buffer, np.random.default_rng(2), 2)
    agent.opt(buffer)
    obs = np.ones(3, np.float32)
    agent.sample(obs)
    written = {p.name for p in agent.save_params(tmp_path)}
    assert written == {"a2c.pt", "state.pt"}
    loaded = A2c(config, BOX, seed=1)
    loaded.load_params(tmp_path)
    assert [agent.sample(obs).tolist() for _ in range(5)] == [loaded.sample(obs).tolist() for _ in range(5)]
    square_avg = [s["square_avg"] for s in agent.parts.model.optimizer.state.values()]
    loaded_avg = [s["square_avg"] for s in loaded.parts.model.optimizer.state.values()]
    assert all(torch.equal(a, b) for a, b in zip(square_avg, loaded_avg, strict=True))
    assert (loaded.env_steps, loaded.opt_steps) == (32, 1)
