"""``StepProcessor``: turns env steps into buffer items."""

from __future__ import annotations

from typing import Protocol

from border_py.base.step import Step
from border_py.base.typevars import A_contra, I_co, O_contra


class StepProcessor(Protocol[O_contra, A_contra, I_co]):
    """Keeps the previous observation and emits one item per step::

    processor.reset(env.reset())
    while training:
        step, _ = env.step(act)
        buffer.push(processor.process(step))   # processor re-bases itself on step.init_obs at an
                                               # episode end
    """

    def reset(self, init_obs: O_contra) -> None:
        """Starts a new episode from ``init_obs``."""
        ...

    def process(self, step: Step[O_contra, A_contra]) -> I_co:
        """Returns the item for ``step``."""
        ...
