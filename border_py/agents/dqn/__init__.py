"""DQN: a Q-network learned from replayed transitions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from border_py.lazy import lazy_face

if TYPE_CHECKING:
    from border_py.agents.dqn.agent import Dqn
    from border_py.agents.dqn.config import DqnConfig
    from border_py.agents.explorer_config import EpsilonGreedyConfig, SoftmaxConfig
    from border_py.agents.explorers import EpsilonGreedy, Softmax

_EXPORTS: dict[str, str] = {
    "Dqn": "border_py.agents.dqn.agent",
    "DqnConfig": "border_py.agents.dqn.config",
    "EpsilonGreedy": "border_py.agents.explorers",
    "EpsilonGreedyConfig": "border_py.agents.explorer_config",
    "Softmax": "border_py.agents.explorers",
    "SoftmaxConfig": "border_py.agents.explorer_config",
}
"""Each public name and the module that defines it (the agent's module, and torch, on first use)."""

if not TYPE_CHECKING:  # mypy would take a module __getattr__ as "any attribute exists"
    __getattr__, __dir__ = lazy_face(__name__, _EXPORTS, globals())

__all__ = ["Dqn", "DqnConfig", "EpsilonGreedy", "EpsilonGreedyConfig", "Softmax", "SoftmaxConfig"]
