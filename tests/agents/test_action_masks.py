"""Invalid-action masking: the env's ``action_mask`` observation part, refused by agents that do not take it,
and honoured by DQN, PPO and A2C in every action they choose and in their losses (QR-DQN and IQN:
`tests/agents/test_quantile_masks.py`)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from border_py.agents import A2cConfig, DqnConfig, IqnConfig, PpoConfig, QrDqnConfig
from border_py.agents.explorers import EpsilonGreedy, EpsilonGreedyConfig, legal_actions, masked_values
from border_py.base import ObsParts, Spaces
from examples.custom_value_agent import MunchausenDqnConfig

N = 4
PARTS = ObsParts.of({"action_mask": (N,), "x": (3,)})
SPACES = Spaces(obs_shape=(PARTS.dim,), n_actions=N, obs_parts=PARTS)


def _observations(n: int, seed: int) -> np.ndarray:
    """``n`` flat observations with random masks, each allowing at least one action."""
    rng = np.random.default_rng(seed)
    mask = rng.random((n, N)) < 0.4
    mask[np.arange(n), rng.integers(N, size=n)] = True
    return np.concatenate([mask.astype(np.float32), rng.normal(size=(n, 3)).astype(np.float32)], axis=1)


def test_the_mask_must_flag_each_discrete_action() -> None:
    assert SPACES.action_mask == slice(0, N)
    parts = ObsParts.of({"action_mask": (3,), "x": (3,)})
    with pytest.raises(ValueError, match=r"'action_mask' must have shape \(n_actions,\).*got \(3,\) for 4"):
        Spaces(obs_shape=(6,), n_actions=4, obs_parts=parts)
    with pytest.raises(ValueError, match="for a box"):
        Spaces(obs_shape=(6,), action_low=[-1.0], action_high=[1.0], obs_parts=parts)


@pytest.mark.parametrize("config", [QrDqnConfig(), IqnConfig()], ids=["qrdqn", "iqn"])
def test_qrdqn_and_iqn_take_an_env_with_a_mask(config: QrDqnConfig | IqnConfig) -> None:
    agent = config.build(SPACES, 0)
    assert agent.takes_masks
    assert agent.action_mask == slice(0, N)


def test_an_agent_that_does_not_take_masks_refuses_an_env_with_one() -> None:
    # The tutorial's own value-based agent does not declare takes_masks.
    with pytest.raises(TypeError, match=r"M-DQN does not take action masks yet.*'action_mask' part"):
        MunchausenDqnConfig().build(SPACES, 0)


def test_epsilon_greedy_draws_its_random_actions_among_the_legal_ones() -> None:
    explorer = EpsilonGreedy(EpsilonGreedyConfig(eps_start=1.0, eps_final=1.0), seed=0)
    legal = np.array([False, True, False, True])
    drawn = {explorer.action(N, lambda: np.zeros(N, np.float32), legal) for _ in range(200)}
    assert drawn == {1, 3}


def test_masked_values_and_legal_actions() -> None:
    legal = np.array([[True, False, True, False]])
    q = masked_values(lambda: torch.tensor([[1.0, 9.0, 2.0, 8.0]]), legal)()
    assert isinstance(q, torch.Tensor)
    assert q.tolist() == [[1.0, -np.inf, 2.0, -np.inf]]
    assert masked_values(lambda: np.array([[1.0, 9.0, 2.0, 8.0]], np.float32), legal)().argmax() == 2
    with pytest.raises(ValueError, match="DQN: an observation's action_mask allows no action"):
        legal_actions(np.zeros((1, 7), np.float32), 1, slice(0, N), "DQN")


@pytest.mark.parametrize("numpy_acting", [True, False])
def test_dqn_never_chooses_a_forbidden_action_exploring_or_greedy(numpy_acting: bool) -> None:
    explorer = EpsilonGreedyConfig(eps_start=0.5, eps_final=0.5)
    agent = DqnConfig(hidden=(16,), explorer=explorer, numpy_acting=numpy_acting).build(SPACES, 0)
    obs = _observations(300, seed=1)
    legal = obs[:, :N] > 0.5
    for mode in (agent.train, agent.eval):
        mode()
        one_by_one = np.array([agent.sample(o) for o in obs])
        batched = np.stack(agent.sample_batch(list(obs)))
        for acts in (one_by_one, batched):
            assert legal[np.arange(len(obs)), acts].all()
    with torch.no_grad():
        q = agent.parts.net.net(torch.as_tensor(obs)).masked_fill(~torch.as_tensor(legal), -torch.inf)
    assert (batched == q.argmax(1).numpy()).all()  # eval mode: the best legal action


@pytest.mark.parametrize("config", [PpoConfig(hidden=(16,)), A2cConfig(hidden=(16,))], ids=["ppo", "a2c"])
def test_on_policy_agents_never_draw_a_forbidden_action(config: PpoConfig | A2cConfig) -> None:
    agent = config.build(SPACES, 0)
    obs = _observations(2000, seed=2)
    legal = obs[:, :N] > 0.5
    agent.train()
    acts = np.stack(agent.sample_batch(list(obs)))
    assert legal[np.arange(len(obs)), acts].all()
    assert len(set(acts.tolist())) == N  # every action drawn somewhere
    agent.eval()
    acts = np.stack(agent.sample_batch(list(obs)))
    assert legal[np.arange(len(obs)), acts].all()


def test_on_policy_log_probability_and_entropy_cover_the_legal_actions_only() -> None:
    agent = PpoConfig(hidden=(16,)).build(SPACES, 0)
    logits = torch.tensor([[1.0, 2.0, 3.0, 0.0]])
    legal = torch.tensor([[True, True, False, False]])
    act = torch.tensor([1])
    log_prob, entropy = agent._log_prob_entropy(torch.zeros(1, 16), logits, act, legal)
    # Hand values: the softmax of the legal logits (1, 2) is (0.26894, 0.73106), whose entropy is
    # 0.26894 * 1.31326 + 0.73106 * 0.31326 = 0.58220.
    assert log_prob.item() == pytest.approx(np.log(0.7310586), abs=1e-6)
    assert entropy.item() == pytest.approx(0.5822031, abs=1e-6)
    unmasked, _ = agent._log_prob_entropy(torch.zeros(1, 16), logits, act)
    assert unmasked.item() == pytest.approx(2.0 - np.log(np.exp([1.0, 2.0, 3.0, 0.0]).sum()), abs=1e-6)


def test_a_draw_near_the_top_of_the_cdf_never_lands_on_a_trailing_forbidden_action() -> None:
    """The inverse CDF: with the last actions forbidden, a uniform draw beyond the rounded cumulative sum of
    the legal ones must still pick the last legal action."""
    agent = PpoConfig(hidden=(16,)).build(SPACES, 0)
    agent.train()
    obs = np.tile(np.array([[1, 1, 0, 0, 0.0, 0.0, 0.0]], np.float32), (5000, 1))
    acts = np.stack(agent.sample_batch(list(obs)))
    assert set(acts.tolist()) <= {0, 1}
