"""The acting part of DQN, IQN and SAC across a process boundary (``SyncModel``)."""

from __future__ import annotations

import pickle
from collections.abc import Callable

import numpy as np
import pytest
import torch

from border_py.agents import Dqn, DqnConfig, EpsilonGreedyConfig, Iqn, IqnConfig, Sac, SacConfig
from border_py.base import Spaces

AGENTS: dict[str, Callable[[int], Dqn | Iqn | Sac]] = {
    "dqn": lambda seed: Dqn(
        DqnConfig(hidden=(16,), dueling=True), Spaces(obs_shape=(4,), n_actions=3), seed=seed
    ),
    "iqn": lambda seed: Iqn(
        IqnConfig(hidden=(16,), embed_dim=16, head_hidden=(16,)),
        Spaces(obs_shape=(4,), n_actions=3),
        seed=seed,
    ),
    "sac": lambda seed: Sac(
        SacConfig(actor_hidden=(16,), critic_hidden=(16,)),
        Spaces(obs_shape=(4,), action_low=-np.ones(2), action_high=np.ones(2)),
        seed=seed,
    ),
}


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_an_acting_copy_built_elsewhere_acts_as_the_learner_after_loading_its_state(name: str) -> None:
    learner, actor = AGENTS[name](0), AGENTS[name](1)
    with torch.no_grad():  # the learner has trained: its weights differ from any fresh copy's
        for p in (
            learner.parts.actor.net if isinstance(learner, Sac) else learner.parts.net.net
        ).parameters():
            p.add_(torch.randn_like(p))
    state = pickle.loads(pickle.dumps(learner.acting_state()))  # what crosses the process boundary
    # Weights as numpy arrays, counters (SAC's opt steps) as ints: nothing that drags torch along.
    arrays = [v for part in state.values() if isinstance(part, dict) for v in part.values()]
    assert arrays
    assert all(isinstance(v, np.ndarray) for v in arrays)
    assert all(isinstance(part, dict | int) for part in state.values())
    actor.load_acting_state(state, env_steps=0)
    learner.eval()
    actor.eval()
    obs = np.random.default_rng(0).normal(size=(50, 4)).astype(np.float32)
    for o in obs:
        np.testing.assert_array_equal(actor.sample(o), learner.sample(o))


def test_loading_copies_so_the_learner_training_on_does_not_change_the_actor() -> None:
    learner = Dqn(DqnConfig(hidden=(16,)), Spaces(obs_shape=(4,), n_actions=3), seed=0)
    actor = Dqn(DqnConfig(hidden=(16,)), Spaces(obs_shape=(4,), n_actions=3), seed=1)
    actor.load_acting_state(learner.acting_state(), env_steps=0)
    before = [p.clone() for p in actor.parts.net.net.parameters()]
    with torch.no_grad():
        for p in learner.parts.net.net.parameters():
            p.add_(1.0)
    assert all(torch.equal(a, b) for a, b in zip(actor.parts.net.net.parameters(), before, strict=True))


def test_epsilon_follows_the_runs_env_steps_over_all_actors() -> None:
    explorer = EpsilonGreedyConfig(eps_start=1.0, eps_final=0.0, final_step=100)
    learner = Dqn(DqnConfig(hidden=(8,), explorer=explorer), Spaces(obs_shape=(4,), n_actions=2), seed=0)
    actor = Dqn(DqnConfig(hidden=(8,), explorer=explorer), Spaces(obs_shape=(4,), n_actions=2), seed=1)
    actor.load_acting_state(learner.acting_state(), env_steps=75)
    assert actor.explorer.epsilon() == pytest.approx(0.25)  # type: ignore[union-attr]


def test_a_state_of_another_network_is_refused_naming_the_key() -> None:
    small = Dqn(DqnConfig(hidden=(8,)), Spaces(obs_shape=(4,), n_actions=2), seed=0)
    large = Dqn(DqnConfig(hidden=(16,)), Spaces(obs_shape=(4,), n_actions=2), seed=0)
    with pytest.raises(ValueError, match=r"net\.0\.weight has shape \(8, 4\), the network's is \(16, 4\)"):
        large.load_acting_state(small.acting_state(), env_steps=0)
