"""``SyncModel``: the acting part of an agent, carried across a process boundary (border's ``SyncModel``).

An asynchronous learner trains the agent; each actor process holds a copy that only acts. Every
``sync_interval`` opt steps the learner takes ``acting_state()`` (plain data and numpy arrays, no torch
objects, so it pickles anywhere) and each actor's copy loads it. ``ActingAgent`` is what an actor needs:
a policy with train and eval modes that loads acting states. ``SyncAgent`` is the learner's side.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from border_py.base.agent import Agent
from border_py.base.typevars import A_co, B_contra, O_contra


@runtime_checkable
class SyncModel(Protocol):
    """An agent whose acting part can be copied into another process."""

    def acting_state(self) -> dict[str, Any]:
        """What acting needs (the policy's weights; numpy arrays and plain data), for
        `load_acting_state` of another instance built with the same config."""
        ...

    def load_acting_state(self, state: Mapping[str, Any], env_steps: int) -> None:
        """Loads what `acting_state` returned. ``env_steps``: the run's env steps so far, over all
        actors, for schedules that follow them (DQN's epsilon)."""
        ...


class ActingAgent(SyncModel, Protocol[O_contra, A_co]):
    """An actor's copy of the agent: it samples (exploring in train mode) and loads acting states."""

    def train(self) -> None:
        """Switches to train mode (exploring actions)."""
        ...

    def eval(self) -> None:
        """Switches to eval mode (greedy actions)."""
        ...

    def sample(self, obs: O_contra) -> A_co:
        """Returns an action for ``obs``."""
        ...


class SyncAgent(Agent[O_contra, A_co, B_contra], SyncModel, Protocol[O_contra, A_co, B_contra]):
    """The learner's agent in asynchronous training: an `Agent` whose acting part
    is published to the actors."""
