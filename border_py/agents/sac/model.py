"""SAC's policy network: a tanh-squashed Gaussian (its critics are the toolkit's
`CriticEnsemble`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import nn

from border_py.agents.toolkit import mlp


class GaussianActor(nn.Module):
    """Maps observations to the mean and the (clamped) log standard deviation of a Gaussian over the
    pre-squash action ``u``; the action is ``bias + scale * tanh(u)``.

    The network outputs ``log_std``; the std is ``exp(log_std)``, taken once, where the loss needs it.
    With ``norm`` (CrossQ), the network normalises its input and each hidden activation (`mlp`'s
    ``norm``).

    Examples:
        >>> mean, log_std = GaussianActor(3, 2, (8,), -20.0, 2.0)(torch.zeros(5, 3))
        >>> mean.shape, log_std.shape
        (torch.Size([5, 2]), torch.Size([5, 2]))
    """

    def __init__(
        self,
        obs_dim: int,
        act_dim: int,
        hidden: Sequence[int],
        log_std_min: float,
        log_std_max: float,
        norm: Callable[[int], nn.Module] | None = None,
    ) -> None:
        super().__init__()
        self.net = mlp(obs_dim, 2 * act_dim, hidden, norm)
        self.log_std_min = log_std_min
        self.log_std_max = log_std_max

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Returns ``(mean, log_std)`` of ``u``, each ``(batch, act_dim)``."""
        mean, log_std = self.net(obs).chunk(2, dim=-1)
        return mean, log_std.clamp(self.log_std_min, self.log_std_max)
