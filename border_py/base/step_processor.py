"""``StepProcessor``: turns env steps into buffer items."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from border_py.base.step import Step
from border_py.base.typevars import A_contra, I_co, O_contra


class StepProcessor(Protocol[O_contra, A_contra, I_co]):
    """Keeps the previous observation(s) and emits the items each step completes:

    processor.reset(env.reset())
    while training:
        step, _ = env.step(act)
        for item in processor.process(step):   # processor re-bases itself on step.init_obs at an
            buffer.push(item)                  # episode end
    """

    def reset(self, init_obs: O_contra) -> None:
        """Starts a new episode from ``init_obs``."""
        ...

    def process(self, step: Step[O_contra, A_contra]) -> Sequence[I_co]:
        """Returns the items ``step`` completes, oldest first.

        A one-step processor returns exactly one item per step; an n-step processor returns none during
        an episode's first ``n - 1`` steps and every pending item at an episode end.
        """
        ...
