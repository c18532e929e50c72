"""Config of the recurrent PPO agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from border_py.agents.ppo.config import PpoConfig
from border_py.base.spaces import Spaces

if TYPE_CHECKING:
    from border_py.agents.recurrent_ppo.agent import RecurrentPpo


@attrs.frozen(kw_only=True)
class RecurrentPpoConfig(PpoConfig):
    """Config of `RecurrentPpo`: `PpoConfig`'s fields and the LSTMs'. The defaults are sb3-contrib's
    ``RecurrentPPO`` with ``MlpLstmPolicy`` (an LSTM of 256 units for the policy and one for the value).

    ``hidden`` is the MLP after each LSTM. ``batch_size`` counts steps: a minibatch holds whole sequences
    (pieces of episodes, at most ``batch_size`` steps each) up to that many steps. An ``encoder`` is
    refused: pixels through an LSTM are not built.

    Examples:
        >>> RecurrentPpoConfig(lstm_hidden=64).lstm_layers
        1
    """

    lstm_hidden: int = attrs.field(default=256, validator=attrs.validators.gt(0))
    """In units: the hidden state of each LSTM (the policy's and the value's)."""
    lstm_layers: int = attrs.field(default=1, validator=attrs.validators.gt(0))
    """Stacked layers of each LSTM."""

    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        if self.encoder is not None:
            raise ValueError("encoder: recurrent PPO takes flat observations (no pixel encoder)")

    def build(self, spaces: Spaces, seed: int) -> RecurrentPpo:
        """The agent, sized by ``spaces``, with initial weights from ``seed``.

        Raises:
            TypeError: the agent cannot act in ``spaces``.
        """
        from border_py.agents.recurrent_ppo.agent import RecurrentPpo  # the agent module imports this one

        return RecurrentPpo(self, spaces, seed)
