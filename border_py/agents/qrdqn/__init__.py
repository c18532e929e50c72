"""QR-DQN: quantile regression DQN, distributional RL for discrete actions at fixed quantile fractions."""

from border_py.agents.qrdqn.agent import QrDqn
from border_py.agents.qrdqn.config import QrDqnConfig

__all__ = ["QrDqn", "QrDqnConfig"]
