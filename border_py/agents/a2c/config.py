"""Config of the A2C agent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import attrs

from border_py.agents.on_policy.config import OnPolicyConfig
from border_py.base.spaces import Spaces
from border_py.config import positive_finite, unit_interval

if TYPE_CHECKING:
    from border_py.agents.a2c.agent import A2c


@attrs.frozen(kw_only=True)
class A2cConfig(OnPolicyConfig):
    """Config of `A2c`: `OnPolicyConfig`'s fields (the networks, the learning rate and its schedule, GAE,
    the loss weights, normalisation, gSDE) and the optimiser. The defaults are Stable-Baselines3's A2C:
    RMSprop (alpha 0.99, epsilon 1e-5) at 7e-4, GAE lambda 1 (n-step returns over the rollout), advantages
    not normalised; with the rollout buffer's ``n_steps: 5``.

    Examples:
        >>> A2cConfig().lr, A2cConfig().optimizer
        (0.0007, 'rmsprop')
    """

    lr: float = attrs.field(default=7e-4, validator=positive_finite)
    """The optimiser's learning rate (at the start of a linear schedule)."""
    gae_lambda: float = attrs.field(default=1.0, validator=unit_interval)
    """Unitless: GAE's lambda; 1 (A2C's n-step return, bootstrapped at the rollout's end) by default."""
    normalize_advantage: bool = False
    """Normalise the advantages over the rollout (SB3's A2C does not by default)."""
    optimizer: Literal["rmsprop", "adam"] = "rmsprop"
    """``rmsprop``: PyTorch's RMSprop (epsilon added outside the square root) with ``rmsprop_alpha``, as
    SB3's ``use_rms_prop=True``; ``adam``: Adam, as SB3's ``use_rms_prop=False``."""
    rmsprop_alpha: float = attrs.field(
        default=0.99, validator=[attrs.validators.gt(0.0), attrs.validators.lt(1.0)]
    )
    """Unitless: RMSprop's smoothing constant (the decay of its running mean of squared gradients)."""
    optimizer_eps: float = attrs.field(default=1e-5, validator=positive_finite)
    """The optimiser's epsilon (RMSprop's or Adam's)."""

    @property
    def batch_size(self) -> int:
        """In transitions: A2C learns from the whole rollout in one step, so one transition is enough."""
        return 1

    def build(self, spaces: Spaces, seed: int) -> A2c:
        """The agent, sized by ``spaces``, with initial weights from ``seed``.

        Raises:
            TypeError: the agent cannot act in ``spaces``.
        """
        from border_py.agents.a2c.agent import A2c  # the agent module imports this one

        return A2c(self, spaces, seed)
