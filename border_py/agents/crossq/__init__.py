"""CrossQ: SAC without target networks, its critics batch-renormalised over the current and next
state-actions together."""

from __future__ import annotations

from typing import TYPE_CHECKING

from border_py.lazy import lazy_face

if TYPE_CHECKING:
    from border_py.agents.crossq.agent import CrossQ
    from border_py.agents.crossq.config import CrossQConfig

_EXPORTS: dict[str, str] = {
    "CrossQ": "border_py.agents.crossq.agent",
    "CrossQConfig": "border_py.agents.crossq.config",
}
"""Each public name and the module that defines it (the agent's module, and torch, on first use)."""

if not TYPE_CHECKING:  # mypy would take a module __getattr__ as "any attribute exists"
    __getattr__, __dir__ = lazy_face(__name__, _EXPORTS, globals())

__all__ = ["CrossQ", "CrossQConfig"]
