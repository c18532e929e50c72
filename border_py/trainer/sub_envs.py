"""What the sampler keeps of a vector env's sub-envs for an exact resume: each one's actions since its
episode began (`SubEnvActions`), and their replay in a resumed run (`replay_sub_envs`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic

import numpy as np

from border_py.base.env import RewindableVecEnv
from border_py.base.step_processor import StepProcessor
from border_py.base.typevars import A, I, O


class SubEnvActions(Generic[A]):
    """Each sub-env's actions since its episode began. The sampler hands over every vector step's actions
    whole (`add`, one list append: the hot path) and the steps that ended episodes (`ended`, rare), so no
    sub-env's action is touched per step.

    Args:
        num_envs: the number of sub-envs.

    Examples:
        >>> log = SubEnvActions[str](2)
        >>> log.add(["a0", "b0"])
        >>> log.add(["a1", "b1"])
        >>> log.ended([False, True])
        >>> log.add(["a2", "b2"])
        >>> log.per_sub_env()
        [['a0', 'a1', 'a2'], ['b2']]
    """

    def __init__(self, num_envs: int) -> None:
        self._n = num_envs
        self.restart([[] for _ in range(num_envs)])

    def restart(self, before: list[list[A]]) -> None:
        """Starts again from each sub-env's actions ``before`` (empty lists: every sub-env at an episode's
        start)."""
        self._before = before
        self._rows: list[Sequence[A]] = []
        self._starts = [0] * self._n

    def add(self, actions: Sequence[A]) -> None:
        """Keeps one vector step's actions, one per sub-env."""
        self._rows.append(actions)

    def ended(self, done: Sequence[bool]) -> None:
        """After `add`: sub-env ``i`` began a new episode where ``done[i]``; the steps no sub-env's episode
        needs any more are dropped."""
        starts = self._starts
        for i, ended in enumerate(done):
            if ended:
                self._before[i], starts[i] = [], len(self._rows)
        drop = min(starts)
        if drop:
            del self._rows[:drop]
            self._starts = [start - drop for start in starts]

    def per_sub_env(self) -> list[list[A]]:
        """Each sub-env's actions since its episode began."""
        return [
            [*before, *(row[i] for row in self._rows[start:])]
            for i, (before, start) in enumerate(zip(self._before, self._starts, strict=True))
        ]


def replay_sub_envs(
    env: RewindableVecEnv[O, A],
    procs: Sequence[StepProcessor[O, A, I]],
    log: SubEnvActions[A],
    saved: tuple[Any, list[list[A]], list[Any]],
) -> list[O] | None:
    """Starts each sub-env's saved episode again (``saved``: the env's episode starts, each sub-env's
    actions and observation) and replays its actions, rebuilding its step processor on the way (the items
    are dropped: the saved buffer holds them) and ``log``. Returns each sub-env's observation, or ``None``
    where a replay did not end at its saved observation (an env not deterministic given its RNG)."""
    start, actions, saved_obs = saved
    exact, obs = True, []
    replayed = env.restart_episodes(start, actions)
    for proc, (first, steps), acts, want in zip(procs, replayed, actions, saved_obs, strict=True):
        proc.reset(first)
        now = first
        for step in steps:
            proc.process(step)
            now = step.obs
        ended = bool(steps) and steps[-1].is_done
        exact = exact and len(steps) == len(acts) and not ended and same_obs(now, want)
        obs.append(now)
    log.restart(actions if exact else [[] for _ in actions])
    return obs if exact else None


def same_obs(a: object, b: object) -> bool:
    """Whether two observations are equal (arrays element by element)."""
    try:
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    except (TypeError, ValueError):
        return a == b
