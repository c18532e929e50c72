"""AWAC: advantage-weighted actor-critic, offline then online, for continuous actions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from border_py.lazy import lazy_face

if TYPE_CHECKING:
    from border_py.agents.awac.agent import Awac
    from border_py.agents.awac.config import AwacConfig

_EXPORTS: dict[str, str] = {
    "Awac": "border_py.agents.awac.agent",
    "AwacConfig": "border_py.agents.awac.config",
}
"""Each public name and the module that defines it (the agent's module, and torch, on first use)."""

if not TYPE_CHECKING:  # mypy would take a module __getattr__ as "any attribute exists"
    __getattr__, __dir__ = lazy_face(__name__, _EXPORTS, globals())

__all__ = ["Awac", "AwacConfig"]
