"""Config of the PPO agent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import attrs

from border_py.base.spaces import Spaces

if TYPE_CHECKING:
    from border_py.agents.ppo.agent import Ppo

from border_py.agents.toolkit import device_name
from border_py.config import finite, layer_sizes, positive_finite

_unit = [attrs.validators.ge(0.0), attrs.validators.le(1.0)]
_DEFAULT_MAX_GRAD_NORM: float | None = 0.5


@attrs.frozen(kw_only=True)
class PpoConfig:
    """Config of `Ppo`; the defaults are Stable-Baselines3's.

    The discount is not here: each transition carries its own (``SimpleStepProcessorConfig.gamma``). The
    rollout's length is the buffer's (``RolloutBufferConfig.n_steps``).

    Examples:
        >>> PpoConfig(lr_schedule="linear", schedule_env_steps=100_000).clip_range
        0.2
    """

    hidden: tuple[int, ...] = attrs.field(default=(64, 64), validator=layer_sizes)
    """In units: the hidden layers of the policy network and of the value network (two networks of this
    shape, nothing shared)."""
    activation: Literal["tanh", "relu"] = "tanh"
    """The hidden layers' activation."""
    ortho_init: bool = True
    """Orthogonal initialisation: hidden layers with gain sqrt(2), the action head 0.01, the value head 1."""
    log_std_init: float = attrs.field(default=0.0, validator=finite)
    """Unitless: the initial log standard deviation of continuous actions."""
    lr: float = attrs.field(default=3e-4, validator=positive_finite)
    """Adam learning rate (at the start of a linear schedule)."""
    lr_schedule: Literal["constant", "linear"] = "constant"
    """``linear``: the rate falls linearly to 0 over ``schedule_env_steps``."""
    clip_range: float = attrs.field(default=0.2, validator=positive_finite)
    """Unitless: the probability-ratio clip of the surrogate loss (at the start of a linear schedule)."""
    clip_schedule: Literal["constant", "linear"] = "constant"
    """``linear``: the clip range falls linearly to 0 over ``schedule_env_steps``."""
    schedule_env_steps: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.gt(0))
    )
    """In env steps: where the linear schedules reach 0 (the run's budget); needed by a linear schedule."""
    clip_range_vf: float | None = attrs.field(
        default=None, validator=attrs.validators.optional(positive_finite)
    )
    """In value units: clip the value prediction's change around the rollout's values; ``None``: no clip."""
    n_epochs: int = attrs.field(default=10, validator=attrs.validators.gt(0))
    """Passes over each rollout."""
    batch_size: int = attrs.field(default=64, validator=attrs.validators.gt(0))
    """In transitions per minibatch (shuffled within each epoch)."""
    gae_lambda: float = attrs.field(default=0.95, validator=_unit)
    """Unitless: GAE's lambda (1 is the Monte Carlo return, 0 one-step TD)."""
    ent_coef: float = attrs.field(default=0.0, validator=[attrs.validators.ge(0.0), finite])
    """Weight of the entropy bonus."""
    vf_coef: float = attrs.field(default=0.5, validator=positive_finite)
    """Weight of the value loss."""
    max_grad_norm: float | None = attrs.field(
        default=_DEFAULT_MAX_GRAD_NORM, validator=attrs.validators.optional(positive_finite)
    )
    """Clip the gradients' global L2 norm to this; ``None``: no clipping."""
    target_kl: float | None = attrs.field(default=None, validator=attrs.validators.optional(positive_finite))
    """Stop an update's epochs once a minibatch's approximate KL exceeds 1.5 times this; ``None``: never."""
    normalize_advantage: bool = True
    """Normalise advantages within each minibatch."""
    normalize_obs: bool = False
    """Divide observations by running statistics (updated after each rollout, frozen while one is
    collected, saved in checkpoints)."""
    normalize_reward: bool = False
    """Divide rewards by the running standard deviation of the discounted return (as SB3's
    ``VecNormalize``), for the update only (records keep the env's rewards)."""
    clip_obs: float = attrs.field(default=10.0, validator=positive_finite)
    """In standard deviations: normalised observations are clipped to this."""
    clip_reward: float = attrs.field(default=10.0, validator=positive_finite)
    """Normalised rewards are clipped to this."""
    gsde: bool = False
    """Generalized state-dependent exploration (Raffin et al., 2021) for continuous actions: the noise is
    ``latent(s) @ W`` with ``W`` drawn every ``sde_sample_freq`` steps, instead of fresh per step."""
    sde_sample_freq: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.gt(0))
    )
    """In env steps of each sub-env: how often gSDE draws new noise weights; ``None``: once per rollout."""
    adam_eps: float = attrs.field(default=1e-5, validator=positive_finite)
    """Adam's epsilon."""
    device: str = attrs.field(default="cpu", validator=device_name)
    """Torch device of the networks (``cpu``, ``cuda``, ``cuda:1``); building the agent checks it exists."""

    def __attrs_post_init__(self) -> None:
        linear = "linear" in (self.lr_schedule, self.clip_schedule)
        if linear and self.schedule_env_steps is None:
            raise ValueError("a linear lr_schedule or clip_schedule needs schedule_env_steps")

    def build(self, spaces: Spaces, seed: int) -> Ppo:
        """The agent, sized by ``spaces``, with initial weights from ``seed``.

        Raises:
            TypeError: the agent cannot act in ``spaces``.
        """
        from border_py.agents.ppo.agent import Ppo  # the agent module imports this one

        return Ppo(self, spaces, seed)
