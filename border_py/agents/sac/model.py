"""SAC's policy network: a tanh-squashed Gaussian, with a state-independent-per-output head or gSDE's
noise weights (its critics are the toolkit's `CriticEnsemble`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import nn

from border_py.agents.multi_input import Encoder
from border_py.agents.toolkit import mlp


class GaussianActor(nn.Module):
    """Maps observations to the mean and the (clamped) log standard deviation of a Gaussian over the
    pre-squash action ``u``; the action is ``bias + scale * tanh(u)``.

    The network outputs ``log_std``; the std is ``exp(log_std)``, taken once, where the loss needs it.
    With ``norm`` (CrossQ), the network normalises its input and each hidden activation (`mlp`'s
    ``norm``).

    With an ``encoder`` (`border_py.agents.multi_input`: a dict observation with images), the network
    takes the encoder's features; ``obs_dim`` is then unused.

    With ``gsde_log_std_init`` (generalized state-dependent exploration, SB3's SAC ``use_sde``) the network
    outputs the mean alone, and the noise comes from ``log_std``, a parameter of shape ``(latent_dim,
    act_dim)`` (the log standard deviations of the noise weights, all at ``gsde_log_std_init`` at first),
    and the last hidden layer's features ``latent`` (``latent_dim`` is its width, or ``obs_dim`` without
    hidden layers); `forward` then returns ``(mean, latent)``, the mean held in ``[-clip_mean,
    clip_mean]`` when given (SB3's gSDE actor's ``clip_mean``).

    Examples:
        >>> mean, log_std = GaussianActor(3, 2, (8,), -20.0, 2.0)(torch.zeros(5, 3))
        >>> mean.shape, log_std.shape
        (torch.Size([5, 2]), torch.Size([5, 2]))
        >>> gsde = GaussianActor(3, 2, (8,), -20.0, 2.0, gsde_log_std_init=-3.0)
        >>> mean, latent = gsde(torch.zeros(5, 3))
        >>> mean.shape, latent.shape, gsde.log_std.shape
        (torch.Size([5, 2]), torch.Size([5, 8]), torch.Size([8, 2]))
    """

    log_std: nn.Parameter | None

    def __init__(
        self,
        obs_dim: int,
        act_dim: int,
        hidden: Sequence[int],
        log_std_min: float,
        log_std_max: float,
        norm: Callable[[int], nn.Module] | None = None,
        *,
        gsde_log_std_init: float | None = None,
        encoder: Encoder | None = None,
        clip_mean: float | None = None,
    ) -> None:
        super().__init__()
        gsde = gsde_log_std_init is not None
        self.encoder = encoder
        in_dim = obs_dim if encoder is None else encoder.out_features
        self.net = mlp(in_dim, act_dim if gsde else 2 * act_dim, hidden, norm)
        self.log_std_min = log_std_min
        self.log_std_max = log_std_max
        self.log_std = None
        self.clip_mean = clip_mean
        if gsde_log_std_init is not None:
            latent_dim = hidden[-1] if hidden else in_dim
            self.log_std = nn.Parameter(torch.full((latent_dim, act_dim), float(gsde_log_std_init)))

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Returns ``(mean, log_std)`` of ``u``, each ``(batch, act_dim)``; with gSDE ``(mean, latent)``,
        ``latent`` ``(batch, latent_dim)``: the features the noise is made from."""
        if self.encoder is not None:
            obs = self.encoder(obs)
        if self.log_std is None:
            mean, log_std = self.net(obs).chunk(2, dim=-1)
            return mean, log_std.clamp(self.log_std_min, self.log_std_max)
        *body, head = self.net
        latent = obs
        for layer in body:
            latent = layer(latent)
        mean = head(latent)
        if self.clip_mean is not None:  # SB3's Hardtanh after its gSDE mean: no gradient beyond
            mean = nn.functional.hardtanh(mean, -self.clip_mean, self.clip_mean)
        return mean, latent
