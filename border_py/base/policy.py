"""``Policy``: maps an observation to an action."""

from __future__ import annotations

from typing import Protocol

from border_py.base.typevars import A_co, O_contra


class Policy(Protocol[O_contra, A_co]):
    """Anything that acts.

    Driven as ``act = policy.sample(obs); env.step(act)``. An agent in eval mode is a greedy policy.
    """

    def sample(self, obs: O_contra) -> A_co:
        """Returns the action for ``obs``."""
        ...
