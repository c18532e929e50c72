"""A2C: synchronous advantage actor-critic over rollouts, for discrete and continuous actions."""

from border_py.agents.a2c.agent import A2c
from border_py.agents.a2c.config import A2cConfig

__all__ = ["A2c", "A2cConfig"]
