"""PPO: GAE against an independent implementation and by hand, the losses by hand, the log-probabilities
against torch.distributions, normalisation, schedules, the KL stop, and save/load."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from border_py import RolloutBufferConfig
from border_py.agents import Ppo, PpoConfig
from border_py.agents.on_policy.returns import explained_variance, gae
from border_py.agents.ppo.losses import approx_kl, clipped_surrogate, value_loss
from border_py.base import Spaces
from tests.agents.rollouts import fill_rollout


def _reference_gae(
    reward: list[list[float]],
    value: list[list[float]],
    next_value: list[list[float]],
    terminated: list[list[bool]],
    truncated: list[list[bool]],
    gamma: float,
    lam: float,
) -> list[list[float]]:
    """GAE written from the definition, env by env: sum over k of (gamma lam)^k delta_(t+k), stopping at
    the step that ends an episode (whose delta bootstraps from V(next_obs) only if truncated)."""
    n_steps, num_envs = len(reward), len(reward[0])
    out = [[0.0] * num_envs for _ in range(n_steps)]
    for i in range(num_envs):
        for t in range(n_steps):
            total, weight = 0.0, 1.0
            for k in range(t, n_steps):
                bootstrap = 0.0 if terminated[k][i] else gamma * next_value[k][i]
                total += weight * (reward[k][i] + bootstrap - value[k][i])
                if terminated[k][i] or truncated[k][i]:
                    break
                weight *= gamma * lam
            out[t][i] = total
    return out


def test_gae_by_hand_with_a_truncation_and_a_termination_mid_rollout() -> None:
    """One env, 4 steps, gamma 0.5, lambda 1: a truncation at step 1 bootstraps from its final obs's value
    and stops the sum; a termination at step 3 does not bootstrap."""
    reward = torch.tensor([[1.0], [2.0], [0.0], [4.0]])
    value = torch.tensor([[0.5], [1.0], [2.0], [1.0]])
    next_value = torch.tensor([[1.0], [8.0], [1.0], [9.0]])
    terminated = torch.tensor([[0.0], [0.0], [0.0], [1.0]])
    truncated = torch.tensor([[0.0], [1.0], [0.0], [0.0]])
    advantage, returns = gae(
        reward, value, next_value, terminated, truncated, torch.full((4, 1), 0.5), lam=1.0
    )
    # deltas: 1 + .5*1 - .5 = 1;  2 + .5*8 - 1 = 5;  0 + .5*1 - 2 = -1.5;  4 - 1 = 3
    # A3 = 3; A2 = -1.5 + .5*3 = 0; A1 = 5 (truncated: stops); A0 = 1 + .5*5 = 3.5
    assert advantage.squeeze(1).tolist() == [3.5, 5.0, 0.0, 3.0]
    assert returns.squeeze(1).tolist() == [4.0, 6.0, 2.0, 4.0]


@settings(max_examples=60, deadline=None)
@given(
    n_steps=st.integers(1, 12),
    num_envs=st.integers(1, 3),
    lam=st.floats(0.0, 1.0),
    gamma=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**16),
)
def test_gae_equals_an_independent_implementation(
    n_steps: int, num_envs: int, lam: float, gamma: float, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    shape = (n_steps, num_envs)
    reward, value, next_value = (rng.normal(size=shape) for _ in range(3))
    ends = rng.random(shape)
    terminated, truncated = ends < 0.15, (ends >= 0.15) & (ends < 0.3)
    expected = _reference_gae(
        reward.tolist(),
        value.tolist(),
        next_value.tolist(),
        terminated.tolist(),
        truncated.tolist(),
        gamma,
        lam,
    )
    reward_t, value_t, next_value_t = (
        torch.tensor(a, dtype=torch.float64) for a in (reward, value, next_value)
    )
    advantage, _ = gae(
        reward_t,
        value_t,
        next_value_t,
        torch.tensor(terminated, dtype=torch.float64),
        torch.tensor(truncated, dtype=torch.float64),
        torch.full(shape, gamma, dtype=torch.float64),
        lam,
    )
    np.testing.assert_allclose(advantage.numpy(), np.array(expected), rtol=1e-9, atol=1e-9)


def test_losses_by_hand() -> None:
    # ratio e^0.5 = 1.6487, clipped 1.2. A = 2: min(3.297, 2.4) = 2.4; A = -1: min(-1.6487, -1.2) = -1.6487.
    loss, ratio = clipped_surrogate(
        torch.tensor([0.5, 0.5]), torch.zeros(2), torch.tensor([2.0, -1.0]), clip=0.2
    )
    assert float(loss) == pytest.approx(-(2.4 - math.exp(0.5)) / 2, rel=1e-6)
    assert ratio.tolist() == pytest.approx([math.exp(0.5)] * 2)
    # Unclipped: (1 - 3)^2 = 4; clipped at 0.5 around 0: (1 - 0.5)^2 = 0.25.
    assert float(value_loss(torch.tensor([3.0]), torch.zeros(1), torch.ones(1), clip=None)) == 4.0
    assert float(value_loss(torch.tensor([3.0]), torch.zeros(1), torch.ones(1), clip=0.5)) == 0.25
    # KL estimator: r = e^0.5: (r - 1) - 0.5.
    assert float(approx_kl(torch.tensor([0.5]), torch.zeros(1))) == pytest.approx(math.exp(0.5) - 1.5)
    assert explained_variance(torch.tensor([0.0, 0.0]), torch.tensor([1.0, 3.0])) == 0.0
    assert math.isnan(explained_variance(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0])))


@pytest.mark.parametrize("kind", ["discrete", "gaussian", "gsde"])
def test_log_prob_and_entropy_equal_torch_distributions(kind: str) -> None:
    config = PpoConfig(gsde=kind == "gsde", log_std_init=-0.5)
    agent = (
        Ppo(config, Spaces(obs_shape=(3,), n_actions=4), seed=0)
        if kind == "discrete"
        else Ppo(config, Spaces(obs_shape=(3,), action_low=[-1.0] * 2, action_high=[1.0] * 2), seed=0)
    )
    obs = torch.randn(7, 3)
    latent, out, _ = agent.parts.model.net(obs)
    if kind == "discrete":
        dist: torch.distributions.Distribution = torch.distributions.Categorical(logits=out)
        act = torch.tensor([0, 1, 2, 3, 0, 1, 2])
        expected_lp, expected_ent = dist.log_prob(act), dist.entropy()
    else:
        log_std = agent.parts.model.net.log_std
        assert log_std is not None
        if kind == "gaussian":
            std = log_std.exp().expand_as(out)
        else:  # the noise latent @ W, W ~ N(0, exp(log_std)^2) elementwise: its variance by definition
            std = torch.sqrt((latent**2) @ log_std.exp() ** 2 + 1e-6)
        dist = torch.distributions.Normal(out, std)
        act = torch.randn(7, 2)
        expected_lp, expected_ent = dist.log_prob(act).sum(-1), dist.entropy().sum(-1)
    log_prob, entropy = agent._log_prob_entropy(latent, out, act)
    torch.testing.assert_close(log_prob, expected_lp)
    torch.testing.assert_close(entropy, expected_ent)


def test_opt_takes_the_rollout_and_records_finite_diagnostics() -> None:
    agent = Ppo(PpoConfig(batch_size=16, n_epochs=2), Spaces(obs_shape=(3,), n_actions=2), seed=0)
    buffer = RolloutBufferConfig(n_steps=8, num_envs=4).build(0)
    assert agent.opt(buffer) is None  # nothing collected
    fill_rollout(buffer, np.random.default_rng(0), None)
    record = agent.opt(buffer)
    assert record is not None
    assert len(buffer) == 0
    assert set(record) == {
        "train/policy_loss", "train/value_loss", "train/entropy", "train/approx_kl", "train/clip_fraction",
        "train/explained_variance", "train/lr", "train/clip_range", "train/n_updates",
    }  # fmt: skip
    assert record["train/n_updates"] == 4.0  # 2 epochs of 32 / 16
    assert all(math.isfinite(record.get_scalar(k)) for k in record)


def test_the_first_minibatch_starts_at_ratio_one_so_old_log_probs_are_the_collecting_policy() -> None:
    agent = Ppo(
        PpoConfig(batch_size=32, n_epochs=1),
        Spaces(obs_shape=(3,), action_low=[-1.0] * 2, action_high=[1.0] * 2),
        seed=0,
    )
    buffer = RolloutBufferConfig(n_steps=8, num_envs=4).build(0)
    fill_rollout(buffer, np.random.default_rng(1), 2)
    record = agent.opt(buffer)
    assert record is not None
    assert record["train/approx_kl"] == 0.0
    assert record["train/clip_fraction"] == 0.0


def test_target_kl_stops_the_epochs_early() -> None:
    rng = np.random.default_rng(2)
    runs: list[float] = []
    for target_kl in (None, 1e-6):
        agent = Ppo(
            PpoConfig(batch_size=8, n_epochs=10, lr=1e-2, target_kl=target_kl),
            Spaces(obs_shape=(3,), n_actions=2),
            seed=0,
        )
        buffer = RolloutBufferConfig(n_steps=8, num_envs=4).build(0)
        fill_rollout(buffer, rng, None)
        record = agent.opt(buffer)
        assert record is not None
        runs.append(record.get_scalar("train/n_updates"))
    assert runs[0] == 40.0
    assert runs[1] < 40.0  # stopped before the last minibatch


def test_linear_schedules_fall_with_the_env_steps_learnt_from() -> None:
    config = PpoConfig(lr=1e-3, lr_schedule="linear", clip_schedule="linear", schedule_env_steps=128)
    agent = Ppo(config, Spaces(obs_shape=(3,), n_actions=2), seed=0)
    buffer = RolloutBufferConfig(n_steps=8, num_envs=4).build(0)
    rng = np.random.default_rng(3)
    seen = []
    for _ in range(2):
        fill_rollout(buffer, rng, None)
        record = agent.opt(buffer)
        assert record is not None
        seen.append((record["train/lr"], record["train/clip_range"]))
    assert seen == [pytest.approx((1e-3 * 0.75, 0.2 * 0.75)), pytest.approx((1e-3 * 0.5, 0.2 * 0.5))]
    assert agent.parts.model.optimizer.param_groups[0]["lr"] == pytest.approx(5e-4)
    with pytest.raises(ValueError, match="needs schedule_env_steps"):
        PpoConfig(lr_schedule="linear")


def test_observation_statistics_stay_frozen_within_a_rollout_and_follow_it() -> None:
    agent = Ppo(
        PpoConfig(normalize_obs=True, batch_size=32, n_epochs=1), Spaces(obs_shape=(3,), n_actions=2), seed=0
    )
    for _ in range(5):
        agent.sample(np.full(3, 100.0, np.float32))
    assert agent.obs_rms.mean.tolist() == [0.0, 0.0, 0.0]  # acting never moves them
    buffer = RolloutBufferConfig(n_steps=8, num_envs=4).build(0)
    fill_rollout(buffer, np.random.default_rng(4), None)
    raw = torch.from_numpy(buffer._storage.obs[:32].copy())  # type: ignore[union-attr]
    agent.opt(buffer)
    np.testing.assert_allclose(agent.obs_rms.mean, raw.double().mean(0).numpy(), rtol=1e-3)


def test_reward_normalisation_divides_by_the_running_return_std() -> None:
    agent = Ppo(
        PpoConfig(normalize_reward=True, batch_size=32, n_epochs=1),
        Spaces(obs_shape=(3,), n_actions=2),
        seed=0,
    )
    buffer = RolloutBufferConfig(n_steps=8, num_envs=4).build(0)
    fill_rollout(buffer, np.random.default_rng(5), None)
    rollout = buffer.batch(32)
    scaled = agent._scaled_rewards(rollout)
    # The last step's rewards were divided by the std of all the returns accumulated so far.
    ratio = (rollout.reward[-1] / scaled[-1]).numpy()
    np.testing.assert_allclose(ratio, np.sqrt(agent.ret_rms.var + 1e-8), rtol=1e-5)
    assert agent.ret_rms.count == pytest.approx(32 + 1e-4)


def test_save_then_load_gives_identical_actions_and_state(tmp_path: Path) -> None:
    config = PpoConfig(normalize_obs=True, normalize_reward=True, gsde=True, sde_sample_freq=2, batch_size=16)
    agent = Ppo(config, Spaces(obs_shape=(3,), action_low=[-1.0] * 2, action_high=[1.0] * 2), seed=0)
    buffer = RolloutBufferConfig(n_steps=8, num_envs=4).build(0)
    fill_rollout(buffer, np.random.default_rng(6), 2)
    agent.opt(buffer)
    obs = np.ones(3, np.float32)
    agent.sample(obs)
    agent.save_params(tmp_path)
    loaded = Ppo(config, Spaces(obs_shape=(3,), action_low=[-1.0] * 2, action_high=[1.0] * 2), seed=1)
    loaded.load_params(tmp_path)
    assert [agent.sample(obs).tolist() for _ in range(5)] == [loaded.sample(obs).tolist() for _ in range(5)]
    assert (loaded.env_steps, loaded.opt_steps) == (32, 1)
    np.testing.assert_array_equal(loaded.obs_rms.var, agent.obs_rms.var)
    agent.eval()
    loaded.eval()
    assert agent.sample(obs).tolist() == loaded.sample(obs).tolist()


def test_construction_refuses_what_ppo_cannot_do() -> None:
    with pytest.raises(ValueError, match="gsde is for continuous actions"):
        Ppo(PpoConfig(gsde=True), Spaces(obs_shape=(3,), n_actions=2), seed=0)


def test_train_mode_draws_actions_with_the_policy_probabilities_and_eval_takes_the_argmax() -> None:
    agent = Ppo(PpoConfig(), Spaces(obs_shape=(3,), n_actions=3), seed=0)
    with torch.no_grad():
        agent.parts.model.net.action_net.weight.zero_()
        agent.parts.model.net.action_net.bias.copy_(torch.log(torch.tensor([0.2, 0.5, 0.3])))
    draws = np.array([int(a) for a in agent.sample_batch([np.zeros(3, np.float32)] * 6000)])
    assert np.bincount(draws, minlength=3) / 6000 == pytest.approx([0.2, 0.5, 0.3], abs=0.02)
    agent.eval()
    assert {int(agent.sample(np.zeros(3, np.float32))) for _ in range(5)} == {1}
