"""IQN: implicit quantile networks, distributional RL for discrete actions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from border_py.lazy import lazy_face

if TYPE_CHECKING:
    from border_py.agents.iqn.agent import Iqn
    from border_py.agents.iqn.config import IqnConfig
    from border_py.agents.iqn.taus import EvenTaus, FixedTaus, TauSampling, UniformTaus

_EXPORTS: dict[str, str] = {
    "EvenTaus": "border_py.agents.iqn.taus",
    "FixedTaus": "border_py.agents.iqn.taus",
    "Iqn": "border_py.agents.iqn.agent",
    "IqnConfig": "border_py.agents.iqn.config",
    "TauSampling": "border_py.agents.iqn.taus",
    "UniformTaus": "border_py.agents.iqn.taus",
}
"""Each public name and the module that defines it (the agent's module, and torch, on first use)."""

if not TYPE_CHECKING:  # mypy would take a module __getattr__ as "any attribute exists"
    __getattr__, __dir__ = lazy_face(__name__, _EXPORTS, globals())

__all__ = ["EvenTaus", "FixedTaus", "Iqn", "IqnConfig", "TauSampling", "UniformTaus"]
