"""Step processors across terminated and truncated episode ends: one-step and n-step."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st

from border_py import NStepStepProcessor, SimpleStepProcessor, Step, Transition

StepT = Step[npt.NDArray[np.float32], npt.NDArray[np.int64]]
MakeProcessor = Callable[[], SimpleStepProcessor | NStepStepProcessor]


def _obs(v: float) -> npt.NDArray[np.float32]:
    return np.array([v], dtype=np.float32)


def _step(
    obs: float,
    *,
    terminated: bool = False,
    truncated: bool = False,
    init: float | None = None,
    reward: float | None = None,
) -> StepT:
    return Step(
        act=np.array(int(obs)),
        obs=_obs(obs),
        reward=obs if reward is None else reward,
        is_terminated=terminated,
        is_truncated=truncated,
        init_obs=None if init is None else _obs(init),
    )


def _only(items: list[Transition]) -> Transition:
    assert len(items) == 1
    return items[0]


@pytest.mark.parametrize("end", ["terminated", "truncated"])
def test_episode_end_keeps_final_obs_as_next_obs_and_rebases_on_init_obs(end: str) -> None:
    p = SimpleStepProcessor(gamma=0.9)
    p.reset(_obs(0))
    t1 = _only(p.process(_step(1)))
    t2 = _only(p.process(_step(2, terminated=end == "terminated", truncated=end == "truncated", init=100)))
    t3 = _only(p.process(_step(101)))
    assert (t1.obs[0], t1.next_obs[0], t1.discount) == (0, 1, 0.9)
    # The final observation of the ended episode, not the next episode's first one.
    assert (t2.obs[0], t2.next_obs[0]) == (1, 2)
    assert (t2.is_terminated, t2.is_truncated) == (end == "terminated", end == "truncated")
    # The next transition starts from the new episode's first observation.
    assert (t3.obs[0], t3.next_obs[0]) == (100, 101)
    assert not (t3.is_terminated)
    assert not (t3.is_truncated)


@pytest.mark.parametrize("make", [lambda: SimpleStepProcessor(0.9), lambda: NStepStepProcessor(3, 0.9)])
def test_process_before_reset_is_an_error(make: MakeProcessor) -> None:
    with pytest.raises(RuntimeError, match="before reset"):
        make().process(_step(1))


@pytest.mark.parametrize("make", [lambda: SimpleStepProcessor(0.9), lambda: NStepStepProcessor(3, 0.9)])
def test_episode_end_without_init_obs_is_an_error(make: MakeProcessor) -> None:
    p = make()
    p.reset(_obs(0))
    with pytest.raises(RuntimeError, match="init_obs"):
        p.process(_step(1, terminated=True))


def test_n_steps_must_be_positive() -> None:
    with pytest.raises(ValueError, match="n_steps must be >= 1"):
        NStepStepProcessor(0, 0.9)


# --- n-step: rewards 1, 2, 3, ... (reward = obs), gamma 0.5 ----------------------------------------


def test_n_step_in_mid_episode_sums_n_rewards_and_bootstraps_n_steps_later() -> None:
    p = NStepStepProcessor(n_steps=3, gamma=0.5)
    p.reset(_obs(0))
    assert p.process(_step(1)) == []
    assert p.process(_step(2)) == []
    t = _only(p.process(_step(3)))
    assert (t.obs[0], int(t.act), t.next_obs[0]) == (0, 1, 3)
    assert t.reward == 1 + 0.5 * 2 + 0.25 * 3
    assert t.discount == 0.125
    assert not t.is_terminated
    assert not t.is_truncated
    t = _only(p.process(_step(4)))
    assert (t.obs[0], t.next_obs[0], t.reward) == (1, 4, 2 + 0.5 * 3 + 0.25 * 4)


@pytest.mark.parametrize("end", ["terminated", "truncated"])
def test_n_step_episode_end_flushes_every_pending_transition_with_its_own_discount(end: str) -> None:
    p = NStepStepProcessor(n_steps=3, gamma=0.5)
    p.reset(_obs(0))
    p.process(_step(1))
    p.process(_step(2))
    p.process(_step(3))  # completes the transition from obs 0
    ending = _step(4, terminated=end == "terminated", truncated=end == "truncated", init=100)
    flushed = p.process(ending)
    # Pending at the end: from obs 1 (rewards 2, 3, 4), obs 2 (3, 4) and obs 3 (4), oldest first.
    assert [t.obs[0] for t in flushed] == [1, 2, 3]
    assert [t.reward for t in flushed] == [2 + 0.5 * 3 + 0.25 * 4, 3 + 0.5 * 4, 4]
    assert [t.discount for t in flushed] == [0.125, 0.25, 0.5]
    # All bootstrap from (truncated) or stop at (terminated) the final observation of this episode.
    assert all(t.next_obs[0] == 4 for t in flushed)
    assert all(t.is_terminated == (end == "terminated") for t in flushed)
    assert all(t.is_truncated == (end == "truncated") for t in flushed)
    # The next episode starts afresh from init_obs: nothing of the old one, no reward leaked across.
    assert p.process(_step(101, reward=1000.0)) == []
    assert p.process(_step(102, reward=1000.0)) == []
    t = _only(p.process(_step(103, reward=1000.0)))
    assert (t.obs[0], t.next_obs[0], t.reward) == (100, 103, 1000.0 * (1 + 0.5 + 0.25))


@pytest.mark.parametrize("end", ["terminated", "truncated"])
def test_n_step_episode_shorter_than_n(end: str) -> None:
    p = NStepStepProcessor(n_steps=5, gamma=0.5)
    p.reset(_obs(0))
    assert p.process(_step(1)) == []
    flushed = p.process(_step(2, terminated=end == "terminated", truncated=end == "truncated", init=50))
    assert [(t.obs[0], t.next_obs[0], t.reward, t.discount) for t in flushed] == [
        (0, 2, 1 + 0.5 * 2, 0.25),
        (1, 2, 2, 0.5),
    ]


def test_a_one_step_episode_is_one_transition() -> None:
    p = NStepStepProcessor(n_steps=3, gamma=0.5)
    p.reset(_obs(0))
    t = _only(p.process(_step(1, terminated=True, init=9)))
    assert (t.obs[0], t.next_obs[0], t.reward, t.discount, t.is_terminated) == (0, 1, 1, 0.5, True)


_ends = st.lists(st.sampled_from(["none", "none", "none", "terminated", "truncated"]), max_size=60)


def _stream(ends: list[str]) -> list[StepT]:
    return [
        _step(
            float(i + 1),
            terminated=e == "terminated",
            truncated=e == "truncated",
            init=None if e == "none" else 1000.0 + i,
            reward=float(np.sin(i)),
        )
        for i, e in enumerate(ends)
    ]


@given(_ends)
def test_n_step_with_n_1_emits_what_the_simple_processor_does(ends: list[str]) -> None:
    simple, nstep = SimpleStepProcessor(gamma=0.9), NStepStepProcessor(n_steps=1, gamma=0.9)
    simple.reset(_obs(0))
    nstep.reset(_obs(0))
    for step in _stream(ends):
        a, b = _only(simple.process(step)), _only(nstep.process(step))
        assert (a.obs[0], int(a.act), a.next_obs[0], a.reward) == (
            b.obs[0],
            int(b.act),
            b.next_obs[0],
            b.reward,
        )
        assert (a.is_terminated, a.is_truncated, a.discount) == (b.is_terminated, b.is_truncated, b.discount)


@given(_ends, st.integers(1, 5))
def test_n_step_matches_a_reference_built_episode_by_episode(ends: list[str], n: int) -> None:
    gamma = 0.9
    p = NStepStepProcessor(n_steps=n, gamma=gamma)
    p.reset(_obs(0))
    steps = _stream(ends)
    emitted = {int(t.act): t for step in steps for t in p.process(step)}  # act i + 1 names step i

    # Reference: split the stream into episodes; within each, the transition from step k sums the rewards
    # of steps k .. k+n-1 that belong to the same episode. One that is still short of n steps when the
    # stream stops is still pending.
    expected: dict[int, tuple[float, float, float, bool, bool]] = {}
    episode: list[int] = []
    for i, step in enumerate(steps):
        episode.append(i)
        ended = step.is_terminated or step.is_truncated
        if not ended and i < len(steps) - 1:
            continue
        for j, k in enumerate(episode):
            window = episode[j : j + n]
            if len(window) < n and not ended:
                continue
            last = steps[window[-1]]
            ret = sum(gamma**m * steps[w].reward for m, w in enumerate(window))
            expected[k + 1] = (last.obs[0], ret, gamma ** len(window), last.is_terminated, last.is_truncated)
        episode = []

    assert sorted(emitted) == sorted(expected)
    for act, (next_obs, ret, discount, terminated, truncated) in expected.items():
        t = emitted[act]
        assert t.next_obs[0] == next_obs
        assert t.reward == pytest.approx(ret)
        assert t.discount == pytest.approx(discount)
        assert (t.is_terminated, t.is_truncated) == (terminated, truncated)
