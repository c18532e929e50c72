"""TQC: truncated quantile critics, SAC with distributional critics whose top quantiles are dropped."""

from __future__ import annotations

from typing import TYPE_CHECKING

from border_py.lazy import lazy_face

if TYPE_CHECKING:
    from border_py.agents.tqc.agent import Tqc
    from border_py.agents.tqc.config import TqcConfig

_EXPORTS: dict[str, str] = {
    "Tqc": "border_py.agents.tqc.agent",
    "TqcConfig": "border_py.agents.tqc.config",
}
"""Each public name and the module that defines it (the agent's module, and torch, on first use)."""

if not TYPE_CHECKING:  # mypy would take a module __getattr__ as "any attribute exists"
    __getattr__, __dir__ = lazy_face(__name__, _EXPORTS, globals())

__all__ = ["Tqc", "TqcConfig"]
