"""QR-DQN's network: quantiles of each action's return at fixed fractions."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from border_py.agents.multi_input import Encoder
from border_py.agents.toolkit import mlp


def midpoint_fractions(n: int, device: torch.device | None = None) -> torch.Tensor:
    """The fractions ``(i + 1/2) / n``, ``i = 0 .. n - 1``, whose quantiles QR-DQN learns: the midpoints
    of ``n`` equal slices of ``[0, 1]`` (Dabney et al., 2017, Lemma 2).

    Examples:
        >>> midpoint_fractions(4)
        tensor([0.1250, 0.3750, 0.6250, 0.8750])
    """
    return (torch.arange(n, device=device, dtype=torch.float32) + 0.5) / n


class QuantileNetwork(nn.Module):
    """Maps observations ``(batch, obs_dim)`` to ``n_quantiles`` quantiles of each action's return,
    ``(batch, n_quantiles, n_actions)``: an MLP whose last layer has ``n_quantiles * n_actions`` outputs,
    read quantile-major (as sb3-contrib's). With an ``encoder`` (the Nature CNN), pixel observations
    ``(batch, *obs_shape)`` through the encoder first.

    Examples:
        >>> QuantileNetwork(4, 2, 5, (8,))(torch.zeros(3, 4)).shape
        torch.Size([3, 5, 2])
    """

    def __init__(
        self,
        obs_dim: int,
        n_actions: int,
        n_quantiles: int,
        hidden: Sequence[int],
        encoder: Encoder | None = None,
    ) -> None:
        super().__init__()
        self.n_actions, self.n_quantiles = n_actions, n_quantiles
        self.encoder = encoder
        in_dim = obs_dim if encoder is None else encoder.out_features
        self.net = mlp(in_dim, n_quantiles * n_actions, hidden)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Returns the quantiles of every action."""
        z: torch.Tensor = self.net(obs if self.encoder is None else self.encoder(obs))
        return z.view(len(obs), self.n_quantiles, self.n_actions)
