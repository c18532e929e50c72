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
    (pieces of episodes, at most ``batch_size`` steps each) up to that many steps. An ``encoder`` stands
    before both LSTMs, one for the two, its features their input: ``{kind: nature_cnn}`` for frame stacks
    (``CnnLstmPolicy``, less the linear layer of 512 that closes SB3's NatureCNN: the convolutions' features
    go to the LSTMs), ``{kind: multi_input}`` for a dict observation with images
    (``MultiInputLstmPolicy``); ``hidden`` still follows each LSTM, separately.

    Examples:
        >>> RecurrentPpoConfig(lstm_hidden=64).lstm_layers
        1
    """

    lstm_hidden: int = attrs.field(default=256, validator=attrs.validators.gt(0))
    """In units: the hidden state of each LSTM (the policy's and the value's)."""
    lstm_layers: int = attrs.field(default=1, validator=attrs.validators.gt(0))
    """Stacked layers of each LSTM."""

    def build(self, spaces: Spaces, seed: int) -> RecurrentPpo:
        """The agent, sized by ``spaces``, with initial weights from ``seed``.

        Raises:
            TypeError: the agent cannot act in ``spaces``.
        """
        from border_py.agents.recurrent_ppo.agent import RecurrentPpo  # the agent module imports this one

        return RecurrentPpo(self, spaces, seed)
