"""DQN's loss math as pure functions of tensors."""

from __future__ import annotations

from typing import Literal

import torch
import torch.nn.functional as F


def td_target(
    reward: torch.Tensor, is_terminated: torch.Tensor, next_value: torch.Tensor, discount: torch.Tensor
) -> torch.Tensor:
    """The TD target ``r + discount * (1 - terminated) * V(s')``.

    ``discount`` is each transition's own (``gamma`` for one step, ``gamma^k`` for ``k`` summed rewards).
    Bootstraps through truncation, not termination: a time-limit cut is not a terminal state, so its
    ``next_value`` (from the final observation of the episode) counts.

    Examples:
        >>> td_target(torch.tensor([1.0, 1.0]), torch.tensor([0.0, 1.0]), torch.tensor([2.0, 2.0]),
        ...           torch.tensor([0.5, 0.5]))
        tensor([2., 1.])
    """
    return reward + discount * (1.0 - is_terminated) * next_value


def legal_only(values: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """``values`` ``(n, n_actions)`` with the actions ``legal`` (bool, the same shape) forbids set to
    ``-inf``, so a max or an argmax over a row ranges over its legal actions; a row with no legal action
    keeps every value (an env may mask every action at a terminal state, whose value no target uses).

    Examples:
        >>> legal = torch.tensor([[True, False], [False, False]])
        >>> legal_only(torch.tensor([[1.0, 5.0], [4.0, 3.0]]), legal)
        tensor([[1., -inf],
                [4., 3.]])
    """
    legal = legal | ~legal.any(dim=1, keepdim=True)
    return values.masked_fill(~legal, -torch.inf)


def next_state_value(
    q_next_target: torch.Tensor, q_next_online: torch.Tensor | None = None, legal: torch.Tensor | None = None
) -> torch.Tensor:
    """The value of the next state: ``max_a Q_target(s', a)``.

    With ``q_next_online`` (double DQN): ``Q_target(s', argmax_a Q_online(s', a))``. With ``legal`` (the
    next states' legal actions, bool ``(n, n_actions)``): over the legal actions only; a state with none
    takes all (`legal_only`).

    Examples:
        >>> q = torch.tensor([[1.0, 5.0, 2.0], [4.0, 3.0, 0.0]])
        >>> next_state_value(q, legal=torch.tensor([[True, False, True], [False, False, False]]))
        tensor([2., 4.])
        >>> next_state_value(q, torch.tensor([[0.0, 1.0, 2.0], [0.0, 0.0, 9.0]]),
        ...                  torch.tensor([[True, True, False], [True, True, False]]))
        tensor([5., 4.])
    """
    if legal is not None:
        q_next_target = legal_only(q_next_target, legal)
        if q_next_online is not None:
            q_next_online = legal_only(q_next_online, legal)
    if q_next_online is None:
        return q_next_target.max(dim=1).values
    best = q_next_online.argmax(dim=1, keepdim=True)
    return q_next_target.gather(1, best).squeeze(1)


def td_loss(
    q_taken: torch.Tensor,
    target: torch.Tensor,
    kind: Literal["mse", "huber"],
    weight: torch.Tensor | None = None,
) -> torch.Tensor:
    """The mean (importance-weighted when ``weight`` is given) TD loss.

    ``mse`` is ``(q - target)^2`` (no 1/2); ``huber`` is smooth L1 with delta 1.

    Examples:
        >>> td_loss(torch.tensor([0.0, 0.0]), torch.tensor([0.5, 3.0]), "huber")
        tensor(1.3125)
    """
    if kind == "mse":
        per_item = F.mse_loss(q_taken, target, reduction="none")
    else:
        per_item = F.smooth_l1_loss(q_taken, target, reduction="none", beta=1.0)
    if weight is not None:
        per_item = per_item * weight
    return per_item.mean()
