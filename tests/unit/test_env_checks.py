"""The env checks' fast paths (`border_py.envs.checks`) decide as the general checks do: the same values
through, the same refusals with the same messages."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from border_py.envs.checks import (
    all_finite,
    checked_action,
    checked_flag,
    checked_obs,
    checked_reward,
    discrete_action_check,
)

_BIG = np.float32(3.4e38)  # finite


@pytest.mark.parametrize(
    "x",
    [
        np.zeros(4, np.float32),
        np.array([1.0, -2.0, 0.5, 1e-45], np.float32),
        np.full(32, _BIG),  # the largest finite float32s: a float64 sum of 32 stays finite
        np.array([_BIG, -_BIG, 1.0], np.float32),
        np.array([np.nan, 0.0], np.float32),
        np.array([0.0, np.inf], np.float32),
        np.array([-np.inf, np.inf], np.float32),  # inf + -inf is NaN, not 0
        np.array([_BIG, np.nan], np.float32),
        np.zeros(0, np.float32),
        np.arange(12, dtype=np.float32)[::3],  # not contiguous
        np.array([np.inf] + [0.0] * 40, np.float32),  # the numpy path, above 32 components
        np.zeros((4, 3), np.float32),
        np.full((2, 2), np.nan, np.float32),
        np.array(np.inf, np.float32),  # 0-d
    ],
)
def test_all_finite_agrees_with_the_elementwise_check(x: np.ndarray) -> None:
    assert all_finite(x) == bool(np.isfinite(x).all())


def test_all_finite_agrees_on_random_arrays_with_planted_nans_and_infinities() -> None:
    rng = np.random.default_rng(0)
    for _ in range(1_000):
        x = (rng.standard_normal(int(rng.integers(1, 40))) * 10.0 ** rng.integers(-40, 39)).astype(np.float32)
        if rng.random() < 0.5:
            x[rng.integers(len(x), size=int(rng.integers(1, 3)))] = rng.choice([np.nan, np.inf, -np.inf])
        assert all_finite(x) == bool(np.isfinite(x).all())


def test_a_float32_observation_is_passed_through_and_a_bad_one_refused_as_before() -> None:
    obs = np.array([0.1, 0.2, 0.3, 0.4], np.float32)
    assert checked_obs(obs, (4,), "E", "observation", 3) is obs  # no copy of a float32 observation
    with pytest.raises(ValueError, match=r"^E: observation at env step 3 is not finite \(as float32\)"):
        checked_obs(np.array([0.0, np.nan, 0.0, 0.0], np.float32), (4,), "E", "observation", 3)
    with pytest.raises(ValueError, match=r"^E: observation at env step 3 has shape \(3,\), but the obs"):
        checked_obs(np.zeros(3, np.float32), (4,), "E", "observation", 3)
    big = np.full(4, _BIG)
    assert np.array_equal(checked_obs(big, (4,), "E", "observation", 3), big)


@pytest.mark.parametrize(
    "reward", [1.0, -0.5, 0.0, 3.0e38, 7, np.float64(1.5), np.float32(2.0), np.array(0.25)]
)
def test_rewards_come_out_as_the_float_they_are(reward: Any) -> None:
    value = checked_reward(reward, "E", 1)
    assert type(value) is float
    assert value == float(reward)


@pytest.mark.parametrize("reward", [float("nan"), float("inf"), -1e39, np.float64("nan")])
def test_a_reward_not_finite_as_float32_is_refused_with_its_step(reward: Any) -> None:
    with pytest.raises(ValueError, match=r"^E: reward at env step 9 is not finite as a float32"):
        checked_reward(reward, "E", 9)


@pytest.mark.parametrize(
    ("flag", "expected"),
    [
        (True, True),
        (False, False),
        (np.True_, True),
        (np.False_, False),
        (1, True),
        (0, False),
        (np.array(1), True),
    ],
)
def test_flags_come_out_as_bools(flag: Any, expected: bool) -> None:
    out = checked_flag(flag, "E", "terminated", 1)
    assert type(out) is bool
    assert out is expected


@pytest.mark.parametrize("flag", [2, None, "yes", np.array([True])])
def test_a_flag_that_is_not_a_bool_is_refused(flag: Any) -> None:
    with pytest.raises(ValueError, match=r"^E: terminated at env step 4 must be a bool, got "):
        checked_flag(flag, "E", "terminated", 4)


@pytest.mark.parametrize(
    "space", [gym.spaces.Discrete(2), gym.spaces.Discrete(3, start=-1), gym.spaces.Discrete(5_000, start=-2)]
)
def test_the_discrete_action_check_takes_and_refuses_what_the_space_does(space: gym.spaces.Discrete) -> None:
    check = discrete_action_check(space, "E")
    acts: list[Any] = [np.array(a) for a in range(-3, 4)] + [np.float32(1.7), 1]
    for act in acts:
        a = int(act)
        if space.contains(np.int64(a)):
            out = check(act)
            assert type(out) is np.int64
            assert out == a
            assert checked_action(space, act, "E", clip=False) == out
        else:
            with pytest.raises(ValueError, match=rf"^E: action {a} outside Discrete\({space.n}\)$"):
                check(act)
