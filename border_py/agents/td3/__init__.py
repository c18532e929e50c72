"""TD3 (and DDPG as its configuration): deterministic actor-critic for Box action spaces."""

from border_py.agents.td3.agent import Td3
from border_py.agents.td3.config import Td3Config

__all__ = ["Td3", "Td3Config"]
