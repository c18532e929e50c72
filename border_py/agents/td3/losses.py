"""TD3's loss math as pure functions of tensors."""

from __future__ import annotations

import torch


def smoothed_target_action(
    act: torch.Tensor,
    noise: torch.Tensor,
    noise_clip: float,
    scale: torch.Tensor,
    low: torch.Tensor,
    high: torch.Tensor,
) -> torch.Tensor:
    """Target policy smoothing: ``clip(act + scale * clip(noise, -noise_clip, noise_clip), low, high)``,
    with ``noise`` and ``noise_clip`` in half action ranges and ``scale`` the half range per dimension.

    Examples:
        >>> one = torch.ones(1, 1)
        >>> smoothed_target_action(0.5 * one, 2 * one, 0.25, 2 * one, -4 * one, 4 * one)  # 0.5 + 2 * 0.25
        tensor([[1.]])
        >>> smoothed_target_action(0.9 * one, 0.1 * one, 0.5, one, -one, one)  # the bound caps it
        tensor([[1.]])
    """
    return torch.max(torch.min(act + scale * noise.clamp(-noise_clip, noise_clip), high), low)


def td_target(
    reward: torch.Tensor, is_terminated: torch.Tensor, discount: torch.Tensor, next_q_min: torch.Tensor
) -> torch.Tensor:
    """``r + discount * (1 - terminated) * min_i Q_i'(s', a')``: bootstraps through truncation, not
    termination.

    Examples:
        >>> one = torch.ones(1)
        >>> td_target(one, 0 * one, 0.5 * one, 4 * one), td_target(one, one, 0.5 * one, 4 * one)
        (tensor([3.]), tensor([1.]))
    """
    return reward + discount * (1.0 - is_terminated) * next_q_min


def critic_loss(q: torch.Tensor, target: torch.Tensor, weight: torch.Tensor | None = None) -> torch.Tensor:
    """``sum_i mean_batch (Q_i - target)^2`` over the critics (``q`` is ``(n, batch)``), as Fujimoto et al.
    and SB3 (no 0.5), weighted by importance weights when given.

    Examples:
        >>> critic_loss(torch.tensor([[1.0], [4.0]]), torch.tensor([2.0]))  # 1 + 4
        tensor(5.)
    """
    per_item = (q - target.unsqueeze(0)) ** 2
    if weight is not None:
        per_item = per_item * weight.unsqueeze(0)
    return per_item.mean(dim=1).sum()


def actor_loss(q_first: torch.Tensor) -> torch.Tensor:
    """``-mean Q_1(s, pi(s))``: the policy climbs the first critic (TD3 and DDPG alike).

    Examples:
        >>> actor_loss(torch.tensor([1.0, 3.0]))
        tensor(-2.)
    """
    return -q_first.mean()
