"""IQN: implicit quantile networks, distributional RL for discrete actions."""

from border_py.agents.iqn.agent import Iqn
from border_py.agents.iqn.config import EvenTaus, FixedTaus, IqnConfig, TauSampling, UniformTaus

__all__ = ["EvenTaus", "FixedTaus", "Iqn", "IqnConfig", "TauSampling", "UniformTaus"]
