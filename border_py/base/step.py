"""``Step``: what one call of ``Env.step`` returns."""

from __future__ import annotations

from typing import Any, Generic

import attrs

from border_py.base.typevars import A_co, O_co


@attrs.frozen(kw_only=True)
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
