"""Config of the QR-DQN agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from border_py.agents.q_config import DeepQConfig
from border_py.base.spaces import Spaces
from border_py.config import layer_sizes, positive_finite

if TYPE_CHECKING:
    from border_py.agents.qrdqn.agent import QrDqn


@attrs.frozen(kw_only=True)
class QrDqnConfig(DeepQConfig):
    """Config of `QrDqn`: `DeepQConfig`'s fields (sb3-contrib's rate, epsilon and batch) and the quantiles'.

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
    """Adam learning rate (at the start of a linear ``lr_schedule``)."""
    adam_eps: float = attrs.field(default=0.01 / 32, validator=positive_finite)
    """Adam's epsilon (the denominator's floor): the paper's ``0.01 / 32``."""
    batch_size: int = attrs.field(default=32, validator=attrs.validators.gt(0))
    """In transitions per opt step. ``opt`` skips (returns ``None``) while the buffer holds fewer."""

    def build(self, spaces: Spaces, seed: int) -> QrDqn:
        """The agent, sized by ``spaces``, with initial weights from ``seed``.

        Raises:
            TypeError: the agent cannot act in ``spaces``.
        """
        from border_py.agents.qrdqn.agent import QrDqn  # the agent module imports this one

        return QrDqn(self, spaces, seed)
