"""CQL's conservative penalty as pure functions of tensors (its TD part and its policy loss are SAC's)."""

from __future__ import annotations

import math

import torch


def conservative_gap(
    q: torch.Tensor,
    n_actions: int,
    log_density: torch.Tensor,
    temperature: float,
) -> torch.Tensor:
    """Per critic, ``mean_batch [temperature * logsumexp_j((Q(s, a_j) - log mu(a_j|s)) / temperature)
    - Q(s, a_data)]``: how far the critic's soft maximum over sampled actions stands above its value at
    the dataset's action (Kumar et al., 2020, CQL(H) with importance sampling).

    Args:
        q: ``(n_critics, batch, 1 + 3 * n_actions)``: column 0 at the dataset's action, then ``n_actions``
            uniform actions, ``n_actions`` from the policy at ``s``, ``n_actions`` from the policy at
            ``s'`` (all evaluated at ``s``).
        n_actions: the ``n_actions`` above.
        log_density: ``(batch, 3 * n_actions)``: the log-density of each sampled action under the
            distribution it was drawn from (``-act_dim * log 2`` for the uniform ones).
        temperature: of the log-sum-exp.

    Returns:
        ``(n_critics,)``.

    Examples:
        >>> q = torch.tensor([[[1.0, 0.0, 0.0, 0.0]]])  # one critic, one state, one action of each kind
        >>> log_mu = torch.full((1, 3), -math.log(2.0))  # each sampled action has density 1/2
        >>> float(conservative_gap(q, 1, log_mu, 1.0))  # log(3 * exp(0 + log 2)) - 1 = log 6 - 1
        0.7917594909667969
    """
    if q.shape[-1] != 1 + 3 * n_actions:
        raise ValueError(f"q has {q.shape[-1]} actions per state, expected 1 + 3 * {n_actions}")
    soft_max = temperature * torch.logsumexp((q[..., 1:] - log_density) / temperature, dim=-1)
    return (soft_max - q[..., 0]).mean(dim=-1)


def uniform_log_density(act_dim: int) -> float:
    """The log-density of the uniform distribution on ``[-1, 1]^act_dim``: ``-act_dim * log 2``.

    Examples:
        >>> round(uniform_log_density(3), 4)
        -2.0794
    """
    return -act_dim * math.log(2.0)


def conservative_penalty(
    gap: torch.Tensor, weight: float, log_alpha_prime: torch.Tensor | None, target_gap: float | None
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """The critics' penalty ``sum_i weight * gap_i``; with the Lagrangian variant (``target_gap`` set),
    ``sum_i alpha' * weight * (gap_i - target_gap)`` with ``alpha' = exp(log_alpha_prime)`` (held constant
    here) and alpha''s own loss ``-mean_i alpha' * weight * (gap_i - target_gap)`` (gaps held constant),
    which raises alpha' while the gap exceeds its target.

    Returns:
        ``(penalty, alpha_prime_loss or None)``.

    Examples:
        >>> gap = torch.tensor([2.0, 4.0])
        >>> float(conservative_penalty(gap, 5.0, None, None)[0])  # 5 * (2 + 4)
        30.0
        >>> penalty, loss = conservative_penalty(gap, 5.0, torch.tensor(0.0), 1.0)  # alpha' = 1
        >>> float(penalty), float(loss)  # 5 * (1 + 3); -(5 * 1 + 5 * 3) / 2
        (20.0, -10.0)
    """
    if target_gap is None or log_alpha_prime is None:
        return weight * gap.sum(), None
    alpha_prime = log_alpha_prime.exp().clamp(0.0, 1e6)
    penalty = (alpha_prime.detach() * weight * (gap - target_gap)).sum()
    loss = -(alpha_prime * weight * (gap.detach() - target_gap)).mean()
    return penalty, loss
