"""The Q-network."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from border_py.agents._nets import mlp


class QNetwork(nn.Module):
    """Maps observations ``(batch, obs_dim)`` to Q-values ``(batch, n_actions)`` with an MLP."""

    def __init__(self, obs_dim: int, n_actions: int, hidden: Sequence[int]) -> None:
        super().__init__()
        self.net = mlp(obs_dim, n_actions, hidden)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Returns the Q-values of every action."""
        q: torch.Tensor = self.net(obs)
        return q
