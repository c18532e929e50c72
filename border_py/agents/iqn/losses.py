"""The quantile regression loss math of IQN and QR-DQN as pure functions of tensors."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from border_py.agents.dqn.losses import legal_only


def quantile_target(
    reward: torch.Tensor, is_terminated: torch.Tensor, discount: torch.Tensor, next_quantiles: torch.Tensor
) -> torch.Tensor:
    """The distributional target ``r + discount * (1 - terminated) * Z'(s', a*)``, ``(batch, n_target)``.

    Examples:
        >>> quantile_target(torch.ones(1), torch.zeros(1), torch.tensor([0.5]), torch.tensor([[2.0, 4.0]]))
        tensor([[2., 3.]])
    """
    return reward.unsqueeze(1) + (discount * (1.0 - is_terminated)).unsqueeze(1) * next_quantiles


def quantile_huber_loss(
    pred: torch.Tensor, taus: torch.Tensor, target: torch.Tensor, kappa: float
) -> torch.Tensor:
    """The quantile Huber loss of each batch item, ``(batch,)``.

    With ``u_ij = target_j - pred_i``: ``rho_ij = |tau_i - 1{u_ij < 0}| * H_kappa(u_ij) / kappa``, where
    ``H_kappa(u) = u^2 / 2`` for ``|u| <= kappa`` and ``kappa (|u| - kappa / 2)`` beyond; the loss is
    ``sum_i mean_j rho_ij`` (Dabney et al., 2018, eq. 3). Dividing by ``kappa`` makes it the quantile
    (pinball) loss ``|tau - 1{u < 0}| |u|`` for large errors.

    Args:
        pred: predicted quantiles, ``(batch, N)``.
        taus: their fractions, ``(batch, N)``.
        target: target quantiles (no gradient), ``(batch, N')``.
        kappa: the Huber threshold (> 0).

    Examples:
        >>> quantile_huber_loss(torch.tensor([[0.0]]), torch.tensor([[0.25]]), torch.tensor([[2.0]]), 1.0)
        tensor([0.3750])
    """
    # Broadcast views, one fused Huber kernel and one select: a third of the time of writing out
    # u = target - pred, its Huber branches and |tau - 1{u < 0}| (TQC's update spent a quarter of its
    # time here), with the same values and gradients bit for bit.
    pred_b = pred.unsqueeze(2).expand(-1, -1, target.shape[1])  # (batch, N, N')
    target_b = target.unsqueeze(1).expand_as(pred_b)
    huber = F.huber_loss(pred_b, target_b, reduction="none", delta=kappa)
    fraction = taus.unsqueeze(2)
    weight = torch.where(target_b < pred_b.detach(), 1.0 - fraction, fraction)  # u < 0: 1 - tau
    return (weight * huber / kappa).mean(dim=2).sum(dim=1)


def quantiles_of_action(quantiles: torch.Tensor, act: torch.Tensor) -> torch.Tensor:
    """The quantiles ``(batch, n)`` of action ``act[i]`` for each batch item ``i``, from ``quantiles``
    ``(batch, n, n_actions)``.

    Examples:
        >>> z = torch.tensor([[[1.0, 10.0], [2.0, 20.0]]])  # one item, 2 quantiles, 2 actions
        >>> quantiles_of_action(z, torch.tensor([1]))
        tensor([[10., 20.]])
    """
    index = act.long().reshape(-1, 1, 1).expand(-1, quantiles.shape[1], 1)
    return quantiles.gather(2, index).squeeze(2)


def greedy_quantiles(quantiles: torch.Tensor, legal: torch.Tensor | None = None) -> torch.Tensor:
    """The quantiles ``(batch, n)`` of each item's greedy action: the one whose quantiles ``(batch, n,
    n_actions)`` have the largest mean (the first on a tie); with ``legal`` (each item's legal actions,
    bool ``(batch, n_actions)``), the legal one with the largest mean, or any action for an item with none
    (as DQN's `border_py.agents.dqn.losses.next_state_value`).

    Examples:
        >>> z = torch.tensor([[[0.0, 1.0], [4.0, 2.0]]])  # means 2.0 and 1.5
        >>> greedy_quantiles(z)
        tensor([[0., 4.]])
        >>> greedy_quantiles(z, legal=torch.tensor([[False, True]]))
        tensor([[1., 2.]])
    """
    means = quantiles.mean(dim=1)
    if legal is not None:
        means = legal_only(means, legal)
    return quantiles_of_action(quantiles, means.argmax(dim=1))
