"""IQN's network and its quantile fractions."""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn

from border_py.agents.iqn.taus import EvenTaus, FixedTaus, TauSampling
from border_py.agents.multi_input import Encoder
from border_py.agents.toolkit import mlp


def sample_taus(
    sampling: TauSampling, batch: int, generator: torch.Generator, device: torch.device
) -> torch.Tensor:
    """Quantile fractions ``(batch, n)`` as ``sampling`` says; only ``uniform`` draws from ``generator``.

    Examples:
        >>> sample_taus(EvenTaus(n=4), 1, torch.Generator(), torch.device("cpu"))
        tensor([[0.1250, 0.3750, 0.6250, 0.8750]])
    """
    if isinstance(sampling, EvenTaus):
        taus = (torch.arange(sampling.n, device=device, dtype=torch.float32) + 0.5) / sampling.n
        return taus.expand(batch, -1)
    if isinstance(sampling, FixedTaus):
        return torch.tensor(sampling.taus, device=device, dtype=torch.float32).expand(batch, -1)
    return torch.rand(batch, sampling.n, generator=generator, device=device)


class IqnNetwork(nn.Module):
    """``Z(s, tau)``: the ``tau``-quantile of the return of each action, ``(batch, n_taus, n_actions)``.

    ``psi(s)`` (an MLP with a ReLU output) is multiplied elementwise by the cosine embedding
    ``phi(tau) = ReLU(W cos(pi i tau) + b)``, ``i = 0 .. n_cos - 1`` (Dabney et al., 2018), and a head MLP
    maps the product to one quantile per action. With an ``encoder`` (the Nature CNN), ``psi`` runs on its
    features: pixel observations ``(batch, *obs_shape)``.

    Examples:
        >>> net = IqnNetwork(4, 2, hidden=(8,), embed_dim=8, n_cos=16, head_hidden=(8,))
        >>> net(torch.zeros(3, 4), torch.rand(3, 5)).shape
        torch.Size([3, 5, 2])
    """

    _pi_i: torch.Tensor  # pi * (0, 1, ..., n_cos - 1), a non-persistent buffer

    def __init__(
        self,
        obs_dim: int,
        n_actions: int,
        hidden: Sequence[int],
        embed_dim: int,
        n_cos: int,
        head_hidden: Sequence[int],
        encoder: Encoder | None = None,
    ) -> None:
        super().__init__()
        in_dim = obs_dim if encoder is None else encoder.out_features
        psi = nn.Sequential(*mlp(in_dim, embed_dim, hidden), nn.ReLU())
        self.psi = psi if encoder is None else nn.Sequential(encoder, *psi)
        self.phi = nn.Sequential(nn.Linear(n_cos, embed_dim), nn.ReLU())
        self.head = mlp(embed_dim, n_actions, head_hidden)
        self.register_buffer("_pi_i", math.pi * torch.arange(n_cos, dtype=torch.float32), persistent=False)

    def forward(self, obs: torch.Tensor, taus: torch.Tensor) -> torch.Tensor:
        """Returns the quantiles at ``taus`` ``(batch, n_taus)`` for observations ``(batch, obs_dim)``."""
        state = self.psi(obs).unsqueeze(1)  # (batch, 1, embed)
        cos = torch.cos(taus.unsqueeze(-1) * self._pi_i)  # (batch, n_taus, n_cos)
        z: torch.Tensor = self.head(state * self.phi(cos))
        return z


class MeanQuantiles(nn.Module):
    """``obs -> (batch, n_actions)``: the mean of ``net``'s quantiles at the fixed fractions ``taus``, what
    IQN's greedy action maximises."""

    taus: torch.Tensor

    def __init__(self, net: IqnNetwork, taus: torch.Tensor) -> None:
        super().__init__()
        self.net = net
        self.register_buffer("taus", taus)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        values: torch.Tensor = self.net(obs, self.taus.expand(obs.shape[0], -1)).mean(dim=1)
        return values
