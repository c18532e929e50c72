"""IQN: implicit quantile networks, distributional RL for discrete actions."""

from border_py.agents.iqn.agent import Iqn
from border_py.agents.iqn.config import IqnConfig
from border_py.agents.iqn.taus import EvenTaus, FixedTaus, TauSampling, UniformTaus

__all__ = ["EvenTaus", "FixedTaus", "Iqn", "IqnConfig", "TauSampling", "UniformTaus"]
