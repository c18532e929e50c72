"""TQC's loss math as pure functions of tensors."""

from __future__ import annotations

import torch

from border_py.agents.iqn.losses import quantile_huber_loss


def truncated_target(
    reward: torch.Tensor,
    is_terminated: torch.Tensor,
    discount: torch.Tensor,
    next_quantiles: torch.Tensor,
    n_drop: int,
    next_log_prob: torch.Tensor,
    alpha: torch.Tensor | float,
    reward_scale: float,
) -> torch.Tensor:
    """The target atoms ``(batch, K)``: the target critics' quantiles ``(n, batch, M)`` of the next state
    pooled and sorted, the ``n_drop`` largest dropped (``K = n M - n_drop``), then
    ``reward_scale * r + discount * (1 - terminated) * (z - alpha log pi(a'|s'))`` for each kept ``z``.

    Examples:
        >>> z = torch.tensor([[[3.0, 1.0]], [[4.0, 2.0]]])  # 2 critics, 1 item, 2 quantiles
        >>> one = torch.ones(1)
        >>> truncated_target(one, 0 * one, 0.5 * one, z, 1, 0 * one, 0.0, 1.0)  # 1 + 0.5 x (1, 2, 3)
        tensor([[1.5000, 2.0000, 2.5000]])
    """
    pooled = next_quantiles.permute(1, 0, 2).reshape(next_quantiles.shape[1], -1)
    kept = pooled.sort(dim=1).values[:, : pooled.shape[1] - n_drop]
    bootstrap = (discount * (1.0 - is_terminated)).unsqueeze(1)
    return (reward_scale * reward).unsqueeze(1) + bootstrap * (kept - alpha * next_log_prob.unsqueeze(1))


def quantile_critic_loss(
    quantiles: torch.Tensor, target: torch.Tensor, weight: torch.Tensor | None = None
) -> torch.Tensor:
    """The quantile Huber loss (kappa 1) of every critic's quantiles ``(n, batch, M)`` at the fractions
    ``(i + 1/2) / M`` against every target atom ``(batch, K)``, averaged over critics, quantiles, atoms
    and the batch (sb3-contrib's and the paper's mean), items weighted by ``weight`` when given.

    Examples:
        >>> quantile_critic_loss(torch.tensor([[[0.0, 1.0]]]), torch.tensor([[0.5, 3.0]]))  # 0.90625 / 2
        tensor(0.4531)
    """
    n, batch, m = quantiles.shape
    taus = (torch.arange(m, device=quantiles.device, dtype=quantiles.dtype) + 0.5) / m
    pred = quantiles.permute(1, 0, 2).reshape(batch, n * m)  # (batch, n M): critic-major
    per_item = quantile_huber_loss(pred, taus.repeat(n).expand(batch, -1), target, 1.0) / (n * m)
    return (per_item * weight).mean() if weight is not None else per_item.mean()
