"""TD3+BC: TD3 with a behaviour-cloning term, for offline RL on Box actions."""

from border_py.agents.td3bc.agent import Td3Bc
from border_py.agents.td3bc.config import Td3BcConfig

__all__ = ["Td3Bc", "Td3BcConfig"]
