"""TD3 (and DDPG as its configuration): deterministic actor-critic for Box action spaces."""

from __future__ import annotations

from typing import TYPE_CHECKING

from border_py.lazy import lazy_face

if TYPE_CHECKING:
    from border_py.agents.td3.agent import Td3
    from border_py.agents.td3.config import Td3Config

_EXPORTS: dict[str, str] = {
    "Td3": "border_py.agents.td3.agent",
    "Td3Config": "border_py.agents.td3.config",
}
"""Each public name and the module that defines it (the agent's module, and torch, on first use)."""

if not TYPE_CHECKING:  # mypy would take a module __getattr__ as "any attribute exists"
    __getattr__, __dir__ = lazy_face(__name__, _EXPORTS, globals())

__all__ = ["Td3", "Td3Config"]
