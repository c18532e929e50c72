"""The fields PPO's and A2C's configs share: the networks, the schedule, the loss weights, normalisation and
gSDE."""

from __future__ import annotations

from typing import Literal

import attrs

from border_py.agents.cnn_config import EncoderConfig
from border_py.agents.devices import device_name
from border_py.config import finite, layer_sizes, positive_finite, unit_interval

_DEFAULT_MAX_GRAD_NORM: float | None = 0.5


@attrs.frozen(kw_only=True)
class OnPolicyConfig:
    """The fields `PpoConfig` and `A2cConfig` share, with Stable-Baselines3's PPO defaults (`A2cConfig`
    sets SB3's A2C ones for the learning rate, GAE lambda and advantage normalisation). Each algorithm's
    config adds its optimiser's and its update's own fields.

    The discount is not here: each transition carries its own (``SimpleStepProcessorConfig.gamma``). The
    rollout's length is the buffer's (``RolloutBufferConfig.n_steps``).
    """

    encoder: EncoderConfig | None = None
    """An encoder that the policy and the value share: frame stacks through the Nature CNN (``{kind:
    nature_cnn}``, CleanRL's and SB3's Atari PPO), or a dict observation with images through the
    multi-input encoder (``{kind: multi_input}``), then one shared MLP of ``hidden`` layers, then the two
    heads. ``None``: flat observations and two separate MLPs."""
    hidden: tuple[int, ...] = attrs.field(default=(64, 64), validator=layer_sizes)
    """In units: the hidden layers of the policy network and of the value network (two networks of this
    shape, nothing shared); with an ``encoder``, of the one MLP both share after it (Nature: ``[512]``)."""
    activation: Literal["tanh", "relu"] = "tanh"
    """The hidden layers' activation."""
    ortho_init: bool = True
    """Orthogonal initialisation: hidden layers with gain sqrt(2), the action head 0.01, the value head 1."""
    log_std_init: float = attrs.field(default=0.0, validator=finite)
    """Unitless: the initial log standard deviation of continuous actions."""
    lr: float = attrs.field(default=3e-4, validator=positive_finite)
    """The optimiser's learning rate (at the start of a linear schedule)."""
    lr_schedule: Literal["constant", "linear"] = "constant"
    """``linear``: the learning rate falls linearly to 0 over ``schedule_env_steps``."""
    schedule_env_steps: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.gt(0))
    )
    """In env steps: where the linear schedules reach 0 (the run's budget); needed by a linear schedule."""
    gae_lambda: float = attrs.field(default=0.95, validator=unit_interval)
    """Unitless: GAE's lambda (1 is the Monte Carlo return, 0 one-step TD)."""
    normalize_advantage: bool = True
    """Normalise the advantages (within each minibatch)."""
    ent_coef: float = attrs.field(default=0.0, validator=[attrs.validators.ge(0.0), finite])
    """Weight of the entropy bonus."""
    vf_coef: float = attrs.field(default=0.5, validator=positive_finite)
    """Weight of the value loss."""
    max_grad_norm: float | None = attrs.field(
        default=_DEFAULT_MAX_GRAD_NORM, validator=attrs.validators.optional(positive_finite)
    )
    """Clip the gradients' global L2 norm to this; ``None``: no clipping."""
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
    device: str = attrs.field(default="cpu", validator=device_name)
    """Torch device of the networks (``cpu``, ``cuda``, ``cuda:1``); building the agent checks it exists."""

    def __attrs_post_init__(self) -> None:
        if self.encoder is not None and self.normalize_obs:
            raise ValueError("normalize_obs is for flat observations: an encoder scales pixels itself")
        if self._linear_schedules() and self.schedule_env_steps is None:
            raise ValueError(f"a linear {' or '.join(self._linear_schedules())} needs schedule_env_steps")

    def _linear_schedules(self) -> list[str]:
        """The names of the schedules set to ``linear`` (a subclass with more adds its own)."""
        return ["lr_schedule"] if self.lr_schedule == "linear" else []
