"""PPO's math as pure functions of tensors: the clipped surrogate, the value loss, the approximate KL (GAE
and the explained variance, which A2C shares, are in `border_py.agents.on_policy.returns`)."""

from __future__ import annotations

import torch


def clipped_surrogate(
    log_prob: torch.Tensor, old_log_prob: torch.Tensor, advantage: torch.Tensor, clip: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """PPO's policy loss ``-mean(min(ratio A, clip(ratio, 1 - clip, 1 + clip) A))`` and the ratios.

    Examples:
        >>> loss, _ = clipped_surrogate(torch.tensor([0.5]), torch.tensor([0.0]), torch.tensor([2.0]), 0.2)
        >>> round(float(loss), 4)
        -2.4
    """
    ratio = torch.exp(log_prob - old_log_prob)
    unclipped = ratio * advantage
    clipped = torch.clamp(ratio, 1.0 - clip, 1.0 + clip) * advantage
    return -torch.min(unclipped, clipped).mean(), ratio


def value_loss(
    value: torch.Tensor, old_value: torch.Tensor, returns: torch.Tensor, clip: float | None
) -> torch.Tensor:
    """``mean((returns - V)^2)``, with ``V`` kept within ``clip`` of the rollout's value when ``clip`` is
    set (SB3's ``clip_range_vf``: the clipped prediction replaces the prediction).

    Examples:
        >>> float(value_loss(torch.tensor([3.0]), torch.tensor([0.0]), torch.tensor([1.0]), clip=0.5))
        0.25
    """
    if clip is not None:
        value = old_value + torch.clamp(value - old_value, -clip, clip)
    return ((returns - value) ** 2).mean()


def approx_kl(log_prob: torch.Tensor, old_log_prob: torch.Tensor) -> torch.Tensor:
    """The estimator ``mean((ratio - 1) - log ratio)`` of ``KL(old || new)`` (always >= 0).

    Examples:
        >>> float(approx_kl(torch.zeros(3), torch.zeros(3)))
        0.0
    """
    log_ratio = log_prob - old_log_prob
    return ((torch.exp(log_ratio) - 1.0) - log_ratio).mean()
