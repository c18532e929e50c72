"""DQN: a Q-network learned from replayed transitions."""

from border_py.agents.dqn.agent import Dqn
from border_py.agents.dqn.config import DqnConfig, EpsilonGreedyConfig, SoftmaxConfig
from border_py.agents.explorers import EpsilonGreedy, Softmax

__all__ = ["Dqn", "DqnConfig", "EpsilonGreedy", "EpsilonGreedyConfig", "Softmax", "SoftmaxConfig"]
