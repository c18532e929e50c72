"""TQC: truncated quantile critics, SAC with distributional critics whose top quantiles are dropped."""

from border_py.agents.tqc.agent import Tqc
from border_py.agents.tqc.config import TqcConfig

__all__ = ["Tqc", "TqcConfig"]
