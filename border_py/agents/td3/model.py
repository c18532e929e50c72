"""TD3's networks: a deterministic action squashed into the Box, and critics that see that action rescaled
to ``[-1, 1]``."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from border_py.agents.ensemble import CriticEnsemble
from border_py.agents.multi_input import Encoder
from border_py.agents.toolkit import mlp


class DeterministicActor(nn.Module):
    """``bias + scale * tanh(mlp(obs))``: an action within the bounds.

    Examples:
        >>> actor = DeterministicActor(3, 2, (8,), torch.full((2,), 2.0), torch.zeros(2))
        >>> bool((actor(torch.randn(5, 3)).abs() <= 2.0).all())
        True
    """

    def __init__(
        self,
        obs_dim: int,
        act_dim: int,
        hidden: Sequence[int],
        scale: torch.Tensor,
        bias: torch.Tensor,
        encoder: Encoder | None = None,
    ) -> None:
        super().__init__()
        self.encoder = encoder  # a dict observation with images: the MLP takes its features
        self.net = mlp(obs_dim if encoder is None else encoder.out_features, act_dim, hidden)
        # Constants of the env, not parameters: outside the state dict, moved with the module.
        self.scale: torch.Tensor
        self.bias: torch.Tensor
        self.register_buffer("scale", scale.clone(), persistent=False)
        self.register_buffer("bias", bias.clone(), persistent=False)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Returns actions ``(batch, act_dim)``."""
        x = obs if self.encoder is None else self.encoder(obs)
        return self.bias + self.scale * torch.tanh(self.net(x))


class BoxCritic(CriticEnsemble):
    """The toolkit's `CriticEnsemble` over actions rescaled to ``[-1, 1]``: ``(act - bias) / scale``.

    Why: with actions in env units the critic's input, and so the slope the policy climbs, grows with the
    box. On InvertedPendulum's ``[-3, 3]`` the policy then drove its tanh further into saturation in its
    first hundred updates and never came back (issue 37; ``benchmarks/RESULTS.md``), where the same agent
    on the box rescaled to ``[-1, 1]``, and SB3's TD3 (which stores rescaled actions), recovered. So
    learning no longer depends on the units of the box; on a ``[-1, 1]`` box nothing changes, bit for bit.

    Examples:
        >>> critic = BoxCritic(3, 1, (8,), 2, torch.full((1,), 3.0), torch.zeros(1))
        >>> bool(torch.equal(critic(torch.zeros(1, 3), torch.full((1, 1), 3.0)),
        ...                  CriticEnsemble.forward(critic, torch.zeros(1, 3), torch.ones(1, 1))))
        True
    """

    def __init__(
        self,
        obs_dim: int,
        act_dim: int,
        hidden: Sequence[int],
        n: int,
        scale: torch.Tensor,
        bias: torch.Tensor,
        encoder: Encoder | None = None,
    ) -> None:
        super().__init__(obs_dim, act_dim, hidden, n, encoder=encoder)
        # Constants of the env, not parameters: outside the state dict (checkpoints keep their keys).
        self.scale: torch.Tensor
        self.bias: torch.Tensor
        self.register_buffer("scale", scale.clone(), persistent=False)
        self.register_buffer("bias", bias.clone(), persistent=False)

    def first(self, obs: torch.Tensor, act: torch.Tensor) -> torch.Tensor:
        """The first critic's Q-value of the env-unit action ``act``, ``(batch,)``."""
        return super().first(obs, (act - self.bias) / self.scale)

    def forward(self, obs: torch.Tensor, act: torch.Tensor) -> torch.Tensor:
        """Every critic's Q-value of the env-unit action ``act``, ``(n, batch)``."""
        return super().forward(obs, (act - self.bias) / self.scale)
