"""``Step``: what one call of ``Env.step`` returns."""

from __future__ import annotations

from typing import Any, Generic

import attrs

from border_py.base.typevars import A_co, O_co


# slots=False: a frozen class with a __dict__ is built by writing into the dict, where a slotted one calls
# object.__setattr__ per field (0.9 against 1.6 us for a Step on the 2-core machine); one is made per env
# step, and none is kept.
@attrs.frozen(kw_only=True, slots=False)
class Step(Generic[O_co, A_co]):
    """One environment transition as the env saw it.

    Attributes:
        act: the action taken.
        obs: the observation after the action. When the step ended an episode this is the *final*
            observation of that episode (before any reset): a truncated step bootstraps from it.
        reward: the reward for the action.
        is_terminated: the episode reached a terminal state (do not bootstrap).
        is_truncated: the episode was cut, e.g. by a time limit (bootstrap from ``obs``).
        info: the env's extra information.
        init_obs: when the step ended an episode, the first observation of the next one (the env has
            already reset); ``None`` otherwise.
    """

    act: A_co
    obs: O_co
    reward: float
    is_terminated: bool
    is_truncated: bool
    info: dict[str, Any] = attrs.field(factory=dict)
    init_obs: O_co | None = None

    @property
    def is_done(self) -> bool:
        """The step ended an episode, by termination or truncation."""
        return self.is_terminated or self.is_truncated
