"""A2C's policy loss as a pure function of tensors (its value loss is PPO's without the clip:
`border_py.agents.ppo.losses.value_loss`)."""

from __future__ import annotations

import torch


def policy_gradient_loss(log_prob: torch.Tensor, advantage: torch.Tensor) -> torch.Tensor:
    """The advantage actor-critic's policy loss ``-mean(A log pi(a|s))``: its gradient is the policy
    gradient with the advantages as the weights (the advantages take no gradient).

    Examples:
        >>> float(policy_gradient_loss(torch.tensor([-1.0, -2.0]), torch.tensor([2.0, 1.0])))
        2.0
    """
    return -(advantage.detach() * log_prob).mean()
