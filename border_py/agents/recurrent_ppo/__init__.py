"""Recurrent PPO: PPO with an LSTM policy and value, for partially observed tasks."""

from __future__ import annotations

from typing import TYPE_CHECKING

from border_py.lazy import lazy_face

if TYPE_CHECKING:
    from border_py.agents.recurrent_ppo.agent import RecurrentPpo
    from border_py.agents.recurrent_ppo.config import RecurrentPpoConfig

_EXPORTS: dict[str, str] = {
    "RecurrentPpo": "border_py.agents.recurrent_ppo.agent",
    "RecurrentPpoConfig": "border_py.agents.recurrent_ppo.config",
}
"""Each public name and the module that defines it (the agent's module, and torch, on first use)."""

if not TYPE_CHECKING:  # mypy would take a module __getattr__ as "any attribute exists"
    __getattr__, __dir__ = lazy_face(__name__, _EXPORTS, globals())

__all__ = ["RecurrentPpo", "RecurrentPpoConfig"]
