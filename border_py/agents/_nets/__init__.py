"""Networks shared by agents."""

from border_py.agents._nets.mlp import mlp

__all__ = ["mlp"]
