"""The evaluator plays its episodes side by side (`border_py.evaluator`): each episode's return is the one
it has when the episodes are played one after another, bit for bit, because the numpy policy it acts
through computes every observation of a batch on its own."""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import attrs
import numpy as np
import pytest

from border_py.agents import DqnConfig, IqnConfig, PpoConfig, SacConfig, Td3Config
from border_py.base import Spaces
from border_py.envs import GymEnvConfig
from border_py.evaluator import DefaultEvaluator, DefaultEvaluatorConfig, GreedyPolicyMismatch, numpy_actor
from border_py.export import numpy_policy_of
from border_py.export.numpy_policy import Mlp
from border_py.testing import ConstantPolicy, CountingEnv


@pytest.mark.parametrize("activation", [False, True])
@pytest.mark.parametrize("sizes", [(4, 64, 64, 2), (3, 256, 256, 1), (17, 256, 256, 6), (8, 5)])
def test_a_row_of_a_batch_is_the_row_computed_alone(sizes: tuple[int, ...], activation: bool) -> None:
    rng = np.random.default_rng(sum(sizes))
    layers = [
        (rng.standard_normal((a, b)).astype(np.float32), rng.standard_normal(b).astype(np.float32))
        for a, b in itertools.pairwise(sizes)
    ]
    mlp = Mlp(layers, relu_out=False, tanh=activation)
    for n in (2, 5, 10, 64):
        x = rng.standard_normal((n, sizes[0])).astype(np.float32)
        batch = mlp(x)
        for i in range(n):
            assert np.array_equal(batch[i], mlp(x[i : i + 1])[0])
        assert np.array_equal(mlp(x[1:4]), batch[1:4])


def _agent(name: str) -> Any:
    box = Spaces(obs_shape=(3,), action_low=(-2.0,), action_high=(2.0,))
    discrete = Spaces(obs_shape=(4,), n_actions=3)
    configs: dict[str, tuple[Any, Spaces]] = {
        "dqn": (DqnConfig(), discrete),
        "dueling dqn": (DqnConfig(dueling=True), discrete),
        "iqn": (IqnConfig(), discrete),
        "sac": (SacConfig(actor_hidden=(32, 32)), box),
        "ppo": (PpoConfig(normalize_obs=True), box),
        "td3": (Td3Config(actor_hidden=(32, 32)), box),
    }
    config, spaces = configs[name]
    return config.build(spaces, 0)


@pytest.mark.parametrize("name", ["dqn", "dueling dqn", "iqn", "sac", "ppo", "td3"])
def test_an_exported_policy_acts_on_a_batch_as_on_each_observation(name: str) -> None:
    agent = _agent(name)
    agent.eval()
    assert numpy_actor(agent) is not None  # the evaluator's fast path is taken, not its fallback
    policy = numpy_policy_of(agent)
    obs = np.random.default_rng(1).standard_normal((12, agent.obs_dim)).astype(np.float32) * 3
    batch = policy.act(obs)
    for i in range(len(obs)):
        assert np.array_equal(batch[i], policy.act(obs[i]))
    if policy.discrete:
        assert np.array_equal(policy.values(obs)[5], policy.values(obs[5])[0])


def _evaluated(algo: str, env_id: str, envs: int, numpy_acting: bool = True) -> tuple[list[float], list[int]]:
    """Episodes of an untrained zoo-sized agent (its episodes differ one from another: a good test of
    which episode is which), 5 of them, over ``envs`` envs."""
    config = GymEnvConfig(name=env_id)
    env = config.build(seed=0)
    configs: dict[str, Any] = {"dqn": DqnConfig(), "sac": SacConfig(), "ppo": PpoConfig()}
    agent = configs[algo].build(env.spaces, 0)
    agent.eval()
    evaluator = DefaultEvaluatorConfig(n_episodes=5, envs=envs, numpy_acting=numpy_acting).build(
        env, make_env=lambda: config.build(seed=0)
    )
    try:
        return evaluator.episodes(agent)
    finally:
        evaluator.close()
        env.close()


@pytest.mark.parametrize(
    ("algo", "env_id"),
    [("dqn", "CartPole-v1"), ("ppo", "CartPole-v1"), ("sac", "Pendulum-v1"), ("ppo", "Pendulum-v1")],
)
def test_side_by_side_episodes_are_those_played_one_after_another(algo: str, env_id: str) -> None:
    one_by_one = _evaluated(algo, env_id, envs=1)
    assert len(set(one_by_one[0])) > 1  # the episodes differ: each must be matched to its own
    for envs in (2, 5):  # 2: an env plays several episodes, taking the next index as one ends
        assert _evaluated(algo, env_id, envs=envs) == one_by_one
    # Against the agent's own acting (torch): the same policy, so the same actions up to float rounding.
    # Discrete actions are the same; a box's differ in the last bits and their returns by as little.
    through_torch = _evaluated(algo, env_id, envs=1, numpy_acting=False)
    if algo == "dqn" or env_id == "CartPole-v1":
        assert through_torch == one_by_one
    else:
        assert through_torch[1] == one_by_one[1]
        np.testing.assert_allclose(through_torch[0], one_by_one[0], rtol=1e-6)


def test_the_evaluator_builds_the_envs_it_plays_side_by_side_once_and_closes_them() -> None:
    built: list[CountingEnv] = []

    def make_env() -> CountingEnv:
        built.append(CountingEnv(episode_length=3))
        return built[-1]

    # CountingEnv's observations are ints: the agent takes each as a row of one number.
    agent: Any = DqnConfig(hidden=(8,)).build(Spaces(obs_shape=(1,), n_actions=2), 0)
    agent.eval()
    first = CountingEnv(episode_length=3)
    evaluator = DefaultEvaluator(first, n_episodes=7, make_env=make_env, envs=3)
    played = []
    for _ in range(2):
        score, record = evaluator.evaluate(agent)
        assert (score, record["eval/episode_length"]) == (3.0, 3.0)
        played.append(sorted(ix for env in (first, *built) for ix in env.reset_indices))
        for env in (first, *built):
            env.reset_indices.clear()
    assert played == [list(range(7))] * 2  # every episode once, over the three envs
    assert len(built) == 2  # built at the first evaluation and kept; the first env is the caller's
    evaluator.close()
    assert all(env.closed for env in built)
    assert not first.closed


def test_a_policy_without_a_numpy_form_acts_through_its_own_sample_one_episode_after_another() -> None:
    assert numpy_actor(ConstantPolicy(0)) is None
    agent = DqnConfig(hidden=(8,)).build(Spaces(obs_shape=(1,), n_actions=2), 0)
    for p in agent.parts.net.net.parameters():
        p.data.fill_(float("nan"))  # a diverged network: no numpy policy (it refuses non-finite weights)
    assert numpy_actor(agent) is None

    def make_env() -> CountingEnv:
        raise AssertionError("no env is built for one-after-another episodes")

    env = CountingEnv(episode_length=2)
    score, _ = DefaultEvaluator(env, n_episodes=3, make_env=make_env).evaluate(ConstantPolicy(1))
    assert score == 2.0
    assert env.reset_indices == [0, 1, 2]
    assert env.actions == [1] * 6


@pytest.mark.parametrize("name", ["dqn", "dueling dqn", "iqn", "sac", "ppo", "td3"])
def test_the_fast_path_is_trusted_where_it_acts_as_the_agent_does(name: str) -> None:
    agent = _agent(name)
    agent.eval()
    actor = numpy_actor(agent)
    assert actor is not None
    obs = list(np.random.default_rng(2).standard_normal((5, agent.obs_dim)).astype(np.float32) * 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no GreedyPolicyMismatch
        acts = actor(obs)
    expected = np.stack([agent.sample(o) for o in obs])
    np.testing.assert_allclose(np.stack(acts).reshape(expected.shape), expected, rtol=1e-4, atol=1e-4)


class _LyingSac:
    """A SAC whose exported policy is the negation of its own: an agent whose greedy_policy() describes
    other arithmetic than its acting."""

    def __init__(self) -> None:
        self.agent = _agent("sac")
        self.device, self.obs_dim = self.agent.device, self.agent.obs_dim

    def greedy_policy(self) -> Any:
        parts = self.agent.greedy_policy()
        weight, bias = parts.layers[-1]
        return attrs.evolve(parts, layers=[*parts.layers[:-1], (-weight, -bias)])

    def sample(self, obs: Any) -> Any:
        return self.agent.sample(obs)


def test_an_exported_policy_that_acts_otherwise_is_not_trusted() -> None:
    lying = _LyingSac()
    lying.agent.eval()
    actor = numpy_actor(lying)
    assert actor is not None
    obs = list(np.full((3, 3), 2.0, np.float32))
    with pytest.warns(GreedyPolicyMismatch, match="_LyingSac.greedy_policy"):
        acts = actor(obs)
    assert all(np.array_equal(a, lying.agent.sample(o)) for a, o in zip(acts, obs, strict=True))
    assert np.array_equal(actor(obs)[0], lying.agent.sample(obs[0]))  # and stays on sample, with no warning


class _TiedDqn:
    """A DQN whose two first actions have the same value everywhere (their output rows equal), acting on
    the second where the exported argmax takes the first: a tie float32 rounding breaks either way."""

    def __init__(self, lie: float = 0.0) -> None:
        self.agent = _agent("dqn")
        self.device, self.obs_dim, self.lie = self.agent.device, self.agent.obs_dim, lie

    def greedy_policy(self) -> Any:
        parts = self.agent.greedy_policy()
        weight, bias = parts.layers[-1]
        weight, bias = weight.copy(), bias.copy()
        bias[0] += 50.0  # actions 0 and 1 tie, above the rest
        weight[:, 1], bias[1] = weight[:, 0], bias[0]
        bias[1] += self.lie
        return attrs.evolve(parts, layers=[*parts.layers[:-1], (weight, bias)])

    def sample(self, obs: Any) -> Any:
        return np.asarray(1 if self.lie == 0.0 else 0)  # the other side of the tie (the argmax takes 0)


def test_a_tie_broken_the_other_way_is_trusted_a_real_difference_is_not() -> None:
    obs = list(np.random.default_rng(3).standard_normal((4, 4)).astype(np.float32))
    tied = _TiedDqn()
    tied.agent.eval()
    actor = numpy_actor(tied)
    assert actor is not None
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # equal values: no GreedyPolicyMismatch
        assert [int(a) for a in actor(obs)] == [0, 0, 0, 0]
    apart = _TiedDqn(lie=0.5)  # action 1 above action 0 by 0.5: the agent's 0 is another choice
    apart.agent.eval()
    actor = numpy_actor(apart)
    assert actor is not None
    with pytest.warns(GreedyPolicyMismatch, match="_TiedDqn.greedy_policy"):
        actor(obs)
