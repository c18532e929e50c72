"""GymEnv: the Gymnasium adapter."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from border_py import GymEnvConfig
from border_py.config import MAX_EPISODE_STEPS
from border_py.envs import AtariEnvConfig, GymVecEnvConfig


def test_cartpole_float32_obs_and_seeded_first_reset() -> None:
    a = GymEnvConfig(name="CartPole-v1").build(seed=3)
    b = GymEnvConfig(name="CartPole-v1").build(seed=3)
    obs = a.reset()
    assert obs.dtype == np.float32
    assert obs.shape == (4,)
    assert np.array_equal(obs, b.reset())
    assert a.obs_dim == 4
    assert a.n_actions == 2


def test_reset_with_index_gives_the_same_episode_start() -> None:
    env = GymEnvConfig(name="CartPole-v1").build(seed=0)
    first = env.reset_with_index(5)
    env.reset_with_index(6)
    assert np.array_equal(env.reset_with_index(5), first)


def test_truncation_at_time_limit_records_the_episode_and_resets() -> None:
    env = GymEnvConfig(name="Pendulum-v1", max_episode_steps=3).build(seed=0)
    env.reset()
    steps = [env.step(np.zeros(1, np.float32)) for _ in range(3)]
    last, record = steps[-1]
    assert [s.is_truncated for s, _ in steps] == [False, False, True]
    assert not any(s.is_terminated for s, _ in steps)
    assert last.init_obs is not None
    assert not np.array_equal(last.init_obs, last.obs)
    assert record["env/episode_length"] == 3.0
    assert record["env/episode_return"] == pytest.approx(sum(s.reward for s, _ in steps))
    assert not steps[0][1]


def test_termination_is_kept_apart_from_truncation() -> None:
    env = GymEnvConfig(name="CartPole-v1").build(seed=0)
    env.reset()
    while True:
        step, _ = env.step(np.array(0))
        if step.is_terminated or step.is_truncated:
            break
    assert step.is_terminated
    assert not step.is_truncated
    assert step.init_obs is not None


@pytest.mark.parametrize(
    ("name", "act"), [("CartPole-v1", np.array(2)), ("Pendulum-v1", np.array([3.0], np.float32))]
)
def test_action_outside_the_space_is_refused(name: str, act: np.ndarray) -> None:
    env = GymEnvConfig(name=name).build(seed=0)
    env.reset()
    with pytest.raises(ValueError, match="outside"):
        env.step(act)


class _NanEnv(gym.Env[np.ndarray, int]):
    """Its second observation component is NaN after the first step."""

    def __init__(self) -> None:
        self.observation_space = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
        self.action_space = gym.spaces.Discrete(2)  # type: ignore[assignment]  # gymnasium types it Space[int]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        return np.zeros(2, np.float32), {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        return np.array([0.0, np.nan], np.float32), 0.0, False, False, {}


def test_nan_observation_names_the_env_step() -> None:
    gym.register(id="BorderPyNanTest-v0", entry_point=lambda **_: _NanEnv(), disable_env_checker=True)
    try:
        env = GymEnvConfig(name="BorderPyNanTest-v0").build(seed=0)
        env.reset()
        with pytest.raises(ValueError, match="observation at env step 1 is not finite"):
            env.step(np.array(0))
    finally:
        del gym.registry["BorderPyNanTest-v0"]


def test_non_box_observation_space_is_refused() -> None:
    with pytest.raises(TypeError, match="only Box and Dict observation spaces are supported"):
        GymEnvConfig(name="FrozenLake-v1").build(seed=0)


class _BadOutputEnv(gym.Env[np.ndarray, int]):
    """Declares observations of shape (4,); after reset, each step returns ``obs``, ``reward`` and
    ``terminated``."""

    def __init__(self, obs: Any, reward: Any, terminated: Any = False) -> None:
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (4,), np.float64)
        self.action_space = gym.spaces.Discrete(2)  # type: ignore[assignment]  # gymnasium types it Space[int]
        self._obs, self._reward, self._terminated = obs, reward, terminated

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        return np.zeros(4), {}

    def step(self, action: int) -> tuple[Any, Any, Any, bool, dict[str, Any]]:
        return self._obs, self._reward, self._terminated, False, {}


@pytest.mark.parametrize(
    ("obs", "reward", "match"),
    [
        (
            np.zeros(4),
            1e39,
            r"reward at env step 1 is not finite as a float32 \(the replay buffer's type\): 1e\+39",
        ),
        (
            np.zeros(5),
            0.0,
            r"observation at env step 1 has shape \(5,\), but the observation space declares \(4,\)",
        ),
        (
            np.float64(0.5),
            0.0,
            r"observation at env step 1 has shape \(\), but the observation space declares \(4,\)",
        ),
        (np.zeros((1, 4)), 0.0, r"has shape \(1, 4\), but the observation space declares \(4,\)"),
        (np.full(4, 1e39), 0.0, r"observation at env step 1 is not finite \(as float32\)"),
        # An int beyond every float: OverflowError escaped float().
        (np.zeros(4), 10**400, r"reward at env step 1 is not finite as a float32 .*: 1000000000000"),
        (np.zeros(4), "1.5", r"reward at env step 1 must be a real number, got str '1\.5'"),
        (np.zeros(4), None, r"reward at env step 1 must be a real number, got NoneType None"),
        (np.zeros(4), 1 + 2j, r"reward at env step 1 must be a real number, got complex \(1\+2j\)"),
        (np.zeros(4), np.zeros(2), r"reward at env step 1 must be a real number, got ndarray"),
        (np.array(["a"] * 4), 0.0, r"observation at env step 1 is not numeric \(dtype <U1\)"),
        (
            np.zeros(4),
            0.0,
            r"terminated at env step 1 must be a bool, got ndarray array\(\[ True, False\]\)",
        ),
    ],
)
def test_bad_env_output_is_refused_at_the_step_showing_actual_and_expected(
    obs: Any, reward: Any, match: str
) -> None:
    terminated = np.array([True, False]) if "terminated" in match else False
    gym.register(
        id="BorderPyBadOutput-v0",
        entry_point=lambda **_: _BadOutputEnv(obs, reward, terminated),
        disable_env_checker=True,
    )
    try:
        env = GymEnvConfig(name="BorderPyBadOutput-v0").build(seed=0)
        env.reset()
        with pytest.raises(ValueError, match=match):
            env.step(np.array(0))
    finally:
        del gym.registry["BorderPyBadOutput-v0"]


def test_a_reward_gymnasiums_checker_cannot_read_is_one_error_naming_the_env() -> None:
    """With Gymnasium's env checker on (gym.make's default), 10**400 made it raise a TypeError from
    numpy, which escaped as a traceback from inside Gymnasium."""
    gym.register(id="BorderPyHugeReward-v0", entry_point=lambda **_: _BadOutputEnv(np.zeros(4), 10**400))
    try:
        env = GymEnvConfig(name="BorderPyHugeReward-v0").build(seed=0)
        env.reset()
        with pytest.raises(
            ValueError, match=r"BorderPyHugeReward-v0: Gymnasium's env checker could not read env step 1"
        ):
            env.step(np.array(0))
    finally:
        del gym.registry["BorderPyHugeReward-v0"]


def test_an_unknown_env_or_refused_kwargs_name_the_field() -> None:
    with pytest.raises(ValueError, match=r"env name 'NoSuchEnv-v0'"):
        GymEnvConfig(name="NoSuchEnv-v0").build(seed=0)
    with pytest.raises(ValueError, match=r"env kwargs \{'gravity': 3\} are not accepted by CartPole-v1"):
        GymEnvConfig(name="CartPole-v1", kwargs={"gravity": 3}).build(seed=0)


def test_an_episode_limit_an_evaluation_could_not_finish_is_refused_naming_the_field() -> None:
    """``10**12`` (inside int64) was taken: Pendulum never ends an episode on its own, and the first
    evaluation stepped for ever, a stop signal waiting on it."""
    assert GymEnvConfig(name="Pendulum-v1", max_episode_steps=MAX_EPISODE_STEPS).max_episode_steps
    says = r"'max_episode_steps' must be in \[1, 1,000,000\], got 1,000,000,000,000: an evaluation"
    with pytest.raises(ValueError, match=says):
        GymEnvConfig(name="Pendulum-v1", max_episode_steps=10**12)
    with pytest.raises(ValueError, match=says):
        GymVecEnvConfig(name="Pendulum-v1", num_envs=2, max_episode_steps=10**12)
    with pytest.raises(ValueError, match=r"'max_episode_frames' must be in \[1, 1,000,000\], got 0"):
        AtariEnvConfig(game="pong", max_episode_frames=0)
    with pytest.raises(ValueError, match=r"'max_episode_frames' must be in \[1, 1,000,000\]"):
        AtariEnvConfig(game="pong", max_episode_frames=10**12)


@pytest.mark.parametrize(
    ("key", "inner", "value", "says"),
    [
        ("np_random", "state", -1, "episode_start.np_random is not a PCG64 state"),
        ("action_space", "inc", 2**200, "episode_start.action_space is not a PCG64 state"),
        ("env_steps", None, -3, r"episode_start.env_steps must be a whole number in \[0, 2\*\*63 - 1\]"),
        ("seed", None, 10**30, r"episode_start.seed must be a whole number"),
    ],
    ids=["np_random", "action_space", "env_steps", "seed"],
)
def test_a_damaged_episode_start_is_refused_naming_the_field_and_changes_nothing(
    key: str, inner: str | None, value: int, says: str
) -> None:
    """Issue 53: numpy's OverflowError escaped for an RNG number it cannot hold; counts were not checked."""
    env = GymEnvConfig(name="CartPole-v1").build(seed=0)
    env.reset()
    env.step(np.array(0))
    env.reset()  # a reset from the env's RNG: the saved start holds its state
    state = env.episode_start_state()
    before = env.env.unwrapped.np_random.bit_generator.state, env.action_space.np_random.bit_generator.state
    if inner is None:
        state[key] = value
    else:
        state[key] = {**state[key], "state": {**state[key]["state"], inner: value}}
    with pytest.raises(ValueError, match=f"CartPole-v1: {says}"):
        env.restore_episode_start(state)
    after = env.env.unwrapped.np_random.bit_generator.state, env.action_space.np_random.bit_generator.state
    assert after == before
