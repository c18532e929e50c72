"""CQL: conservative Q-learning on SAC, for offline RL on Box actions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from border_py.lazy import lazy_face

if TYPE_CHECKING:
    from border_py.agents.cql.agent import Cql
    from border_py.agents.cql.config import CqlConfig

_EXPORTS: dict[str, str] = {
    "Cql": "border_py.agents.cql.agent",
    "CqlConfig": "border_py.agents.cql.config",
}
"""Each public name and the module that defines it (the agent's module, and torch, on first use)."""

if not TYPE_CHECKING:  # mypy would take a module __getattr__ as "any attribute exists"
    __getattr__, __dir__ = lazy_face(__name__, _EXPORTS, globals())

__all__ = ["Cql", "CqlConfig"]
