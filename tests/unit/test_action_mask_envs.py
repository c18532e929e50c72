"""Masks an env gives in ``info`` or by an ``action_masks()`` method, moved into the observation's
``action_mask`` part (`border_py.envs.action_masks`), for one env and a vector env."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from border_py.envs import GymEnvConfig, GymVecEnvConfig


class _InfoMasks(gym.Env[Any, Any]):
    """A Box observation and 3 actions, action ``t % 3`` forbidden at step ``t``; the mask in ``info``."""

    def __init__(self, give: bool = True) -> None:
        self.observation_space = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
        self.action_space = gym.spaces.Discrete(3)
        self.give, self.t = give, 0

    def _info(self) -> dict[str, Any]:
        mask = np.ones(3, np.int8)
        mask[self.t % 3] = 0
        return {"action_mask": mask} if self.give else {}

    def reset(self, *, seed: int | None = None, options: Any = None) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        self.t = 0
        return np.zeros(2, np.float32), self._info()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        self.t += 1
        return np.full(2, 0.5, np.float32), 0.0, False, self.t >= 5, self._info()


@pytest.fixture(scope="module", autouse=True)
def _registered() -> Any:
    gym.register("test/InfoMasks-v0", entry_point=lambda **kwargs: _InfoMasks(**kwargs))
    yield
    gym.registry.pop("test/InfoMasks-v0")


def test_a_mask_in_info_becomes_the_observations_action_mask_part() -> None:
    env = GymEnvConfig(name="test/InfoMasks-v0", action_mask="info").build(seed=0)
    assert env.spaces.obs_parts is not None
    assert env.spaces.obs_parts.keys == ("action_mask", "observation")
    assert env.spaces.action_mask == slice(0, 3)
    assert env.reset().tolist() == [0, 1, 1, 0, 0]
    step, _ = env.step(np.array(1))
    assert step.obs.tolist() == [1, 0, 1, 0.5, 0.5]


def test_an_action_masks_method_is_read_in_every_sub_env() -> None:
    config = GymVecEnvConfig(
        name="border_py/PickDistinct-v0", num_envs=2, kwargs={"masked": False}, action_mask="method"
    )
    env = config.build(seed=0)
    assert env.spaces.action_mask == slice(0, 8)
    env.reset()
    steps, _ = env.step([np.array(3), np.array(5)])
    assert [s.obs[:8].tolist() for s in steps] == [
        [1, 1, 1, 0, 1, 1, 1, 1],
        [1, 1, 1, 1, 1, 0, 1, 1],
    ]
    assert config.evaluation().action_mask == "method"
    env.close()


def test_a_missing_mask_or_a_box_action_is_refused_naming_the_env_and_field() -> None:
    with pytest.raises(ValueError, match="test/InfoMasks-v0: its info has no 'action_mask'"):
        GymEnvConfig(name="test/InfoMasks-v0", kwargs={"give": False}, action_mask="info").build(0).reset()
    with pytest.raises(ValueError, match=r"CartPole-v1 has no action_masks\(\)"):
        GymEnvConfig(name="CartPole-v1", action_mask="method").build(0).reset()
    with pytest.raises(TypeError, match=r"Pendulum-v1: env\.action_mask: action masks are for discrete"):
        GymEnvConfig(name="Pendulum-v1", action_mask="info").build(0)
    with pytest.raises(TypeError, match=r"^Pendulum-v1: env\.action_mask: action masks are for discrete"):
        # each sub-env of a vector env refuses it alike, not as a refusal of the env's kwargs
        GymVecEnvConfig(name="Pendulum-v1", num_envs=2, action_mask="info").build(0)
    with pytest.raises(TypeError, match="has an 'action_mask' part already"):
        GymEnvConfig(name="border_py/PickDistinct-v0", action_mask="method").build(0)
    with pytest.raises(ValueError, match="'action_mask' must be in"):
        GymEnvConfig(name="CartPole-v1", action_mask="obs")  # type: ignore[arg-type]
