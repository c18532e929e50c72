"""Builder protocols: what the trainer needs from a component's config."""

from __future__ import annotations

from typing import Protocol

from border_py.base.spaces import Spaces
from border_py.base.typevars import T_co


class SeededBuilder(Protocol[T_co]):
    """A config that builds a seeded component (an env, a replay buffer)."""

    def build(self, seed: int) -> T_co:
        """Builds the component; the same seed gives the same random stream."""
        ...


class Builder(Protocol[T_co]):
    """A config that builds a component with no randomness of its own (a step processor)."""

    def build(self) -> T_co:
        """Builds the component."""
        ...


class AgentBuilder(Protocol[T_co]):
    """An agent config: builds the agent from the env's spaces and a seed (every agent config of
    `border_py.agents` is one, so an experiment names an agent by its config alone)."""

    def build(self, spaces: Spaces, seed: int) -> T_co:
        """Builds the agent, sized by ``spaces``; the same seed gives the same initial weights.

        Raises:
            TypeError: the agent cannot act in these spaces (DQN in a box, SAC with discrete actions).
        """
        ...
