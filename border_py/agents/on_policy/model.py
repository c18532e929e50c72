"""The on-policy agents' networks (PPO, A2C): separate policy and value MLPs (or a pixel encoder and an MLP
both share), a Categorical or a Gaussian head, and gSDE."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence

import torch
from torch import nn

from border_py.agents.multi_input import Encoder

_ACTIVATIONS = {"tanh": torch.tanh, "relu": torch.relu}


class TwinMlp(nn.Module):
    """Two MLPs of the same shape on the same input, computed together: each layer's two weight matrices
    are stacked and multiplied in one batched matmul, and the activation runs once over both. The same
    function as two separate MLPs, with half the kernel launches, which is most of the cost of small
    networks on a CPU.

    Initialisation per network: orthogonal with ``gain`` (``None``: PyTorch's ``nn.Linear`` default,
    uniform in ``+-1/sqrt(fan_in)``), zero biases with orthogonal weights.

    Examples:
        >>> pi, vf = TwinMlp(4, (8, 8), "tanh", gain=math.sqrt(2))(torch.zeros(3, 4))
        >>> pi.shape, vf.shape
        (torch.Size([3, 8]), torch.Size([3, 8]))
    """

    def __init__(self, in_dim: int, hidden: Sequence[int], activation: str, gain: float | None) -> None:
        super().__init__()
        self.activation = _ACTIVATIONS[activation]
        self.weights = nn.ParameterList()
        self.biases = nn.ParameterList()
        for width in hidden:
            weight, bias = torch.empty(2, in_dim, width), torch.zeros(2, 1, width)
            for k in range(2):
                if gain is None:
                    bound = 1.0 / math.sqrt(in_dim)
                    nn.init.uniform_(weight[k], -bound, bound)
                    nn.init.uniform_(bias[k], -bound, bound)
                else:
                    nn.init.orthogonal_(weight[k], gain=gain)
            self.weights.append(nn.Parameter(weight))
            self.biases.append(nn.Parameter(bias))
            in_dim = width

    def forward(self, x: torch.Tensor, first_only: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        """Returns both networks' outputs for ``x`` ``(batch, in_dim)`` (with ``first_only``, the first
        one's, twice, without computing the second)."""
        k = 1 if first_only else 2
        h = self._layers(x.unsqueeze(0).expand(k, -1, -1))
        return h[0], h[k - 1]

    def pair(self, x_pi: torch.Tensor, x_vf: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The first network's output for ``x_pi`` and the second's for ``x_vf`` (both ``(batch,
        in_dim)``): the two networks on inputs of their own (recurrent PPO's two LSTMs' outputs)."""
        h = self._layers(torch.stack((x_pi, x_vf)))
        return h[0], h[1]

    def _layers(self, h: torch.Tensor) -> torch.Tensor:
        """The first ``len(h)`` networks' layers on ``h`` ``(k, batch, in_dim)``."""
        k = h.shape[0]
        for weight, bias in zip(self.weights, self.biases, strict=True):
            h = self.activation(torch.baddbmm(bias[:k], h, weight[:k]))
        return h


def orthogonal_init(modules: Iterable[nn.Module], gain: float) -> None:
    """Initialises every convolution and linear layer of ``modules`` orthogonally with ``gain`` and zero
    biases (SB3's ``ortho_init`` of a features extractor)."""
    for module in modules:
        if isinstance(module, nn.Conv2d | nn.Linear):
            nn.init.orthogonal_(module.weight, gain=gain)
            assert module.bias is not None
            nn.init.zeros_(module.bias)


class SharedTrunk(nn.Module):
    """A pixel encoder then one MLP, shared by the policy and the value (CleanRL's ``ppo_atari.py`` and
    SB3's ``CnnPolicy``: the Nature CNN and a 512-unit layer). Called as a `TwinMlp` is, it returns its
    features twice. With a ``gain``, every convolution and layer is initialised orthogonally with it and
    zero biases.

    Examples:
        >>> from border_py.agents.cnn import NatureCnn
        >>> trunk = SharedTrunk(NatureCnn((4, 36, 36)), (16,), "relu", gain=math.sqrt(2))
        >>> pi, vf = trunk(torch.zeros(2, 4, 36, 36, dtype=torch.uint8))
        >>> pi.shape, pi is vf
        (torch.Size([2, 16]), True)
    """

    def __init__(self, encoder: Encoder, hidden: Sequence[int], activation: str, gain: float | None) -> None:
        super().__init__()
        self.encoder = encoder
        self.activation = _ACTIVATIONS[activation]
        widths = [encoder.out_features, *hidden]
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in itertools.pairwise(widths))
        if gain is not None:
            orthogonal_init((*self.encoder.modules(), *self.layers), gain)

    def forward(self, x: torch.Tensor, first_only: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        """Returns the features of ``x`` (frame stacks ``(batch, channels, height, width)``), twice."""
        h = self.encoder(x)
        for layer in self.layers:
            h = self.activation(layer(h))
        return h, h


class ActorCritic(nn.Module):
    """``latent_pi, latent_vf = body(obs)`` (a `TwinMlp`: separate policy and value networks; with an
    ``encoder``, a `SharedTrunk` both share); the action head maps ``latent_pi`` to logits (discrete) or
    the mean action (continuous), the value head ``latent_vf`` to ``V(obs)``.

    Continuous actions have a state-independent ``log_std`` of shape ``(act_dim,)``; with gSDE it has shape
    ``(latent_dim, act_dim)``: the standard deviations of the noise weights. With ``ortho_init`` the hidden
    layers are initialised orthogonally with gain sqrt(2), the action head with 0.01 and the value head 1.

    Examples:
        >>> net = ActorCritic(4, 2, True, (8,), "tanh", True, 0.0, gsde=False)
        >>> latent, out, value = net(torch.zeros(3, 4))
        >>> out.shape, value.shape
        (torch.Size([3, 2]), torch.Size([3]))
    """

    log_std: nn.Parameter | None

    def __init__(
        self,
        obs_dim: int,
        act_dim: int,
        discrete: bool,
        hidden: Sequence[int],
        activation: str,
        ortho_init: bool,
        log_std_init: float,
        gsde: bool,
        encoder: Encoder | None = None,
    ) -> None:
        super().__init__()
        gain = math.sqrt(2) if ortho_init else None
        self.body: TwinMlp | SharedTrunk = (
            TwinMlp(obs_dim, hidden, activation, gain)
            if encoder is None
            else SharedTrunk(encoder, hidden, activation, gain)
        )
        self.action_net = nn.Linear(hidden[-1], act_dim)
        self.value_net = nn.Linear(hidden[-1], 1)
        self.log_std = None
        if not discrete:
            shape = (hidden[-1], act_dim) if gsde else (act_dim,)
            self.log_std = nn.Parameter(torch.full(shape, float(log_std_init)))
        if ortho_init:
            for head, gain in ((self.action_net, 0.01), (self.value_net, 1.0)):
                nn.init.orthogonal_(head.weight, gain=gain)
                nn.init.zeros_(head.bias)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Returns ``(latent_pi, logits or mean action, value)``."""
        latent_pi, latent_vf = self.body(obs)
        return latent_pi, self.action_net(latent_pi), self.value_net(latent_vf).squeeze(-1)

    def policy(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Returns ``(latent_pi, logits or mean action)``: what acting needs, without the value."""
        latent_pi, _ = self.body(obs, first_only=True)
        return latent_pi, self.action_net(latent_pi)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """``V(obs)``, ``(batch,)``."""
        _, latent_vf = self.body(obs)
        out: torch.Tensor = self.value_net(latent_vf).squeeze(-1)
        return out


MASKED_LOGIT = -1.0e8
"""A forbidden action's logit: its probability is 0 in float32, and unlike ``-inf`` it keeps the entropy's
``p * log p`` at 0 rather than NaN (sb3-contrib's ``MaskableCategorical`` uses the same value)."""


def masked_logits(logits: torch.Tensor, legal: torch.Tensor | None) -> torch.Tensor:
    """``logits`` with the actions ``legal`` does not flag (bool, the same shape) set to `MASKED_LOGIT`;
    ``logits`` itself without a mask.

    Examples:
        >>> legal = torch.tensor([[True, True, False]])
        >>> torch.softmax(masked_logits(torch.tensor([[1.0, 2.0, 3.0]]), legal), -1)
        tensor([[0.2689, 0.7311, 0.0000]])
    """
    return logits if legal is None else logits.masked_fill(~legal, MASKED_LOGIT)
