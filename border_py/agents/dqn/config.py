"""Config of the DQN agent (its explorers' configs live in `border_py.agents.explorers`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import attrs

from border_py.base.spaces import Spaces

if TYPE_CHECKING:
    from border_py.agents.dqn.agent import Dqn

from border_py.agents.cnn import NatureCnnConfig
from border_py.agents.explorers import EpsilonGreedyConfig, SoftmaxConfig
from border_py.agents.toolkit import device_name
from border_py.config import layer_sizes, positive_finite

__all__ = ["DqnConfig", "EpsilonGreedyConfig", "SoftmaxConfig"]


@attrs.frozen(kw_only=True)
class DqnConfig:
    """Config of `Dqn`.

    The discount is not here: each transition carries its own (``gamma^k``), set by the step processor
    (``SimpleStepProcessorConfig.gamma`` or ``NStepStepProcessorConfig``).

    Examples:
        >>> DqnConfig(hidden=(256, 256), double_dqn=True).loss
        'huber'
    """

    hidden: tuple[int, ...] = attrs.field(default=(64, 64), validator=layer_sizes)
    """In units: widths of the Q-network's hidden layers."""
    lr: float = attrs.field(default=1e-3, validator=positive_finite)
    """Adam learning rate."""
    adam_eps: float = attrs.field(default=1e-8, validator=positive_finite)
    """Adam's epsilon (the denominator's floor); Dopamine's Atari agents use 1.5e-4 to 3.125e-4."""
    batch_size: int = attrs.field(default=64, validator=attrs.validators.gt(0))
    """In transitions per opt step. ``opt`` skips (returns ``None``) while the buffer holds fewer."""
    tau: float = attrs.field(default=1.0, validator=[attrs.validators.gt(0.0), attrs.validators.le(1.0)])
    """Target update ``target <- tau * online + (1 - tau) * target``: 1.0 is a hard copy, < 1 Polyak."""
    target_update_interval: int = attrs.field(default=1, validator=attrs.validators.gt(0))
    """In opt steps: how often the target network is updated."""
    double_dqn: bool = False
    """Pick the next action with the online network and value it with the target (van Hasselt et al.)."""
    dueling: bool = False
    """Dueling head (Wang et al., 2016): ``Q = V + A - mean(A)`` on top of the shared hidden layers."""
    loss: Literal["mse", "huber"] = "huber"
    """TD loss: squared error or Huber (smooth L1 with delta 1)."""
    max_grad_norm: float | None = attrs.field(
        default=None, validator=attrs.validators.optional(positive_finite)
    )
    """Clip the gradients' global L2 norm to this; ``None``: no clipping."""
    explorer: EpsilonGreedyConfig | SoftmaxConfig = attrs.field(factory=EpsilonGreedyConfig)
    """How actions are explored in train mode."""
    encoder: NatureCnnConfig | None = None
    """Pixel observations: the Nature CNN, whose features the ``hidden`` layers take; ``None``: the
    (flattened) observation itself."""
    device: str = attrs.field(default="cpu", validator=device_name)
    """Torch device of the networks (``cpu``, ``cuda``, ``cuda:1``); building the agent checks it exists."""
    numpy_acting: bool = True
    """Act through the Q-network in numpy (`border_py.agents.toolkit.NumpyMlp`, over views of its
    parameters) where it can: on the CPU, for a plain MLP (no ``encoder``, no ``dueling``); learning is
    torch's either way. ``False``: every action through torch."""

    def build(self, spaces: Spaces, seed: int) -> Dqn:
        """The agent, sized by ``spaces``, with initial weights from ``seed``.

        Raises:
            TypeError: the agent cannot act in ``spaces``.
        """
        from border_py.agents.dqn.agent import Dqn  # the agent module imports this one

        return Dqn(self, spaces, seed)
