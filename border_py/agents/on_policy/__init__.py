"""What the on-policy agents (PPO, A2C) share: the actor-critic network, acting, the rollout's advantages
and returns, normalisation, gSDE, export and the saved state (`OnPolicyAgent`), and their common config
fields (`OnPolicyConfig`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from border_py.lazy import lazy_face

if TYPE_CHECKING:
    from border_py.agents.on_policy.agent import OnPolicyAgent, OnPolicyParts
    from border_py.agents.on_policy.config import OnPolicyConfig

_EXPORTS: dict[str, str] = {
    "OnPolicyAgent": "border_py.agents.on_policy.agent",
    "OnPolicyConfig": "border_py.agents.on_policy.config",
    "OnPolicyParts": "border_py.agents.on_policy.agent",
}
"""Each public name and the module that defines it (the agent's module, and torch, on first use)."""

if not TYPE_CHECKING:  # mypy would take a module __getattr__ as "any attribute exists"
    __getattr__, __dir__ = lazy_face(__name__, _EXPORTS, globals())

__all__ = ["OnPolicyAgent", "OnPolicyConfig", "OnPolicyParts"]
