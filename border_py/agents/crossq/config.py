"""Config of the CrossQ agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from border_py.agents.sac.config import SoftActorCriticConfig
from border_py.base.spaces import Spaces
from border_py.config import finite, layer_sizes, positive_finite

if TYPE_CHECKING:
    from border_py.agents.crossq.agent import CrossQ

_fraction = [attrs.validators.gt(0.0), attrs.validators.le(1.0)]


@attrs.frozen(kw_only=True)
class CrossQConfig(SoftActorCriticConfig):
    """Config of `CrossQ`. The defaults are SBX's ``CrossQ`` and ``CrossQPolicy`` (sbx 0.28.0,
    ``sbx/crossq/crossq.py`` and ``policies.py``; sb3-contrib's ``CrossQ`` has the same): learning rates
    1e-3, batch 256, 2 critics of 1024x1024 (the paper's are 2048x2048, narrowed in SBX "for faster
    computation"), a 256x256 policy, Adam's ``beta1`` 0.5 for the policy and the critics, the policy and
    alpha stepped on every third update, and batch renormalisation in both (SBX's ``BatchRenorm``: momentum
    0.01 in torch's convention, eps 1e-3, 100,000 warm-up calls, then ``r`` and ``d`` clipped to 3 and 5).
    SBX's ``learning_starts`` (100 env steps) is the trainer's ``warmup_period``.

    `SoftActorCriticConfig`'s fields (SAC's, with no ``tau``: there are no target critics) with these
    defaults, and the normalisation's and the delay's. The discount is each transition's own; the action
    bounds are the env's box.

    Examples:
        >>> CrossQConfig().critic_hidden, CrossQConfig().policy_delay
        ((1024, 1024), 3)
    """

    critic_hidden: tuple[int, ...] = attrs.field(default=(1024, 1024), validator=layer_sizes)
    """In units: widths of each critic's hidden layers (SBX's 1024x1024; the paper's 2048x2048)."""
    actor_lr: float = attrs.field(default=1e-3, validator=positive_finite)
    """Adam learning rate of the policy (at the start of a linear ``lr_schedule``)."""
    critic_lr: float = attrs.field(default=1e-3, validator=positive_finite)
    """Adam learning rate of the critics (at the start of a linear ``lr_schedule``)."""
    alpha_lr: float = attrs.field(default=1e-3, validator=positive_finite)
    """Adam learning rate of ``log(alpha)`` (automatic entropy coefficient only; at the start of a
    linear ``lr_schedule``)."""
    adam_beta1: float = attrs.field(
        default=0.5, validator=[attrs.validators.ge(0.0), attrs.validators.lt(1.0)]
    )
    """Unitless: Adam's first-moment decay for the policy and the critics (the paper's and SBX's 0.5;
    torch's default 0.9); the second is 0.999, and alpha's Adam keeps torch's defaults, as SBX's does."""
    n_critics: int = attrs.field(default=2, validator=attrs.validators.ge(1))
    """How many Q-networks; the target and the policy loss use their minimum."""
    policy_delay: int = attrs.field(default=3, validator=attrs.validators.ge(1))
    """In updates: the policy and alpha step on every ``policy_delay``-th critic update (SBX's 3; RL Zoo's
    Pendulum-v1 entry 2)."""
    actor_batch_norm: bool = True
    """Batch-renormalise the policy's input and hidden activations too (SBX's ``batch_norm_actor``); the
    critics' are always."""
    batch_norm_momentum: float = attrs.field(default=0.01, validator=_fraction)
    """Unitless: the weight of each batch in the running statistics, ``running <- (1 - m) running + m
    batch`` (torch's convention; SBX's ``batch_norm_momentum`` 0.99 is flax's, ``1 - m``)."""
    batch_norm_eps: float = attrs.field(default=1e-3, validator=positive_finite)
    """Added to each variance before its square root (SBX's ``BatchRenorm``'s)."""
    renorm_warmup_steps: int = attrs.field(default=100_000, validator=attrs.validators.ge(0))
    """In train-mode calls of each normalisation (critic updates for the critics', policy steps for the
    policy's): plain batch normalisation before that many, renormalisation from then on."""
    renorm_r_max: float = attrs.field(default=3.0, validator=[attrs.validators.ge(1.0), finite])
    """Unitless: after the warm-up the scale correction ``r`` is clipped to ``[1 / r_max, r_max]``."""
    renorm_d_max: float = attrs.field(default=5.0, validator=[attrs.validators.ge(0.0), finite])
    """In running standard deviations: after the warm-up the shift correction ``d`` is clipped to
    ``[-d_max, d_max]``."""

    def build(self, spaces: Spaces, seed: int) -> CrossQ:
        """The agent, sized by ``spaces``, with initial weights from ``seed``.

        Raises:
            TypeError: the agent cannot act in ``spaces``.
        """
        from border_py.agents.crossq.agent import CrossQ  # the agent module imports this one

        return CrossQ(self, spaces, seed)
