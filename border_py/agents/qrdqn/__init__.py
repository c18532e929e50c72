"""QR-DQN: quantile regression DQN, distributional RL for discrete actions at fixed quantile fractions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from border_py.lazy import lazy_face

if TYPE_CHECKING:
    from border_py.agents.qrdqn.agent import QrDqn
    from border_py.agents.qrdqn.config import QrDqnConfig

_EXPORTS: dict[str, str] = {
    "QrDqn": "border_py.agents.qrdqn.agent",
    "QrDqnConfig": "border_py.agents.qrdqn.config",
}
"""Each public name and the module that defines it (the agent's module, and torch, on first use)."""

if not TYPE_CHECKING:  # mypy would take a module __getattr__ as "any attribute exists"
    __getattr__, __dir__ = lazy_face(__name__, _EXPORTS, globals())

__all__ = ["QrDqn", "QrDqnConfig"]
