"""What the on-policy agents compute from a rollout, as pure functions of tensors: the values a rollout
bootstraps from, generalized advantage estimates and returns, and how much of the returns' variance the
values explain."""

from __future__ import annotations

from collections.abc import Callable

import torch

from border_py.replay_buffer.rollout import Rollout


def gae(
    reward: torch.Tensor,
    value: torch.Tensor,
    next_value: torch.Tensor,
    is_terminated: torch.Tensor,
    is_truncated: torch.Tensor,
    discount: torch.Tensor,
    lam: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Generalized advantage estimates and returns of a rollout, all ``(n_steps, num_envs)``.

    ``delta_t = r_t + discount_t (1 - terminated_t) V(next_obs_t) - V(obs_t)`` and
    ``A_t = delta_t + discount_t lam (1 - done_t) A_(t+1)``, with ``done = terminated or truncated``: a
    truncated step bootstraps from its final observation's value, a terminated one from nothing, and no
    advantage flows back across an episode end. The last step bootstraps from ``V(next_obs)``.

    Returns:
        ``(advantages, returns)`` with ``returns = advantages + value``.

    Examples:
        >>> z = torch.zeros(2, 1)
        >>> a, r = gae(torch.ones(2, 1), z, z, z, z, torch.full((2, 1), 0.5), lam=1.0)
        >>> a.squeeze(1).tolist()
        [1.5, 1.0]
    """
    not_terminated, not_done = 1.0 - is_terminated, 1.0 - torch.clamp(is_terminated + is_truncated, max=1.0)
    delta = reward + discount * not_terminated * next_value - value
    advantages = torch.zeros_like(delta)
    running = torch.zeros_like(delta[0])
    for t in range(delta.shape[0] - 1, -1, -1):
        running = delta[t] + discount[t] * lam * not_done[t] * running
        advantages[t] = running
    return advantages, advantages + value


def explained_variance(prediction: torch.Tensor, target: torch.Tensor) -> float:
    """``1 - Var(target - prediction) / Var(target)``: 1 is perfect, 0 no better than a constant; NaN when
    the target does not vary.

    Examples:
        >>> explained_variance(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0]))
        1.0
    """
    var = torch.var(target)
    return float("nan") if float(var) == 0.0 else float(1.0 - torch.var(target - prediction) / var)


def bootstrap_values(
    rollout: Rollout, value: torch.Tensor, value_at: Callable[[torch.Tensor], torch.Tensor]
) -> torch.Tensor:
    """``V(next_obs)`` of every step of ``rollout``, ``(n_steps, num_envs)``: where a sub-env's episode went
    on, the next step's ``value``; at truncations and the rollout's last step, ``value_at(rows)`` (the
    flat, step-major rows); after a termination anything (it is multiplied by 0)."""
    next_value = torch.zeros_like(value)
    next_value[:-1] = value[1:]
    need = rollout.is_truncated > 0
    need[-1] = True
    rows = need.reshape(-1).nonzero().squeeze(1)
    next_value.view(-1)[rows] = value_at(rows)
    return next_value
