"""What the on-policy agents (PPO, A2C) share: the actor-critic network, acting, the rollout's advantages
and returns, normalisation, gSDE, export and the saved state (`OnPolicyAgent`), and their common config
fields (`OnPolicyConfig`)."""

from border_py.agents.on_policy.agent import OnPolicyAgent, OnPolicyParts
from border_py.agents.on_policy.config import OnPolicyConfig

__all__ = ["OnPolicyAgent", "OnPolicyConfig", "OnPolicyParts"]
