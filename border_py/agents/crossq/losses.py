"""CrossQ's loss math as pure functions of tensors (the critics' loss and the policy's are SAC's)."""

from __future__ import annotations

import torch

from border_py.agents.sac.losses import soft_q_target


def joint_critic_values(
    q_joint: torch.Tensor,
    reward: torch.Tensor,
    is_terminated: torch.Tensor,
    discount: torch.Tensor,
    next_log_prob: torch.Tensor,
    alpha: torch.Tensor | float,
    reward_scale: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The critics' outputs ``(n, 2 batch)`` on the joint batch, the current state-actions then the next
    ones, split into the outputs for the current ones, ``(n, batch)``, and their soft Bellman target,
    ``(batch,)``: ``reward_scale * r + discount * (1 - terminated) * (min_i Q_i(s', a') - alpha log
    pi(a'|s'))`` from the next half, without gradient (CrossQ's critics are their own target).

    Examples:
        >>> q = torch.tensor([[1.0, 3.0], [2.0, 5.0]])  # 2 critics; Q(s, a) then Q(s', a') of one item
        >>> one = torch.ones(1)
        >>> joint_critic_values(q, one, 0 * one, 0.5 * one, 0 * one, 0.2, 1.0)  # 1 + 0.5 min(3, 5)
        (tensor([[1.],
                [2.]]), tensor([2.5000]))
    """
    if q_joint.shape[1] % 2:
        raise ValueError(f"a joint batch holds the current and the next items: {q_joint.shape[1]} is odd")
    q, next_q = q_joint.split(q_joint.shape[1] // 2, dim=1)
    next_q_min = next_q.detach().min(dim=0).values
    target = soft_q_target(reward, is_terminated, discount, next_q_min, next_log_prob, alpha, reward_scale)
    return q, target
