"""TD3+BC: TD3 with a behaviour-cloning term, for offline RL on Box actions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from border_py.lazy import lazy_face

if TYPE_CHECKING:
    from border_py.agents.td3bc.agent import Td3Bc
    from border_py.agents.td3bc.config import Td3BcConfig

_EXPORTS: dict[str, str] = {
    "Td3Bc": "border_py.agents.td3bc.agent",
    "Td3BcConfig": "border_py.agents.td3bc.config",
}
"""Each public name and the module that defines it (the agent's module, and torch, on first use)."""

if not TYPE_CHECKING:  # mypy would take a module __getattr__ as "any attribute exists"
    __getattr__, __dir__ = lazy_face(__name__, _EXPORTS, globals())

__all__ = ["Td3Bc", "Td3BcConfig"]
