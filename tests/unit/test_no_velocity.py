"""The velocity-free classic-control envs (`border_py.envs.no_velocity`): each id against its base env
under the same seed and actions, their spaces and episode limits, and the ids built through border_py's
adapters."""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import border_py.envs
from border_py.envs.gym_vector import GymVecEnvConfig
from border_py.envs.no_velocity import VELOCITY_INDICES, _register

IDS = sorted(VELOCITY_INDICES)


def _time_limits(env: gym.Env[Any, Any]) -> list[int]:
    """The ``max_episode_steps`` of every TimeLimit wrapper around ``env``, outermost first."""
    limits = []
    while isinstance(env, gym.Wrapper):
        if isinstance(env, gym.wrappers.TimeLimit):
            limits.append(env._max_episode_steps)
        env = env.env
    return limits


@pytest.mark.parametrize("name", IDS)
def test_observations_are_the_base_envs_with_the_velocities_zeroed(name: str) -> None:
    base_id, masked = VELOCITY_INDICES[name]
    env, base = gym.make(name), gym.make(base_id)
    kept = [i for i in range(base.observation_space.shape[0]) if i not in masked]  # type: ignore[index]
    base.action_space.seed(0)
    obs, _ = env.reset(seed=0)
    expected, _ = base.reset(seed=0)
    hidden = False
    for _ in range(30):
        hidden |= bool(expected[list(masked)].any())
        assert obs.dtype == np.float32
        assert obs.shape == expected.shape
        assert (obs[list(masked)] == 0).all()
        assert (obs[kept] == expected[kept]).all()
        action = base.action_space.sample()
        obs, reward, terminated, truncated, _ = env.step(action)
        expected, base_reward, base_terminated, base_truncated, _ = base.step(action)
        assert (reward, terminated, truncated) == (base_reward, base_terminated, base_truncated)
        if terminated or truncated:
            break
    assert hidden  # a velocity the mask really hid (MountainCar's starts at 0)


@pytest.mark.parametrize("name", IDS)
def test_spaces_and_episode_limit_are_the_base_ids(name: str) -> None:
    base_id, _ = VELOCITY_INDICES[name]
    env, base = gym.make(name), gym.make(base_id)
    assert env.observation_space == base.observation_space
    assert env.action_space == base.action_space
    limit = gym.spec(base_id).max_episode_steps
    assert gym.spec(name).max_episode_steps == limit
    assert _time_limits(env) == _time_limits(base) == [limit]


def test_an_episode_limit_given_replaces_the_base_ids() -> None:
    """One TimeLimit, the one asked for: a longer limit is not cut short by the base id's 200."""
    env = gym.make("border_py/PendulumNoVel-v1", max_episode_steps=250)
    env.reset(seed=0)
    steps, truncated = 0, False
    while not truncated:
        _, _, _, truncated, _ = env.step(np.zeros(1, np.float32))
        steps += 1
    assert steps == 250
    assert _time_limits(env) == [250]


def test_registering_again_changes_nothing() -> None:
    spec = gym.spec("border_py/CartPoleNoVel-v1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Gymnasium warns when an id is registered over
        _register()
    assert gym.spec("border_py/CartPoleNoVel-v1") is spec


def test_border_pys_adapters_build_the_ids() -> None:
    env = border_py.envs.GymEnvConfig(name="border_py/CartPoleNoVel-v1").build(seed=0)
    assert env.spaces.obs_shape == (4,)
    assert env.n_actions == 2
    obs = env.reset()
    assert obs.dtype == np.float32
    assert (obs[[1, 3]] == 0).all()
    assert obs[[0, 2]].any()
    step, _ = env.step(np.array(1, np.int64))
    assert (step.obs[[1, 3]] == 0).all()
    vec = GymVecEnvConfig(name="border_py/PendulumNoVel-v1", num_envs=2).build(seed=0)
    assert all(o[2] == 0 and o[:2].any() for o in vec.reset())
