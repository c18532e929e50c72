"""TD3's policy network: a deterministic action squashed into the Box (its critics are the toolkit's
`CriticEnsemble`)."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from border_py.agents.toolkit import mlp


class DeterministicActor(nn.Module):
    """``bias + scale * tanh(mlp(obs))``: an action within the bounds.

    Examples:
        >>> actor = DeterministicActor(3, 2, (8,), torch.full((2,), 2.0), torch.zeros(2))
        >>> bool((actor(torch.randn(5, 3)).abs() <= 2.0).all())
        True
    """

    def __init__(
        self, obs_dim: int, act_dim: int, hidden: Sequence[int], scale: torch.Tensor, bias: torch.Tensor
    ) -> None:
        super().__init__()
        self.net = mlp(obs_dim, act_dim, hidden)
        # Constants of the env, not parameters: outside the state dict, moved with the module.
        self.scale: torch.Tensor
        self.bias: torch.Tensor
        self.register_buffer("scale", scale.clone(), persistent=False)
        self.register_buffer("bias", bias.clone(), persistent=False)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Returns actions ``(batch, act_dim)``."""
        return self.bias + self.scale * torch.tanh(self.net(obs))
