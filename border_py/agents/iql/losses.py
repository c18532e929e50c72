"""IQL's and AWAC's loss math as pure functions of tensors."""

from __future__ import annotations

import math

import torch


def expectile_loss(diff: torch.Tensor, expectile: float) -> torch.Tensor:
    """Asymmetric squared loss ``mean(|expectile - 1{diff < 0}| diff^2)`` of ``diff = Q - V``: minimised by
    V at the ``expectile`` of Q.

    Examples:
        >>> float(expectile_loss(torch.tensor([1.0, -1.0]), 0.7))
        0.5
    """
    weight = torch.where(diff < 0.0, 1.0 - expectile, expectile)
    return (weight * diff**2).mean()


def advantage_weights(advantage: torch.Tensor, temperature: float, max_weight: float) -> torch.Tensor:
    """``min(exp(temperature * advantage), max_weight)``: the weights of advantage-weighted regression,
    clipped as the IQL paper and CORL do.

    Examples:
        >>> advantage_weights(torch.tensor([0.0, 10.0]), 1.0, 100.0).tolist()
        [1.0, 100.0]
    """
    return torch.exp(temperature * advantage).clamp(max=max_weight)


def value_target(
    reward: torch.Tensor, is_terminated: torch.Tensor, discount: torch.Tensor, next_value: torch.Tensor
) -> torch.Tensor:
    """``reward + (1 - terminated) * discount * V(next_obs)``.

    Examples:
        >>> half, four = torch.full((2,), 0.5), torch.full((2,), 4.0)
        >>> value_target(torch.ones(2), torch.tensor([0.0, 1.0]), half, four).tolist()
        [3.0, 1.0]
    """
    return reward + (1.0 - is_terminated) * discount * next_value


def cosine_lr(base: float, step: int, decay_steps: int) -> float:
    """The learning rate of update ``step`` (from 0) annealed from ``base`` to 0 along a cosine over
    ``decay_steps`` updates, 0 after them (torch's ``CosineAnnealingLR`` over one half-period, stepped once
    per update).

    Examples:
        >>> cosine_lr(1.0, 0, 100), cosine_lr(1.0, 50, 100), cosine_lr(1.0, 150, 100)
        (1.0, 0.5, 0.0)
    """
    done = min(step, decay_steps) / decay_steps
    return base * 0.5 * (1.0 + math.cos(math.pi * done))
