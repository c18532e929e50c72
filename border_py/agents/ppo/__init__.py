"""PPO: proximal policy optimisation over rollouts, for discrete and continuous actions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from border_py.lazy import lazy_face

if TYPE_CHECKING:
    from border_py.agents.ppo.agent import Ppo
    from border_py.agents.ppo.config import PpoConfig

_EXPORTS: dict[str, str] = {
    "Ppo": "border_py.agents.ppo.agent",
    "PpoConfig": "border_py.agents.ppo.config",
}
"""Each public name and the module that defines it (the agent's module, and torch, on first use)."""

if not TYPE_CHECKING:  # mypy would take a module __getattr__ as "any attribute exists"
    __getattr__, __dir__ = lazy_face(__name__, _EXPORTS, globals())

__all__ = ["Ppo", "PpoConfig"]
