"""The samples-per-insert rate limiter and the async config's tolerance."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from border_py.distributed import AsyncConfig, RateLimiter


def test_the_learner_takes_exactly_the_opt_steps_the_inserted_env_steps_call_for() -> None:
    limiter = RateLimiter(opt_interval=4, tolerance=3)
    assert limiter.opts_allowed(env_steps=100, opt_steps=0, warmup_end=100) == 0  # the warm-up
    assert limiter.opts_allowed(env_steps=103, opt_steps=0, warmup_end=100) == 0
    assert limiter.opts_allowed(env_steps=104, opt_steps=0, warmup_end=100) == 1
    assert limiter.opts_allowed(env_steps=140, opt_steps=8, warmup_end=100) == 2
    assert limiter.opts_allowed(env_steps=140, opt_steps=12, warmup_end=100) == 0


def test_actors_wait_when_the_inserted_and_in_flight_steps_run_more_than_tolerance_ahead() -> None:
    limiter = RateLimiter(opt_interval=4, tolerance=3)
    assert limiter.may_insert(env_steps=0, in_flight=64, steps=64, opt_steps=0, warmup_end=1000)  # warm-up
    # 1,000 + 8 + 4 env steps call for 3 opt steps: allowed with none taken; 16 more call for 4: not.
    assert limiter.may_insert(env_steps=1000, in_flight=8, steps=4, opt_steps=0, warmup_end=1000)
    assert not limiter.may_insert(env_steps=1000, in_flight=8, steps=8, opt_steps=0, warmup_end=1000)
    assert limiter.may_insert(env_steps=1000, in_flight=8, steps=8, opt_steps=1, warmup_end=1000)


@given(
    opt_interval=st.integers(1, 8),
    actor_steps=st.integers(1, 100),
    n_actors=st.integers(1, 4),
    warmup=st.integers(0, 50),
    speeds=st.lists(st.integers(0, 3), min_size=1, max_size=200),
)
def test_no_deadlock_and_the_ratio_holds_within_tolerance_whatever_the_speeds(
    opt_interval: int, actor_steps: int, n_actors: int, warmup: int, speeds: list[int]
) -> None:
    """A simulation of the regime's turn: requests go out as the limiter allows, ``speed`` of them come back
    each turn (0: the learner would wait, so one comes back), then the learner takes what it may."""
    tolerance = AsyncConfig(n_actors=n_actors, actor_steps=actor_steps).tolerance_for(opt_interval)
    limiter = RateLimiter(opt_interval, tolerance)
    env_steps = opt_steps = 0
    pending: list[int] = []
    for speed in speeds:
        while len(pending) < n_actors and limiter.may_insert(
            env_steps, sum(pending), actor_steps, opt_steps, warmup
        ):
            pending.append(actor_steps)
        ahead = env_steps + sum(pending)
        if ahead - actor_steps >= warmup:  # past the warm-up: actors at most tolerance opt steps ahead
            assert _due(ahead, warmup, opt_interval) - opt_steps <= tolerance
        allowed = limiter.opts_allowed(env_steps, opt_steps, warmup)
        assert pending or allowed > 0, "the learner and the actors wait on each other"
        back = min(len(pending), max(speed, 0 if allowed else 1))
        env_steps += sum(pending[:back])
        pending = pending[back:]
        opt_steps += limiter.opts_allowed(env_steps, opt_steps, warmup)
        assert opt_steps == _due(env_steps, warmup, opt_interval)  # never ahead; it catches up each turn


def _due(env_steps: int, warmup: int, opt_interval: int) -> int:
    return (env_steps - warmup) // opt_interval if env_steps > warmup else 0


def test_a_tolerance_smaller_than_one_request_is_refused_naming_the_fields() -> None:
    assert AsyncConfig(n_actors=2, actor_steps=64).tolerance_for(opt_interval=2) == 65
    with pytest.raises(ValueError, match=r"tolerance \(10 opt steps\) must be at least .*32 \+ 1"):
        AsyncConfig(actor_steps=64, tolerance=10).tolerance_for(opt_interval=2)
    with pytest.raises(ValueError, match="n_actors"):
        AsyncConfig(n_actors=0)
