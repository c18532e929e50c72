"""BC: behaviour cloning from a dataset, for discrete and continuous actions."""

from border_py.agents.bc.agent import Bc
from border_py.agents.bc.config import BcConfig

__all__ = ["Bc", "BcConfig"]
