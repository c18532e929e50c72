"""Configs of the SAC agent and of the SAC family's shared fields."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import attrs

from border_py.base.spaces import Spaces

if TYPE_CHECKING:
    from border_py.agents.sac.agent import Sac

from border_py.agents.cnn_config import MultiInputConfig
from border_py.agents.devices import device_name
from border_py.agents.lr_schedule import check_lr_schedule
from border_py.config import finite, layer_sizes, positive_finite


@attrs.frozen(kw_only=True)
class SoftActorCriticConfig:
    """The fields the SAC family (SAC, TQC, CrossQ) shares: the policy, the critics, the entropy
    coefficient and the optimisers, with SAC's defaults (`CrossQConfig` sets SBX's for the widths and the
    learning rates).

    The discount is not here: each transition carries its own, set by the step processor. Action bounds
    are not here either: the agent takes them from the env's Box action space.
    """

    actor_hidden: tuple[int, ...] = attrs.field(default=(256, 256), validator=layer_sizes)
    """In units: widths of the policy network's hidden layers."""
    critic_hidden: tuple[int, ...] = attrs.field(default=(256, 256), validator=layer_sizes)
    """In units: widths of each critic's hidden layers."""
    actor_lr: float = attrs.field(default=3e-4, validator=positive_finite)
    """Adam learning rate of the policy (at the start of a linear ``lr_schedule``)."""
    critic_lr: float = attrs.field(default=3e-4, validator=positive_finite)
    """Adam learning rate of the critics (at the start of a linear ``lr_schedule``)."""
    alpha_lr: float = attrs.field(default=3e-4, validator=positive_finite)
    """Adam learning rate of ``log(alpha)`` (automatic entropy coefficient only; at the start of a
    linear ``lr_schedule``)."""
    lr_schedule: Literal["constant", "linear"] = "constant"
    """``linear``: the three learning rates (the policy's, the critics' and alpha's: SB3's one schedule
    for all its optimisers) fall linearly to 0 over ``schedule_opt_steps``; the configured ones are where
    they start."""
    schedule_opt_steps: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.gt(0))
    )
    """In opt steps: where the linear schedule reaches 0 (the run's budget in opt steps); needed by it.
    Opt step ``k`` (from 0) trains at ``lr * (1 - min(k, schedule_opt_steps) / schedule_opt_steps)``."""
    batch_size: int = attrs.field(default=256, validator=attrs.validators.gt(0))
    """In transitions per update. ``opt`` skips (returns ``None``) while the buffer holds fewer."""
    n_critics: int = attrs.field(default=2, validator=attrs.validators.ge(1))
    """How many Q-networks; targets and the policy loss use their minimum (clipped double Q)."""
    init_alpha: float = attrs.field(default=1.0, validator=positive_finite)
    """Unitless: the entropy coefficient at the start (kept fixed when ``auto_alpha`` is off)."""
    auto_alpha: bool = True
    """Tune alpha so the policy's entropy tracks ``target_entropy`` (Haarnoja et al., 2018b)."""
    target_entropy: float | None = attrs.field(default=None, validator=finite)
    """In nats: the entropy automatic tuning aims for; ``None`` is ``-|A|`` (minus the action dimension)."""
    reward_scale: float = attrs.field(default=1.0, validator=positive_finite)
    """Unitless: rewards are multiplied by this in the critic target."""
    n_updates_per_opt: int = attrs.field(default=1, validator=attrs.validators.ge(1))
    """Gradient updates (each on its own batch) per ``opt`` call."""
    log_std_min: float = attrs.field(default=-20.0, validator=finite)
    """The policy's log standard deviation is clamped to ``[log_std_min, log_std_max]`` (not gSDE's)."""
    log_std_max: float = attrs.field(default=2.0, validator=finite)
    """See ``log_std_min``."""
    gsde: bool = False
    """Generalized state-dependent exploration (Raffin et al., 2021; SB3's SAC ``use_sde``): the noise
    before the squash is ``latent(s) @ W``, ``latent`` the policy's last hidden features and ``W`` a
    ``(latent_dim, act_dim)`` matrix drawn from ``N(0, std^2)`` with learnt ``std``, held while acting
    (``sde_sample_freq``) instead of fresh per step; each update draws its own."""
    sde_sample_freq: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.gt(0))
    )
    """In env steps of each sub-env (gSDE): how often new noise weights are drawn while acting, counted
    from the last ``opt`` call; ``None``: once after each ``opt`` call (SB3's ``-1``: once per
    ``train_freq`` block, which the zoo's ``trainer.opt_interval`` is)."""
    log_std_init: float = attrs.field(default=-3.0, validator=finite)
    """Unitless (gSDE): the initial log standard deviation of every noise weight (SB3's SAC default)."""
    use_expln: bool = False
    """gSDE: the noise weights' standard deviations are ``expln(log_std)`` (``exp`` up to 0, then ``log1p +
    1``: it grows slowly) rather than ``exp(log_std)`` (SB3's ``use_expln``)."""
    clip_mean: float | None = attrs.field(default=None, validator=attrs.validators.optional(positive_finite))
    """Unitless, gSDE only: the policy's mean (before the squash) is held in ``[-clip_mean, clip_mean]``,
    as SB3's gSDE actor holds it (its ``clip_mean``, 2.0 by default there: ``tanh(2) = 0.96`` of the half
    range, so the noise, not the mean, reaches the bounds); the gradient stops beyond; ``None``: not held."""
    warmup_actions: Literal["policy", "uniform"] = "policy"
    """How the agent acts in train mode before its first opt step (the trainer's ``warmup_period``):
    ``policy`` samples the initial policy (with gSDE, its noise weights); ``uniform`` draws actions
    uniformly in the box, as SB3's SAC, TQC and CrossQ do before ``learning_starts`` (with
    ``use_sde_at_warmup`` off, SB3's default). An async actor acts so until the learner's first opt step
    reaches it."""
    max_grad_norm: float | None = attrs.field(
        default=None, validator=attrs.validators.optional(positive_finite)
    )
    """Clip each network's gradient L2 norm to this; ``None``: no clipping."""
    encoder: MultiInputConfig | None = None
    """A dict observation with images (``{kind: multi_input}``): the policy and the critics each put a
    multi-input encoder of their own in front of their layers (a CNN per image part; SB3's off-policy
    ``MultiInputPolicy``, whose actor and critics do not share theirs); ``None``: the flat observation."""
    device: str = attrs.field(default="cpu", validator=device_name)
    """Torch device of the networks (``cpu``, ``cuda``, ``cuda:1``); building the agent checks it exists."""

    def __attrs_post_init__(self) -> None:
        check_lr_schedule(self.lr_schedule, self.schedule_opt_steps)
        if not self.log_std_min < self.log_std_max:
            raise ValueError(
                f"log_std_min ({self.log_std_min}) must be below log_std_max ({self.log_std_max})"
            )
        if self.clip_mean is not None and not self.gsde:
            raise ValueError(f"clip_mean ({self.clip_mean}) holds gSDE's mean: it needs gsde: true")


@attrs.frozen(kw_only=True)
class SacConfig(SoftActorCriticConfig):
    """Config of `Sac`: `SoftActorCriticConfig`'s fields and the target critics' Polyak factor.

    Examples:
        >>> SacConfig(n_critics=3).target_entropy is None
        True
    """

    tau: float = attrs.field(default=0.005, validator=[attrs.validators.gt(0.0), attrs.validators.le(1.0)])
    """Unitless: Polyak factor of the target critics, ``target <- tau * online + (1 - tau) * target``,
    applied after every update."""

    def build(self, spaces: Spaces, seed: int) -> Sac:
        """The agent, sized by ``spaces``, with initial weights from ``seed``.

        Raises:
            TypeError: the agent cannot act in ``spaces``.
        """
        from border_py.agents.sac.agent import Sac  # the agent module imports this one

        return Sac(self, spaces, seed)
