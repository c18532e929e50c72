"""The Q-network, with a plain or a dueling head."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from border_py.agents.multi_input import Encoder
from border_py.agents.toolkit import mlp


class QNetwork(nn.Module):
    """Maps observations ``(batch, obs_dim)`` to Q-values ``(batch, n_actions)`` with an MLP; with an
    ``encoder`` (the Nature CNN), pixel observations ``(batch, *obs_shape)`` through the encoder first.

    With ``dueling``, the hidden layers are shared and two linear heads give a state value ``V(s)`` and
    advantages ``A(s, a)``; ``Q = V + A - mean_a A`` (the mean, not the max, as Wang et al. recommend for
    stability), which keeps ``V`` identifiable.

    Examples:
        >>> QNetwork(4, 2, (8,), dueling=True)(torch.zeros(3, 4)).shape
        torch.Size([3, 2])
    """

    def __init__(
        self,
        obs_dim: int,
        n_actions: int,
        hidden: Sequence[int],
        dueling: bool = False,
        encoder: Encoder | None = None,
    ) -> None:
        super().__init__()
        self.dueling = dueling
        self.encoder = encoder
        in_dim = obs_dim if encoder is None else encoder.out_features
        if not dueling:
            self.net = mlp(in_dim, n_actions, hidden)
            return
        if not hidden:
            raise ValueError("a dueling Q-network needs at least one hidden layer to share")
        self.net = nn.Sequential(*mlp(in_dim, hidden[-1], hidden[:-1]), nn.ReLU())
        self.value = nn.Linear(hidden[-1], 1)
        self.advantage = nn.Linear(hidden[-1], n_actions)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Returns the Q-values of every action."""
        h: torch.Tensor = self.net(obs if self.encoder is None else self.encoder(obs))
        if not self.dueling:
            return h
        adv: torch.Tensor = self.advantage(h)
        value: torch.Tensor = self.value(h)
        return value + adv - adv.mean(dim=1, keepdim=True)
