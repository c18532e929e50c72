"""A2C: synchronous advantage actor-critic over rollouts, for discrete and continuous actions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from border_py.lazy import lazy_face

if TYPE_CHECKING:
    from border_py.agents.a2c.agent import A2c
    from border_py.agents.a2c.config import A2cConfig

_EXPORTS: dict[str, str] = {
    "A2c": "border_py.agents.a2c.agent",
    "A2cConfig": "border_py.agents.a2c.config",
}
"""Each public name and the module that defines it (the agent's module, and torch, on first use)."""

if not TYPE_CHECKING:  # mypy would take a module __getattr__ as "any attribute exists"
    __getattr__, __dir__ = lazy_face(__name__, _EXPORTS, globals())

__all__ = ["A2c", "A2cConfig"]
