"""SAC's networks: a tanh-squashed Gaussian policy and an ensemble of Q-networks."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from border_py.agents._nets import mlp


class GaussianActor(nn.Module):
    """Maps observations to the mean and the (clamped) log standard deviation of a Gaussian over the
    pre-squash action ``u``; the action is ``bias + scale * tanh(u)``.

    The network outputs ``log_std``; the std is ``exp(log_std)``, taken once, where the loss needs it
    (border exponentiated it twice, so its std could never fall below 1).

    Example:
        >>> mean, log_std = GaussianActor(3, 2, (8,), -20.0, 2.0)(torch.zeros(5, 3))
        >>> mean.shape, log_std.shape
        (torch.Size([5, 2]), torch.Size([5, 2]))
    """

    def __init__(
        self, obs_dim: int, act_dim: int, hidden: Sequence[int], log_std_min: float, log_std_max: float
    ) -> None:
        super().__init__()
        self.net = mlp(obs_dim, 2 * act_dim, hidden)
        self.log_std_min = log_std_min
        self.log_std_max = log_std_max

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Returns ``(mean, log_std)`` of ``u``, each ``(batch, act_dim)``."""
        mean, log_std = self.net(obs).chunk(2, dim=-1)
        return mean, log_std.clamp(self.log_std_min, self.log_std_max)


class CriticEnsemble(nn.Module):
    """``n`` independent Q-networks ``Q_i(s, a)``, each an MLP over ``concat(obs, act)``.

    Example:
        >>> CriticEnsemble(3, 2, (8,), n=2)(torch.zeros(5, 3), torch.zeros(5, 2)).shape
        torch.Size([2, 5])
    """

    def __init__(self, obs_dim: int, act_dim: int, hidden: Sequence[int], n: int) -> None:
        super().__init__()
        self.qs = nn.ModuleList(mlp(obs_dim + act_dim, 1, hidden) for _ in range(n))

    def forward(self, obs: torch.Tensor, act: torch.Tensor) -> torch.Tensor:
        """Returns every critic's Q-value, ``(n, batch)``."""
        x = torch.cat([obs, act], dim=-1)
        return torch.stack([q(x).squeeze(-1) for q in self.qs])
