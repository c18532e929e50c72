"""TD3 (and DDPG): loss math by hand, target smoothing, the policy delay, exploration, save and load."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
import torch

from border_py.agents import Td3, Td3Config
from border_py.agents.td3.losses import actor_loss, critic_loss, smoothed_target_action, td_target
from border_py.base import EpisodicNoise, RecurrentPolicy, Spaces
from border_py.base.policy import start_episodes
from tests.agents.random_buffer import random_buffer

LOW, HIGH = np.array([-2.0, 0.0, -1.0], np.float32), np.array([2.0, 1.0, 3.0], np.float32)


def _in_bounds(rng: np.random.Generator) -> npt.NDArray[np.float32]:
    return rng.uniform(LOW, HIGH).astype(np.float32)


_buffer = partial(random_buffer, sample_act=_in_bounds)


def _agent(config: Td3Config | None = None) -> Td3:
    config = config or Td3Config(actor_hidden=(32,), critic_hidden=(32,), batch_size=16)
    return Td3(config, Spaces(obs_shape=(4,), action_low=LOW, action_high=HIGH), seed=0)


def _params(module: torch.nn.Module) -> list[torch.Tensor]:
    return [p.detach().clone() for p in module.parameters()]


def _same(a: list[torch.Tensor], b: list[torch.Tensor]) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a, b, strict=True))


# --- losses.py -------------------------------------------------------------------------------------


def test_td_target_and_losses_by_hand() -> None:
    reward, discount = torch.tensor([1.0, 2.0]), torch.tensor([0.9, 0.9])
    terminated, next_q = torch.tensor([0.0, 1.0]), torch.tensor([10.0, 10.0])
    target = td_target(reward, terminated, discount, next_q)
    assert torch.allclose(target, torch.tensor([10.0, 2.0]))  # 1 + 0.9 * 10; terminated: 2
    q = torch.tensor([[9.0, 3.0], [10.0, 2.0]])
    # critic 1: ((9-10)^2 + (3-2)^2) / 2 = 1; critic 2: 0; weighted by (2, 0): critic 1 -> (2 + 0) / 2 = 1.
    assert float(critic_loss(q, target)) == pytest.approx(1.0)
    assert float(critic_loss(q, target, torch.tensor([2.0, 0.0]))) == pytest.approx(1.0)
    assert float(actor_loss(torch.tensor([1.0, 2.0, 6.0]))) == pytest.approx(-3.0)


def test_target_smoothing_clips_the_noise_per_dimension_then_the_action() -> None:
    scale = torch.tensor([2.0, 0.5, 2.0])
    low, high = torch.tensor(LOW), torch.tensor(HIGH)
    act = torch.tensor([[0.0, 0.5, 2.9]])
    noise = torch.tensor([[1.0, -0.1, 0.3]])  # half ranges: clipped to 0.5, kept, kept
    out = smoothed_target_action(act, noise, 0.5, scale, low, high)
    assert torch.allclose(out, torch.tensor([[1.0, 0.45, 3.0]]))  # 0 + 2 * 0.5; 0.5 - 0.05; capped at 3


# --- agent.py ----------------------------------------------------------------------------------------


def test_train_mode_acts_uniformly_until_the_first_update_then_adds_noise_eval_is_the_policy() -> None:
    agent = _agent()
    obs = np.zeros(4, np.float32)
    before = np.stack([agent.sample(obs) for _ in range(200)])
    assert ((before >= LOW) & (before <= HIGH)).all()
    assert (before.std(axis=0) > 0.2 * (HIGH - LOW)).all()  # spread over the box, not around the policy
    agent.eval()
    greedy = agent.sample(obs)
    assert np.array_equal(greedy, agent.sample(obs))
    agent.train()
    agent.opt(_buffer(64))
    noisy = np.stack([agent.sample(obs) for _ in range(200)])
    assert ((noisy >= LOW) & (noisy <= HIGH)).all()
    # Exploration of std 0.1 half ranges around the policy's action (clipping at the bounds aside).
    assert np.median(np.abs(noisy - greedy) / ((HIGH - LOW) / 2)) < 0.2


def test_the_policy_and_the_targets_move_only_every_policy_delay_updates() -> None:
    agent = _agent()
    buffer = _buffer(64)
    actor, critic, actor_tgt = (
        _params(agent.parts.actor.net),
        _params(agent.parts.critic.net),
        _params(agent.parts.actor.target),
    )
    first = agent.opt(buffer)
    assert first is not None
    assert "train/actor_loss" not in first
    assert not _same(critic, _params(agent.parts.critic.net))
    assert _same(actor, _params(agent.parts.actor.net))
    assert _same(actor_tgt, _params(agent.parts.actor.target))
    second = agent.opt(buffer)
    assert second is not None
    assert "train/actor_loss" in second
    assert not _same(actor, _params(agent.parts.actor.net))
    assert not _same(actor_tgt, _params(agent.parts.actor.target))


def test_the_target_critics_follow_by_polyak_averaging_on_policy_updates() -> None:
    agent = _agent(Td3Config(actor_hidden=(8,), critic_hidden=(8,), batch_size=16, policy_delay=1, tau=0.25))
    online, target = _params(agent.parts.critic.net), _params(agent.parts.critic.target)
    agent.opt(_buffer(32))
    for new_online, old_target, new_target in zip(
        _params(agent.parts.critic.net), target, _params(agent.parts.critic.target), strict=True
    ):
        assert torch.allclose(new_target, 0.25 * new_online + 0.75 * old_target, atol=1e-6)
    assert not _same(online, _params(agent.parts.critic.net))


def test_ddpg_is_one_critic_without_smoothing_or_delay_and_explores_with_ou() -> None:
    config = Td3Config.ddpg(actor_hidden=(8,), critic_hidden=(8,), batch_size=16)
    assert (config.n_critics, config.policy_delay, config.target_noise, config.exploration) == (
        1,
        1,
        0.0,
        "ou",
    )
    agent = Td3(config, Spaces(obs_shape=(4,), action_low=LOW, action_high=HIGH), seed=0)
    record = agent.opt(_buffer(32))
    assert record is not None
    assert "train/actor_loss" in record  # no delay: the policy moves at every update
    obs = np.zeros(4, np.float32)
    noise = np.stack([agent.sample(obs) for _ in range(50)])
    steps = np.diff(noise, axis=0)
    assert np.abs(steps).mean() < np.abs(noise - noise.mean(axis=0)).mean() * 2  # correlated in time
    assert agent.ou.shape == (1, 3)


def test_save_then_load_continues_exactly(tmp_path: Path) -> None:
    agent = _agent()
    buffer = _buffer(64, seed=1)
    for _ in range(3):
        agent.opt(buffer)
    agent.save_params(tmp_path)
    twin = _agent()
    twin.load_params(tmp_path)
    assert twin.updates == agent.updates == 3
    for a, b in zip(_params(agent.parts.actor.target), _params(twin.parts.actor.target), strict=True):
        assert torch.equal(a, b)
    obs = np.ones(4, np.float32)
    assert np.array_equal(agent.sample(obs), twin.sample(obs))  # the same generator state: the same noise
    batch_a, batch_b = _buffer(64, seed=2), _buffer(64, seed=2)
    ra, rb = agent.opt(batch_a), twin.opt(batch_b)
    assert ra == rb


def test_it_takes_a_box_whose_bounds_spaces_has_checked() -> None:
    with pytest.raises(ValueError, match="action bounds must be finite with low < high"):
        Spaces(obs_shape=(4,), action_low=np.array([-np.inf]), action_high=np.array([1.0]))
    with pytest.raises(TypeError, match="TD3 needs continuous \\(box\\) actions; the env's are 2 discrete"):
        Td3(Td3Config(), Spaces(obs_shape=(4,), n_actions=2), seed=0)


def test_learning_does_not_depend_on_the_units_of_the_action_box() -> None:
    # Issue 37: critics of env-unit actions pushed the policy deeper into tanh saturation on
    # InvertedPendulum's [-3, 3] box, where it stayed, while the same agent on the box rescaled to [-1, 1]
    # (and SB3's TD3) recovered. The same transitions in either unit must now train the same networks.
    low, high = np.array([-3.0, 0.0], np.float32), np.array([3.0, 4.0], np.float32)

    def in_box(rng: np.random.Generator) -> npt.NDArray[np.float32]:
        return rng.uniform(low, high).astype(np.float32)

    def in_unit_box(rng: np.random.Generator) -> npt.NDArray[np.float32]:
        return (2.0 * (in_box(rng) - low) / (high - low) - 1.0).astype(np.float32)

    config = Td3Config(actor_hidden=(16,), critic_hidden=(16,), batch_size=16)
    one = np.ones(2, np.float32)
    wide = Td3(config, Spaces(obs_shape=(4,), action_low=low, action_high=high), seed=0)
    unit = Td3(config, Spaces(obs_shape=(4,), action_low=-one, action_high=one), seed=0)
    wide_buffer, unit_buffer = random_buffer(64, in_box, seed=3), random_buffer(64, in_unit_box, seed=3)
    for _ in range(20):
        wide.opt(wide_buffer)
        unit.opt(unit_buffer)
    for module in ("actor", "critic"):
        pairs = zip(
            _params(getattr(wide.parts, module).net), _params(getattr(unit.parts, module).net), strict=True
        )
        assert all(torch.allclose(a, b, atol=1e-5) for a, b in pairs), module


def test_ou_noise_starts_again_with_each_episode_lane_by_lane_as_sb3_resets_it() -> None:
    config = Td3Config.ddpg(actor_hidden=(8,), critic_hidden=(8,), batch_size=16)
    agent = Td3(config, Spaces(obs_shape=(4,), action_low=LOW, action_high=HIGH), seed=0)
    assert isinstance(agent, EpisodicNoise)
    assert not isinstance(agent, RecurrentPolicy)  # no memory: evaluation stays batched
    start_episodes(agent, [True, True])  # what the sampler says when two sub-envs start
    for _ in range(5):
        agent._exploration(2)
    before = agent.ou.clone()
    assert bool((before != 0).all())
    start_episodes(agent, [False, True])  # sub-env 1's episode ended: its noise starts again
    assert torch.equal(agent.ou[0], before[0])
    assert bool((agent.ou[1] == 0).all())
    start_episodes(agent, [True])  # one lane now
    assert agent.ou.shape == (1, 3)
    assert bool((agent.ou == 0).all())


def test_gaussian_exploration_has_no_state_to_start_again() -> None:
    agent = _agent()
    start_episodes(agent, [True, False])
    assert agent._exploration(2).shape == (2, 3)
