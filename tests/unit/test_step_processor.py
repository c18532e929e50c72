"""SimpleStepProcessor across terminated and truncated episode ends."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from border_py import SimpleStepProcessor, Step


def _obs(v: float) -> npt.NDArray[np.float32]:
    return np.array([v], dtype=np.float32)


def _step(
    obs: float, *, terminated: bool = False, truncated: bool = False, init: float | None = None
) -> Step[npt.NDArray[np.float32], npt.NDArray[np.int64]]:
    return Step(
        act=np.array(1),
        obs=_obs(obs),
        reward=obs,
        is_terminated=terminated,
        is_truncated=truncated,
        init_obs=None if init is None else _obs(init),
    )


@pytest.mark.parametrize("end", ["terminated", "truncated"])
def test_episode_end_keeps_final_obs_as_next_obs_and_rebases_on_init_obs(end: str) -> None:
    p = SimpleStepProcessor()
    p.reset(_obs(0))
    t1 = p.process(_step(1))
    t2 = p.process(_step(2, terminated=end == "terminated", truncated=end == "truncated", init=100))
    t3 = p.process(_step(101))
    assert (t1.obs[0], t1.next_obs[0]) == (0, 1)
    # The final observation of the ended episode, not the next episode's first one.
    assert (t2.obs[0], t2.next_obs[0]) == (1, 2)
    assert (t2.is_terminated, t2.is_truncated) == (end == "terminated", end == "truncated")
    # The next transition starts from the new episode's first observation.
    assert (t3.obs[0], t3.next_obs[0]) == (100, 101)
    assert not (t3.is_terminated)
    assert not (t3.is_truncated)


def test_process_before_reset_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="before reset"):
        SimpleStepProcessor().process(_step(1))


def test_episode_end_without_init_obs_is_an_error() -> None:
    p = SimpleStepProcessor()
    p.reset(_obs(0))
    with pytest.raises(RuntimeError, match="init_obs"):
        p.process(_step(1, terminated=True))
