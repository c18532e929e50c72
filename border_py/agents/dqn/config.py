"""Config of the DQN agent (its explorers' configs live in `border_py.agents.explorers`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import attrs

from border_py.base.spaces import Spaces

if TYPE_CHECKING:
    from border_py.agents.dqn.agent import Dqn

from border_py.agents.explorer_config import EpsilonGreedyConfig, SoftmaxConfig
from border_py.agents.q_config import DeepQConfig
from border_py.config import layer_sizes

__all__ = ["DqnConfig", "EpsilonGreedyConfig", "SoftmaxConfig"]


@attrs.frozen(kw_only=True)
class DqnConfig(DeepQConfig):
    """Config of `Dqn`: `DeepQConfig`'s fields (the optimiser, the batch, the target, the explorer, the
    encoder) and the Q-network's.

    The discount is not here: each transition carries its own (``gamma^k``), set by the step processor
    (``SimpleStepProcessorConfig.gamma`` or ``NStepStepProcessorConfig``).

    Examples:
        >>> DqnConfig(hidden=(256, 256), double_dqn=True).loss
        'huber'
    """

    hidden: tuple[int, ...] = attrs.field(default=(64, 64), validator=layer_sizes)
    """In units: widths of the Q-network's hidden layers."""
    double_dqn: bool = False
    """Pick the next action with the online network and value it with the target (van Hasselt et al.)."""
    dueling: bool = False
    """Dueling head (Wang et al., 2016): ``Q = V + A - mean(A)`` on top of the shared hidden layers."""
    loss: Literal["mse", "huber"] = "huber"
    """TD loss: squared error or Huber (smooth L1 with delta 1)."""
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
