"""Behaviour cloning's losses as pure functions of tensors."""

from __future__ import annotations

import torch
import torch.nn.functional as F


def regression_loss(predicted: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
    """Mean squared error between predicted and dataset actions (summed over components, averaged over
    the batch).

    Examples:
        >>> float(regression_loss(torch.tensor([[0.0, 1.0]]), torch.tensor([[1.0, 1.0]])))
        1.0
    """
    return ((predicted - action) ** 2).sum(-1).mean()


def likelihood_loss(log_prob: torch.Tensor) -> torch.Tensor:
    """Negative mean log-likelihood of the dataset actions.

    Examples:
        >>> float(likelihood_loss(torch.tensor([-1.0, -3.0])))
        2.0
    """
    return -log_prob.mean()


def classification_loss(logits: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
    """Cross-entropy of the dataset's discrete actions.

    Examples:
        >>> round(float(classification_loss(torch.zeros(1, 2), torch.tensor([1]))), 4)
        0.6931
    """
    return F.cross_entropy(logits, action.long().reshape(-1))
