"""Dict observations: the parts' flat layout (`ObsParts`), the spaces the envs accept, and `GymEnv` /
`GymVecEnv` handing agents the flat vector, with every refusal naming the key."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from border_py.base.obs_parts import ObsPart, ObsParts
from border_py.base.spaces import Spaces
from border_py.envs.checks import supported_spaces
from border_py.envs.goal_envs import PointGoalEnv
from border_py.envs.gym_vector import GymVecEnvConfig
from border_py.envs.gymnasium import GymEnvConfig

PARTS = ObsParts.of({"pos": (2,), "grid": (2, 3), "t": ()})


def test_parts_are_laid_side_by_side_in_order_and_read_back_as_views() -> None:
    obs = {"t": 7.0, "grid": np.arange(6).reshape(2, 3), "pos": np.array([0.5, -0.5])}
    flat = PARTS.flatten(obs)
    assert flat.dtype == np.float32
    assert flat.tolist() == [0.5, -0.5, 0, 1, 2, 3, 4, 5, 7.0]
    assert PARTS.dim == 9
    assert PARTS.span("grid") == slice(2, 8)
    grid = PARTS.part(flat, "grid")
    assert grid.shape == (2, 3)
    assert np.shares_memory(grid, flat)
    batch = PARTS.flatten({k: np.stack([np.asarray(v)] * 3) for k, v in obs.items()}, lead=(3,))
    assert batch.shape == (3, 9)
    assert (batch == flat).all()
    assert PARTS.part(batch, "t").shape == (3,)
    assert (PARTS.flatten_one_or_batch(obs) == flat).all()
    stacked = {k: np.stack([np.asarray(v)] * 3) for k, v in obs.items()}
    assert PARTS.flatten_one_or_batch(stacked).shape == (3, 9)


@pytest.mark.parametrize(
    ("obs", "message"),
    [
        ({"pos": [0, 0], "grid": np.zeros((2, 3))}, "has no key 't'"),
        ({"pos": [0, 0], "grid": np.zeros((2, 3)), "t": 0, "x": 1}, "a key 'x' the space does not declare"),
        ({"pos": [0, 0, 0], "grid": np.zeros((2, 3)), "t": 0}, r"part 'pos' has shape \(3,\).*\(2,\)"),
        ({"pos": ["a", "b"], "grid": np.zeros((2, 3)), "t": 0}, "part 'pos' is not numeric"),
        (np.zeros(9), "must be a mapping"),
    ],
)
def test_a_bad_dict_observation_is_refused_naming_the_key(obs: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PARTS.flatten(obs)


def test_bad_layouts_and_spaces_are_refused() -> None:
    with pytest.raises(ValueError, match="distinct"):
        ObsParts.of({"a": (1,), "": (1,)})
    with pytest.raises(ValueError, match="sizes > 0"):
        ObsParts.of({"a": (0,)})
    with pytest.raises(KeyError, match="no dict observation part 'b'"):
        PARTS.span("b")
    with pytest.raises(ValueError, match=r"must be \(9,\)"):
        Spaces(obs_shape=(8,), n_actions=2, obs_parts=PARTS)


def test_dict_spaces_of_box_and_multibinary_parts_are_taken_and_the_rest_refused() -> None:
    box, act = gym.spaces.Box(-1, 1, (2,)), gym.spaces.Discrete(2)
    parts = supported_spaces("E", gym.spaces.Dict({"b": box, "a": gym.spaces.MultiBinary(3)}), act)
    assert parts is not None
    assert parts.keys == ("a", "b")
    assert parts.dim == 5
    assert supported_spaces("E", box, act) is None
    with pytest.raises(TypeError, match="part 'n' is a Discrete"):
        supported_spaces("E", gym.spaces.Dict({"n": act}), act)
    image = gym.spaces.Box(0, 255, (3, 8, 8), np.uint8)  # taken, marked: tests/unit/test_multi_input.py
    camera = supported_spaces("E", gym.spaces.Dict({"camera": image}), act)
    assert camera is not None
    assert camera.images == (ObsPart("camera", (3, 8, 8), image=True),)
    with pytest.raises(TypeError, match="Box and Dict observation spaces"):
        supported_spaces("E", gym.spaces.Tuple((box,)), act)


def test_gym_env_hands_agents_the_parts_laid_flat() -> None:
    env = GymEnvConfig(name="border_py/PointGoal-v0").build(seed=0)
    spaces = env.spaces
    assert spaces.obs_parts is not None
    assert spaces.obs_parts.keys == ("achieved_goal", "desired_goal", "observation")
    assert spaces.obs_shape == (6,)
    assert env.obs_dim == 6
    raw = PointGoalEnv()
    expected, _ = raw.reset(seed=0)
    obs = env.reset()
    assert obs.tolist() == [*expected["achieved_goal"], *expected["desired_goal"], *expected["observation"]]
    step, _ = env.step(np.zeros(2, np.float32))
    assert step.obs.shape == (6,)
    assert (spaces.obs_parts.part(step.obs, "desired_goal") == obs[2:4]).all()


class _DropsGoal(gym.ObservationWrapper[Any, Any, Any]):
    """Drops ``desired_goal`` from its ``at``-th observation on (0: the first reset's)."""

    def __init__(self, env: gym.Env[Any, Any], at: int) -> None:
        super().__init__(env)
        self.at, self.seen = at, 0

    def observation(self, observation: Any) -> Any:
        self.seen += 1
        if self.seen <= self.at:
            return observation
        return {k: v for k, v in observation.items() if k != "desired_goal"}


@pytest.mark.parametrize("at", [0, 1, 3])
def test_an_env_whose_dict_observation_lacks_a_key_is_refused_naming_the_env_and_key(at: int) -> None:
    """The first reset and step are checked by Gymnasium's passive checker (an assertion), the rest by
    border_py's."""
    name = f"test/DropsGoal{at}-v0"
    gym.register(name, entry_point=lambda **_: _DropsGoal(PointGoalEnv(), at), max_episode_steps=50)
    env = GymEnvConfig(name=name).build(seed=0)

    def play() -> None:
        env.reset()
        for _ in range(at):
            env.step(np.zeros(2, np.float32))

    with pytest.raises(ValueError, match=f"{name}: .*(no key 'desired_goal'|keys is not same)"):
        play()
    gym.registry.pop(name)


def test_a_vector_env_lays_out_each_sub_envs_observation_and_final_observation() -> None:
    env = GymVecEnvConfig(name="border_py/PointGoal-v0", num_envs=3, max_episode_steps=4).build(seed=0)
    obs = env.reset()
    assert len(obs) == 3
    assert all(o.shape == (6,) for o in obs)
    for _ in range(4):
        steps, records = env.step([np.zeros(2, np.float32)] * 3)
    assert all(s.is_truncated and s.obs.shape == (6,) and s.init_obs is not None for s in steps)
    assert len(records) == 3
    # A zero action keeps the point still: the final observation is the episode's first.
    assert all((s.obs == o).all() for s, o in zip(steps, obs, strict=True))
    env.close()
