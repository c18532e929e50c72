"""SAC with gSDE (and TQC, CrossQ, which share its policy): the noise weights' law and the action's
log-probability by hand, when acting draws new weights, what is saved, and the update's gradients."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from border_py.agents import CrossQConfig, Sac, SacConfig, TqcConfig
from border_py.agents.sac.gsde import ActingNoise
from border_py.agents.sac.losses import (
    gsde_log_std,
    gsde_noise,
    gsde_weight_std,
    squashed_gaussian_log_prob,
)
from border_py.base import Spaces
from border_py.export import numpy_policy_of
from tests.agents.random_buffer import random_buffer

SPACES = Spaces(obs_shape=(4,), action_low=[-2.0, -1.0], action_high=[2.0, 3.0])
OBS = np.array([0.5, -1.0, 0.25, 2.0], np.float32)


def _agent(seed: int = 0, **overrides: Any) -> Sac:
    fields: dict[str, Any] = {"actor_hidden": (8, 8), "critic_hidden": (8, 8), "batch_size": 16, "gsde": True}
    return Sac(SacConfig(**{**fields, **overrides}), SPACES, seed=seed)


def _box_act(rng: np.random.Generator) -> Any:
    return rng.uniform([-2.0, -1.0], [2.0, 3.0]).astype(np.float32)


# --- losses.py ---------------------------------------------------------------------------------------


def test_the_weights_std_is_exp_or_expln_by_hand() -> None:
    log_std = torch.tensor([-1.0, 0.0, 0.5])
    torch.testing.assert_close(
        gsde_weight_std(log_std, False), torch.tensor([math.exp(-1), 1.0, math.exp(0.5)])
    )
    expln = [math.exp(-1), 1.0, math.log1p(0.5 + 1e-6) + 1.0]  # exp up to 0, log1p(x) + 1 above
    torch.testing.assert_close(gsde_weight_std(log_std, True), torch.tensor(expln))
    # The branch not taken gives no NaN to the gradient (log1p of -1.5 would).
    x = torch.tensor([-1.5, 2.0], requires_grad=True)
    gsde_weight_std(x, True).sum().backward()
    assert x.grad is not None
    torch.testing.assert_close(x.grad, torch.tensor([math.exp(-1.5), 1.0 / (1.0 + 2.0 + 1e-6)]))


def test_the_noise_is_latent_times_one_matrix_or_one_per_row() -> None:
    latent = torch.tensor([[1.0, 2.0], [0.0, 1.0]])
    weights = torch.tensor([[1.0, 0.0], [0.5, -1.0]])
    torch.testing.assert_close(gsde_noise(latent, weights), torch.tensor([[2.0, -2.0], [0.5, -1.0]]))
    per_row = torch.stack([weights, -weights])
    torch.testing.assert_close(gsde_noise(latent, per_row), torch.tensor([[2.0, -2.0], [-0.5, 1.0]]))


def test_the_squashed_log_prob_with_the_states_variance_by_hand() -> None:
    # latent (1, 2), weights' std (2, 1): variance 1 * 0.5^2 + 2^2 * 0.25^2 = 0.5; W = [0.4, -0.1]:
    # noise 0.4 - 0.2 = 0.2 around the mean 0.1, so u = 0.3; the action is 2 tanh(u) (scale 2).
    latent, std = torch.tensor([[1.0, 2.0]]), torch.tensor([[0.5], [0.25]])
    torch.testing.assert_close(gsde_log_std(latent, std), torch.tensor([[0.5 * math.log(0.5 + 1e-6)]]))
    u = 0.1 + gsde_noise(latent, torch.tensor([[0.4], [-0.1]]))
    torch.testing.assert_close(u, torch.tensor([[0.3]]))
    variance = 0.5 + 1e-6
    expected = (
        -0.5 * 0.2**2 / variance
        - 0.5 * math.log(variance)
        - 0.5 * math.log(2 * math.pi)
        - math.log(2.0)
        - math.log(1 - math.tanh(0.3) ** 2)
    )
    got = squashed_gaussian_log_prob(u, torch.tensor([[0.1]]), gsde_log_std(latent, std), torch.tensor([2.0]))
    torch.testing.assert_close(got, torch.tensor([expected]))


def test_the_acting_noise_has_the_variance_the_log_prob_assumes() -> None:
    noise = ActingNoise(None, False, torch.Generator().manual_seed(0))
    latent, log_std = torch.tensor([[1.0, 2.0]]), torch.log(torch.tensor([[0.5], [0.25]]))
    draws = []
    for _ in range(20_000):
        noise.new_block()
        draws.append(float(noise.noise(latent, log_std)))
    assert abs(np.mean(draws)) < 0.02
    assert np.var(draws) == pytest.approx(0.5, rel=0.04)


# --- acting --------------------------------------------------------------------------------------------


def test_weights_are_held_for_sde_sample_freq_acts_and_after_each_opt_call() -> None:
    agent = _agent(sde_sample_freq=3)
    acts = [agent.sample(OBS) for _ in range(4)]
    assert np.array_equal(acts[0], acts[1])
    assert np.array_equal(acts[0], acts[2])
    assert not np.array_equal(acts[2], acts[3])  # the 4th act draws anew
    held = _agent(sde_sample_freq=None)
    first = held.sample(OBS)
    assert all(np.array_equal(first, held.sample(OBS)) for _ in range(10))
    assert held.opt(random_buffer(8, _box_act, seed=0)) is None  # skipped (8 < 16): still a block's end
    assert not np.array_equal(first, held.sample(OBS))


def test_each_sub_env_has_its_own_weights_and_eval_mode_is_the_squashed_mean() -> None:
    agent = _agent()
    rows = agent.sample_batch([OBS, OBS, OBS])
    assert not np.array_equal(rows[0], rows[1])
    assert not np.array_equal(rows[1], rows[2])
    agent.eval()
    state = agent.generator.get_state()
    greedy = agent.sample(OBS)
    assert torch.equal(agent.generator.get_state(), state)  # eval mode draws nothing
    mean, _ = agent.parts.actor.net(torch.as_tensor(OBS).reshape(1, -1))
    expected = (agent.bias + agent.scale * torch.tanh(mean))[0].detach().numpy()
    np.testing.assert_allclose(greedy, expected, rtol=1e-6)
    np.testing.assert_allclose(numpy_policy_of(agent).act(OBS), greedy, rtol=1e-5, atol=1e-6)


def test_a_copy_that_takes_new_parameters_draws_new_weights() -> None:
    agent = _agent()
    first = agent.sample(OBS)
    agent.load_acting_state(agent.acting_state(), env_steps=0)
    assert not np.array_equal(first, agent.sample(OBS))


# --- saving --------------------------------------------------------------------------------------------


def test_the_acting_weights_and_their_step_are_saved(tmp_path: Path) -> None:
    agent = _agent(sde_sample_freq=4)
    for _ in range(2):
        agent.sample_batch([OBS, -OBS])
    agent.save_params(tmp_path)
    state = torch.load(tmp_path / "state.pt", weights_only=True)
    assert state["sde"]["step"] == 2
    assert state["sde"]["weights"].shape == (2, 8, 2)
    other = _agent(seed=9, sde_sample_freq=4)
    other.load_params(tmp_path)
    for _ in range(4):  # the rest of the block on the saved weights, then a draw from the saved generator
        assert np.array_equal(
            np.stack(agent.sample_batch([OBS, -OBS])), np.stack(other.sample_batch([OBS, -OBS]))
        )

    without = Sac(SacConfig(actor_hidden=(8, 8), critic_hidden=(8, 8)), SPACES, seed=0)
    (tmp_path / "plain").mkdir()
    without.save_params(tmp_path / "plain")
    assert "sde" not in torch.load(tmp_path / "plain" / "state.pt", weights_only=True)
    assert without.parts.actor.net.log_std is None


@pytest.mark.parametrize(
    ("sde", "message"),
    [
        ({"weights": torch.zeros(1, 3, 2), "step": 0}, "sde.weights must be None or a float tensor"),
        ({"weights": torch.zeros(1, 8, 2, dtype=torch.int64), "step": 0}, "sde.weights"),
        ({"weights": None, "step": -1}, "sde.step"),
        ([], "sde must be a mapping"),
    ],
)
def test_a_saved_sde_entry_it_cannot_take_is_refused_and_nothing_changes(
    sde: Any, message: str, tmp_path: Path
) -> None:
    agent = _agent()
    agent.sample(OBS)
    agent.save_params(tmp_path)
    state = torch.load(tmp_path / "state.pt", weights_only=True)
    torch.save({**state, "sde": sde}, tmp_path / "state.pt")
    other = _agent(seed=5)
    before = {k: v.clone() for k, v in other.parts.actor.net.state_dict().items()}
    with pytest.raises(ValueError, match=message):
        other.load_params(tmp_path)
    after = other.parts.actor.net.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert other.acting_noise is not None
    assert other.acting_noise.weights is None


# --- updates -------------------------------------------------------------------------------------------


def test_an_update_samples_from_its_own_weights_with_the_gradient_reaching_log_std() -> None:
    agent = _agent(use_expln=True, log_std_init=-0.5)
    actor = agent.parts.actor.net
    assert actor.log_std is not None
    obs = torch.randn(5, 4)
    draw = torch.randn(8, 2)
    agent._update_draw = draw
    act, log_prob = agent._sample_policy(obs)
    mean, latent = actor(obs)
    std = gsde_weight_std(actor.log_std, True)
    u = mean + latent @ (std * draw)
    torch.testing.assert_close(act, agent.bias + agent.scale * torch.tanh(u))
    torch.testing.assert_close(
        log_prob, squashed_gaussian_log_prob(u, mean, gsde_log_std(latent, std), agent.scale)
    )
    (act.sum() + log_prob.sum()).backward()
    assert actor.log_std.grad is not None
    assert bool((actor.log_std.grad != 0).any())


@pytest.mark.parametrize("config", [SacConfig, TqcConfig, CrossQConfig])
def test_the_sac_family_learns_with_gsde(config: Any) -> None:
    fields: dict[str, Any] = {"actor_hidden": (8, 8), "critic_hidden": (8, 8), "batch_size": 16}
    if config is TqcConfig:
        fields.update(n_critics=2, n_quantiles=3)
    if config is CrossQConfig:
        fields.update(policy_delay=1)
    agent = config(**fields, gsde=True, use_expln=True, sde_sample_freq=2).build(SPACES, 0)
    log_std = agent.parts.actor.net.log_std
    assert log_std is not None
    assert torch.equal(log_std, torch.full((8, 2), -3.0))
    before = log_std.detach().clone()
    buffer = random_buffer(64, _box_act, seed=0)
    agent.sample(OBS)
    for _ in range(3):
        record = agent.opt(buffer)
    assert record is not None
    assert {"train/actor_loss", "train/critic_loss", "train/std"} <= set(record)
    assert all(math.isfinite(record.get_scalar(k)) for k in record)
    assert not torch.equal(before, log_std.detach())  # the noise weights' std is learnt
    agent.eval()
    np.testing.assert_allclose(numpy_policy_of(agent).act(OBS), agent.sample(OBS), rtol=1e-5, atol=1e-6)
