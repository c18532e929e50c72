"""IQL: implicit Q-learning from a dataset, for continuous actions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from border_py.lazy import lazy_face

if TYPE_CHECKING:
    from border_py.agents.iql.agent import Iql
    from border_py.agents.iql.config import IqlConfig

_EXPORTS: dict[str, str] = {
    "Iql": "border_py.agents.iql.agent",
    "IqlConfig": "border_py.agents.iql.config",
}
"""Each public name and the module that defines it (the agent's module, and torch, on first use)."""

if not TYPE_CHECKING:  # mypy would take a module __getattr__ as "any attribute exists"
    __getattr__, __dir__ = lazy_face(__name__, _EXPORTS, globals())

__all__ = ["Iql", "IqlConfig"]
