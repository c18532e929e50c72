"""SAC: soft actor-critic for continuous actions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from border_py.lazy import lazy_face

if TYPE_CHECKING:
    from border_py.agents.sac.agent import Sac
    from border_py.agents.sac.config import SacConfig

_EXPORTS: dict[str, str] = {
    "Sac": "border_py.agents.sac.agent",
    "SacConfig": "border_py.agents.sac.config",
}
"""Each public name and the module that defines it (the agent's module, and torch, on first use)."""

if not TYPE_CHECKING:  # mypy would take a module __getattr__ as "any attribute exists"
    __getattr__, __dir__ = lazy_face(__name__, _EXPORTS, globals())

__all__ = ["Sac", "SacConfig"]
