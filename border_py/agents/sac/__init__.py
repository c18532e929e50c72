"""SAC: soft actor-critic for continuous actions."""

from border_py.agents.sac.agent import Sac
from border_py.agents.sac.config import SacConfig

__all__ = ["Sac", "SacConfig"]
