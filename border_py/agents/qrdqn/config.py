"""Config of the QR-DQN agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from border_py.agents.cnn import NatureCnnConfig
from border_py.agents.explorers import EpsilonGreedyConfig, SoftmaxConfig
from border_py.agents.toolkit import device_name
from border_py.base.spaces import Spaces
from border_py.config import layer_sizes, positive_finite

if TYPE_CHECKING:
    from border_py.agents.qrdqn.agent import QrDqn


@attrs.frozen(kw_only=True)
class QrDqnConfig:
    """Config of `QrDqn`.

    The network is an MLP (on the Nature CNN's features, with an ``encoder``) whose output is
    ``n_quantiles`` quantiles of each action's return, at the fixed fractions ``(i + 1/2) / n_quantiles``.
    The defaults are sb3-contrib's (``QRDQN``): Adam's epsilon ``0.01 / 32`` as in the paper, no gradient
    clipping, a hard target copy. The discount is not here: each transition carries its own, set by the
    step processor.

    Examples:
        >>> QrDqnConfig(n_quantiles=25).kappa
        1.0
    """

    n_quantiles: int = attrs.field(default=50, validator=attrs.validators.gt(0))
    """How many quantiles of each action's return the network gives (N in the paper)."""
    hidden: tuple[int, ...] = attrs.field(default=(64, 64), validator=layer_sizes)
    """In units: widths of the hidden layers."""
    kappa: float = attrs.field(default=1.0, validator=positive_finite)
    """In return units: the Huber threshold of the quantile Huber loss."""
    lr: float = attrs.field(default=5e-5, validator=positive_finite)
    """Adam learning rate."""
    adam_eps: float = attrs.field(default=0.01 / 32, validator=positive_finite)
    """Adam's epsilon (the denominator's floor): the paper's ``0.01 / 32``."""
    batch_size: int = attrs.field(default=32, validator=attrs.validators.gt(0))
    """In transitions per opt step. ``opt`` skips (returns ``None``) while the buffer holds fewer."""
    tau: float = attrs.field(default=1.0, validator=[attrs.validators.gt(0.0), attrs.validators.le(1.0)])
    """Target update ``target <- tau * online + (1 - tau) * target``: 1.0 is a hard copy, < 1 Polyak."""
    target_update_interval: int = attrs.field(default=1, validator=attrs.validators.gt(0))
    """In opt steps: how often the target network is updated."""
    max_grad_norm: float | None = attrs.field(
        default=None, validator=attrs.validators.optional(positive_finite)
    )
    """Clip the gradients' global L2 norm to this; ``None``: no clipping."""
    explorer: EpsilonGreedyConfig | SoftmaxConfig = attrs.field(factory=EpsilonGreedyConfig)
    """How actions are explored in train mode (on the mean of the quantiles)."""
    encoder: NatureCnnConfig | None = None
    """Pixel observations: the Nature CNN, whose features the ``hidden`` layers take; ``None``: the
    (flattened) observation itself."""
    device: str = attrs.field(default="cpu", validator=device_name)
    """Torch device of the networks (``cpu``, ``cuda``, ``cuda:1``); building the agent checks it exists."""

    def build(self, spaces: Spaces, seed: int) -> QrDqn:
        """The agent, sized by ``spaces``, with initial weights from ``seed``.

        Raises:
            TypeError: the agent cannot act in ``spaces``.
        """
        from border_py.agents.qrdqn.agent import QrDqn  # the agent module imports this one

        return QrDqn(self, spaces, seed)
