"""TD3+BC's policy loss as a pure function of tensors (its critic loss is TD3's)."""

from __future__ import annotations

import torch


def td3bc_actor_loss(
    q: torch.Tensor, policy_act: torch.Tensor, data_act: torch.Tensor, alpha: float
) -> torch.Tensor:
    """``-lambda * mean Q(s, pi(s)) + mean (pi(s) - a)^2`` with ``lambda = alpha / mean |Q|`` (held
    constant in the gradient): the Q term's scale no longer depends on the rewards' (Fujimoto and Gu,
    2021).

    Examples:
        >>> q = torch.tensor([2.0, -2.0, 4.0])  # mean |Q| = 8/3: lambda = 2.5 * 3/8; mean Q = 4/3
        >>> pi, a = torch.zeros(3, 1), torch.tensor([[1.0], [0.0], [1.0]])  # MSE = 2/3
        >>> round(float(td3bc_actor_loss(q, pi, a, 2.5)), 4)  # -(15/16)(4/3) + 2/3 = -1.25 + 0.6667
        -0.5833
    """
    lam = alpha / q.abs().mean().detach()
    return -lam * q.mean() + ((policy_act - data_act) ** 2).mean()
