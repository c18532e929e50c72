"""IQL: implicit Q-learning from a dataset, for continuous actions."""

from border_py.agents.iql.agent import Iql
from border_py.agents.iql.config import IqlConfig

__all__ = ["Iql", "IqlConfig"]
