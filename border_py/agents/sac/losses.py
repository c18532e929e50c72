"""SAC's loss math, and gSDE's noise and its law, as pure functions of tensors."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

_LOG_2PI = math.log(2.0 * math.pi)
_LOG_2 = math.log(2.0)
_SDE_EPS = 1e-6
"""gSDE's epsilon (SB3's): in the expln branch above 0 and under the square root of the noise's variance."""


def squashed_gaussian_log_prob(
    u: torch.Tensor, mean: torch.Tensor, log_std: torch.Tensor, scale: torch.Tensor
) -> torch.Tensor:
    """The log-density of the action ``a = bias + scale * tanh(u)``, ``u ~ N(mean, exp(log_std))``.

    ``log p(a) = sum_i [log N(u_i; mean_i, std_i) - log(scale_i) - log(1 - tanh(u_i)^2)]``, with the full
    Gaussian log-density (including ``-log std``) and the Jacobian of both the tanh and the scale.
    ``log(1 - tanh(u)^2)`` is computed as
    ``2 (log 2 - u - softplus(-2u))``, which stays finite where ``tanh(u)`` rounds to 1.

    Args:
        u: pre-squash actions, ``(batch, act_dim)``.
        mean: the Gaussian's mean, same shape.
        log_std: the Gaussian's log standard deviation, same shape.
        scale: half the action range, ``(act_dim,)``.

    Returns:
        ``(batch,)`` log-densities.

    Examples:
        >>> z = torch.zeros(1, 1)
        >>> float(squashed_gaussian_log_prob(z, z, z, torch.ones(1)))  # log N(0; 0, 1), Jacobian 1
        -0.9189385175704956
    """
    gaussian = -0.5 * ((u - mean) / log_std.exp()) ** 2 - log_std - 0.5 * _LOG_2PI
    log_det = torch.log(scale) + 2.0 * (_LOG_2 - u - F.softplus(-2.0 * u))
    return (gaussian - log_det).sum(dim=-1)


def soft_q_target(
    reward: torch.Tensor,
    is_terminated: torch.Tensor,
    discount: torch.Tensor,
    next_q_min: torch.Tensor,
    next_log_prob: torch.Tensor,
    alpha: torch.Tensor | float,
    reward_scale: float,
) -> torch.Tensor:
    """The soft Bellman target
    ``reward_scale * r + discount * (1 - terminated) * (min_i Q_i'(s', a') - alpha log pi(a'|s'))``.

    Bootstraps through truncation (a time limit is not a terminal state), not termination.

    Examples:
        >>> one = torch.ones(1)
        >>> soft_q_target(one, 0 * one, 0.5 * one, 4 * one, -2 * one, 0.5, 1.0)  # 1 + 0.5 (4 + 1)
        tensor([3.5000])
    """
    return reward_scale * reward + discount * (1.0 - is_terminated) * (next_q_min - alpha * next_log_prob)


def critic_loss(q: torch.Tensor, target: torch.Tensor, weight: torch.Tensor | None = None) -> torch.Tensor:
    """``sum_i mean_batch 0.5 (Q_i - target)^2`` over the ensemble (``q`` is ``(n, batch)``), weighted by
    importance weights when given.

    Examples:
        >>> critic_loss(torch.tensor([[1.0], [3.0]]), torch.tensor([2.0]))  # 0.5 (1 + 1)
        tensor(1.)
    """
    per_item = 0.5 * (q - target.unsqueeze(0)) ** 2
    if weight is not None:
        per_item = per_item * weight.unsqueeze(0)
    return per_item.mean(dim=1).sum()


def actor_loss(log_prob: torch.Tensor, q_min: torch.Tensor, alpha: torch.Tensor | float) -> torch.Tensor:
    """``mean(alpha log pi(a|s) - min_i Q_i(s, a))`` for actions ``a`` freshly sampled from the policy.

    Examples:
        >>> actor_loss(torch.tensor([-1.0, -3.0]), torch.tensor([2.0, 4.0]), 0.5)
        tensor(-4.)
    """
    return (alpha * log_prob - q_min).mean()


def alpha_loss(log_alpha: torch.Tensor, log_prob: torch.Tensor, target_entropy: float) -> torch.Tensor:
    """``-mean(log_alpha * (log pi + target_entropy))``: raises alpha when the entropy ``-log pi`` is
    below the target, lowers it when above.

    Examples:
        >>> alpha_loss(torch.tensor(0.0), torch.tensor([1.0]), -1.0)
        tensor(-0.)
    """
    return -(log_alpha * (log_prob + target_entropy).detach()).mean()


def gsde_weight_std(log_std: torch.Tensor, use_expln: bool) -> torch.Tensor:
    """The standard deviations of gSDE's noise weights from their learnt log, ``(latent_dim, act_dim)``:
    ``exp(log_std)``, or with ``use_expln`` (Raffin et al., 2021; SB3's ``get_std``) ``exp(log_std)`` up
    to 0 and ``log1p(log_std + 1e-6) + 1`` above, which grows as a log rather than exponentially.

    Examples:
        >>> gsde_weight_std(torch.tensor([0.0, 1.0]), use_expln=True)  # exp(0); log(2 + 1e-6) + 1
        tensor([1.0000, 1.6931])
    """
    if not use_expln:
        return log_std.exp()
    above = log_std > 0
    # Each branch is computed where it is finite and masked by multiplication (SB3's arithmetic): no NaN
    # from log1p of a value below -1 reaches the gradient.
    below_part = log_std.exp() * ~above
    above_part = (torch.log1p(log_std * above + _SDE_EPS) + 1.0) * above
    return below_part + above_part


def gsde_noise(latent: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """gSDE's noise ``latent @ W``, ``(batch, act_dim)``: one matrix ``W`` ``(latent_dim, act_dim)`` for
    the whole batch, or one per row ``(batch, latent_dim, act_dim)`` (each sub-env's own).

    Examples:
        >>> gsde_noise(torch.tensor([[1.0, 2.0]]), torch.tensor([[0.5], [-1.0]]))  # 0.5 - 2
        tensor([[-1.5000]])
    """
    if weights.dim() == 2:
        return latent @ weights
    return torch.bmm(latent.unsqueeze(1), weights).squeeze(1)


def gsde_log_std(latent: torch.Tensor, weight_std: torch.Tensor) -> torch.Tensor:
    """The log standard deviation of gSDE's noise ``latent @ W``, ``W ~ N(0, weight_std^2)``, in each
    state: ``0.5 log(latent^2 @ weight_std^2 + 1e-6)``, ``(batch, act_dim)`` (SB3's variance, with its
    epsilon). The noise has this Gaussian law given the state, which the action's log-probability uses.

    Examples:
        >>> float(gsde_log_std(torch.tensor([[3.0, 4.0]]), torch.ones(2, 1)).exp())  # sqrt(9 + 16 + 1e-6)
        5.0
    """
    return 0.5 * torch.log(latent**2 @ weight_std**2 + _SDE_EPS)
