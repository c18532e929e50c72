"""CQL: conservative Q-learning on SAC, for offline RL on Box actions."""

from border_py.agents.cql.agent import Cql
from border_py.agents.cql.config import CqlConfig

__all__ = ["Cql", "CqlConfig"]
