"""PPO: proximal policy optimisation over rollouts, for discrete and continuous actions."""

from border_py.agents.ppo.agent import Ppo
from border_py.agents.ppo.config import PpoConfig

__all__ = ["Ppo", "PpoConfig"]
