"""The policy networks and the action scaling the offline agents (BC, AWAC, IQL) share.

Continuous policies work on *unit* actions in ``[-1, 1]``: an `ActionScale` maps the env's Box
bounds to and from them, so one network fits any bounds, and a dataset's actions are scaled before their
log-probability is taken.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from border_py.agents.multi_input import MultiInputEncoder
from border_py.agents.toolkit import mlp

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


class ActionScale:
    """``action = bias + scale * unit`` for a Box with finite bounds ``low < high`` (as `Spaces` has checked
    them).

    Examples:
        >>> s = ActionScale(np.array([-2.0]), np.array([2.0]), torch.device("cpu"))
        >>> s.to_unit(torch.tensor([[1.0]])).tolist(), s.from_unit(torch.tensor([[1.0]])).tolist()
        ([[0.5]], [[2.0]])
    """

    def __init__(self, low: npt.NDArray[Any], high: npt.NDArray[Any], device: torch.device) -> None:
        low = np.asarray(low, dtype=np.float32).reshape(-1)
        high = np.asarray(high, dtype=np.float32).reshape(-1)
        self.low, self.high = low, high
        self.scale = torch.as_tensor((high - low) / 2.0, device=device)
        self.bias = torch.as_tensor((high + low) / 2.0, device=device)

    @property
    def dim(self) -> int:
        """The action's size."""
        return int(self.low.shape[0])

    def to_unit(self, action: torch.Tensor) -> torch.Tensor:
        """Env actions to unit actions."""
        return (action - self.bias) / self.scale

    def from_unit(self, unit: torch.Tensor) -> torch.Tensor:
        """Unit actions (clamped to ``[-1, 1]``) to env actions."""
        return self.bias + self.scale * unit.clamp(-1.0, 1.0)


class GaussianPolicy(nn.Module):
    """A Gaussian over unit actions: mean ``tanh(mlp(obs))``, a state-independent log standard deviation
    clamped to ``[log_std_min, log_std_max]`` (IQL's and AWAC's policy in CORL).

    With an ``encoder`` (a dict observation with images), the mean's MLP takes the encoder's features;
    ``obs_dim`` is then unused.

    Examples:
        >>> mean, log_std = GaussianPolicy(3, 2, (8,))(torch.zeros(4, 3))
        >>> mean.shape, log_std.shape
        (torch.Size([4, 2]), torch.Size([2]))
    """

    def __init__(
        self,
        obs_dim: int,
        act_dim: int,
        hidden: Sequence[int],
        log_std_min: float = -20.0,
        log_std_max: float = 2.0,
        *,
        encoder: MultiInputEncoder | None = None,
    ) -> None:
        super().__init__()
        self.encoder = encoder
        self.net = mlp(obs_dim if encoder is None else encoder.out_features, act_dim, hidden)
        self.log_std = nn.Parameter(torch.zeros(act_dim))
        self.log_std_min, self.log_std_max = log_std_min, log_std_max

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Returns ``(mean, log_std)`` of the unit action."""
        if self.encoder is not None:
            obs = self.encoder(obs)
        return torch.tanh(self.net(obs)), self.log_std.clamp(self.log_std_min, self.log_std_max)

    def log_prob(self, obs: torch.Tensor, unit_action: torch.Tensor) -> torch.Tensor:
        """``log N(unit_action; mean(obs), std)`` summed over the action's components, ``(batch,)``."""
        mean, log_std = self.forward(obs)
        z = (unit_action - mean) / log_std.exp()
        return (-0.5 * z**2 - log_std - _LOG_SQRT_2PI).sum(-1)

    def sample(self, obs: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
        """A unit action drawn from the policy (reparameterised, so gradients flow through the mean)."""
        mean, log_std = self.forward(obs)
        noise = torch.randn(mean.shape, generator=generator, device=mean.device)
        return mean + log_std.exp() * noise
