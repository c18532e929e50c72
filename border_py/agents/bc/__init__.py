"""BC: behaviour cloning from a dataset, for discrete and continuous actions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from border_py.lazy import lazy_face

if TYPE_CHECKING:
    from border_py.agents.bc.agent import Bc
    from border_py.agents.bc.config import BcConfig

_EXPORTS: dict[str, str] = {
    "Bc": "border_py.agents.bc.agent",
    "BcConfig": "border_py.agents.bc.config",
}
"""Each public name and the module that defines it (the agent's module, and torch, on first use)."""

if not TYPE_CHECKING:  # mypy would take a module __getattr__ as "any attribute exists"
    __getattr__, __dir__ = lazy_face(__name__, _EXPORTS, globals())

__all__ = ["Bc", "BcConfig"]
