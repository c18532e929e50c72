"""CrossQ: SAC without target networks, its critics batch-renormalised over the current and next
state-actions together."""

from border_py.agents.crossq.agent import CrossQ
from border_py.agents.crossq.config import CrossQConfig

__all__ = ["CrossQ", "CrossQConfig"]
