"""Config of the PPO agent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import attrs

from border_py.agents.on_policy.config import OnPolicyConfig
from border_py.base.spaces import Spaces

if TYPE_CHECKING:
    from border_py.agents.ppo.agent import Ppo

from border_py.config import positive_finite


@attrs.frozen(kw_only=True)
class PpoConfig(OnPolicyConfig):
    """Config of `Ppo`: `OnPolicyConfig`'s fields (the networks, the learning rate and its schedule, GAE,
    the loss weights, normalisation, gSDE) and PPO's update. The defaults are Stable-Baselines3's.

    Examples:
        >>> PpoConfig(lr_schedule="linear", schedule_env_steps=100_000).clip_range
        0.2
    """

    clip_range: float = attrs.field(default=0.2, validator=positive_finite)
    """Unitless: the probability-ratio clip of the surrogate loss (at the start of a linear schedule)."""
    clip_schedule: Literal["constant", "linear"] = "constant"
    """``linear``: the clip range falls linearly to 0 over ``schedule_env_steps``."""
    clip_range_vf: float | None = attrs.field(
        default=None, validator=attrs.validators.optional(positive_finite)
    )
    """In value units: clip the value prediction's change around the rollout's values; ``None``: no clip."""
    n_epochs: int = attrs.field(default=10, validator=attrs.validators.gt(0))
    """Passes over each rollout."""
    batch_size: int = attrs.field(default=64, validator=attrs.validators.gt(0))
    """In transitions per minibatch (shuffled within each epoch)."""
    target_kl: float | None = attrs.field(default=None, validator=attrs.validators.optional(positive_finite))
    """Stop an update's epochs once a minibatch's approximate KL exceeds 1.5 times this; ``None``: never."""
    adam_eps: float = attrs.field(default=1e-5, validator=positive_finite)
    """Adam's epsilon."""
    update_dtype: Literal["float32", "bfloat16"] = attrs.field(
        default="float32", validator=attrs.validators.in_(("float32", "bfloat16"))
    )
    """``bfloat16``: each minibatch's forward pass runs under ``torch.autocast`` in bfloat16 (matmuls and
    convolutions; the weights, the losses, the gradients and Adam stay float32). On a CPU with AVX-512-BF16
    it halves the Nature CNN's update (``benchmarks/RESULTS.md``, PPO on Pong pixels); it changes the
    numbers, so a run's results hold for the setting it ran with. Acting and evaluation stay float32."""

    def _linear_schedules(self) -> list[str]:
        return [*super()._linear_schedules(), *(["clip_schedule"] if self.clip_schedule == "linear" else [])]

    def build(self, spaces: Spaces, seed: int) -> Ppo:
        """The agent, sized by ``spaces``, with initial weights from ``seed``.

        Raises:
            TypeError: the agent cannot act in ``spaces``.
        """
        from border_py.agents.ppo.agent import Ppo  # the agent module imports this one

        return Ppo(self, spaces, seed)
