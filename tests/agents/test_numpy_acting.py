"""DQN's numpy acting path (`border_py.agents.toolkit.NumpyMlp`): the same actions as torch at every step of
a seeded run, parameters changing under it all the while."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from border_py.agents import Dqn, DqnConfig, EpsilonGreedyConfig, SoftmaxConfig
from border_py.envs import GymEnvConfig
from border_py.replay_buffer import SimpleReplayBufferConfig
from border_py.step_processor import SimpleStepProcessorConfig
from border_py.trainer import SyncSampler


class _Recording:
    """The agent's ``sample``, every action kept."""

    def __init__(self, agent: Dqn) -> None:
        self.agent, self.actions = agent, list[int]()

    def sample(self, obs: Any) -> Any:
        act = self.agent.sample(obs)
        self.actions.append(int(act))
        return act


def _seeded_run(
    numpy_acting: bool, steps: int = 1_500, explorer: EpsilonGreedyConfig | SoftmaxConfig | None = None
) -> tuple[list[int], Dqn]:
    """CartPole with an update every 2 env steps after 100: the Q-network changes between actions."""
    env = GymEnvConfig(name="CartPole-v1").build(seed=0)
    config = DqnConfig(
        hidden=(32, 32),
        batch_size=32,
        explorer=explorer or EpsilonGreedyConfig(final_step=300),
        numpy_acting=numpy_acting,
    )
    agent = Dqn(config, env.spaces, seed=0)
    assert (agent._numpy_values is not None) == numpy_acting
    buffer = SimpleReplayBufferConfig(capacity=2_000).build(seed=0)
    sampler = SyncSampler(env, SimpleStepProcessorConfig().build())
    policy = _Recording(agent)
    for step in range(steps):
        sampler.sample_and_push(policy, buffer)
        if step >= 100 and step % 2 == 0:
            agent.opt(buffer)
    return policy.actions, agent


def test_numpy_and_torch_acting_choose_the_same_action_at_every_step() -> None:
    with_numpy, fast = _seeded_run(numpy_acting=True)
    with_torch, slow = _seeded_run(numpy_acting=False)
    assert fast.opt_steps == slow.opt_steps == 700
    assert with_numpy == with_torch
    for a, b in zip(
        fast.parts.net.net.state_dict().values(), slow.parts.net.net.state_dict().values(), strict=True
    ):
        assert torch.equal(a, b)  # the same actions, so the same learning, bit for bit
    fast.eval()
    slow.eval()
    states = np.random.default_rng(1).standard_normal((2_000, 4)).astype(np.float32)
    assert [int(fast.sample(s)) for s in states] == [int(slow.sample(s)) for s in states]


def test_the_numpy_path_follows_loaded_and_replaced_parameters(tmp_path: Path) -> None:
    _, trained = _seeded_run(numpy_acting=True, steps=300)
    trained.save_params(tmp_path)
    agent = Dqn(trained.config, GymEnvConfig(name="CartPole-v1").build(seed=0).spaces, seed=5)
    states = np.random.default_rng(2).standard_normal((500, 4)).astype(np.float32)

    def numpy_and_torch_values() -> tuple[np.ndarray, np.ndarray]:
        with torch.no_grad():
            expected = agent.parts.net.net(torch.from_numpy(states)).numpy()
        return agent._values_of(states, len(states)).numpy(), expected

    before, _ = numpy_and_torch_values()
    agent.load_params(tmp_path)  # copied into the parameters in place: the views see it
    acted, expected = numpy_and_torch_values()
    assert np.abs(acted - before).max() > 1e-2  # the loaded network is another one
    np.testing.assert_allclose(acted, expected, atol=1e-5)
    first = agent.parts.net.net.net[0]
    assert isinstance(first, torch.nn.Linear)
    first.weight.data = -first.weight.data.clone()  # new storage: the views are taken again
    acted, expected = numpy_and_torch_values()
    np.testing.assert_allclose(acted, expected, atol=1e-5)


def test_softmax_exploration_through_numpy_draws_the_same_actions() -> None:
    softmax = SoftmaxConfig(temperature=0.5)
    with_numpy, fast = _seeded_run(numpy_acting=True, steps=600, explorer=softmax)
    with_torch, slow = _seeded_run(numpy_acting=False, steps=600, explorer=softmax)
    assert with_numpy == with_torch
    assert fast.explorer.state_dict()["rng"] == slow.explorer.state_dict()["rng"]


def test_numpy_argmax_is_torch_argmax_on_ties_nans_and_infinities() -> None:
    """The numpy acting path takes numpy's argmax where the general path takes torch's."""
    rows = [
        [1.0, 1.0],
        [0.0, -0.0],
        [-0.0, 0.0],
        [np.nan, 1.0],
        [1.0, np.nan],
        [np.nan, np.nan],
        [-np.inf, -np.inf],
        [np.inf, np.inf],
        [2.0, np.inf, np.nan, np.inf],
        [3.0, 5.0, 5.0, 1.0],
    ]
    rng = np.random.default_rng(0)
    rows += rng.integers(-2, 3, (500, 4)).astype(np.float32).tolist()  # many ties
    for row in rows:
        q = np.array(row, np.float32)
        assert int(q.argmax()) == int(torch.from_numpy(q).argmax()), row


def test_the_numpy_path_follows_a_parameter_replaced_in_the_module() -> None:
    agent = Dqn(DqnConfig(hidden=(16,)), GymEnvConfig(name="CartPole-v1").build(seed=0).spaces, seed=0)
    states = np.random.default_rng(3).standard_normal((200, 4)).astype(np.float32)
    last = agent.parts.net.net.net[-1]
    assert isinstance(last, torch.nn.Linear)
    last.weight = torch.nn.Parameter(-last.weight.detach().clone())  # a new Parameter, not new storage
    with torch.no_grad():
        expected = agent.parts.net.net(torch.from_numpy(states)).numpy()
    np.testing.assert_allclose(agent._values_of(states, len(states)).numpy(), expected, atol=1e-5)
    agent.eval()
    assert [int(agent.sample(s)) for s in states] == expected.argmax(axis=1).tolist()
