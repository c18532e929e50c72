"""AWAC: advantage-weighted actor-critic, offline then online, for continuous actions."""

from border_py.agents.awac.agent import Awac
from border_py.agents.awac.config import AwacConfig

__all__ = ["Awac", "AwacConfig"]
