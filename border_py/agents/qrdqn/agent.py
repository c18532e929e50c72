"""The QR-DQN agent: its quantile network and quantile Huber loss on
`border_py.agents.value_based.ValueBasedAgent`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from border_py.agents.greedy import MlpParts, f32, linear_layers
from border_py.agents.iqn.losses import (
    greedy_quantiles,
    quantile_huber_loss,
    quantile_target,
    quantiles_of_action,
)
from border_py.agents.parts import seeded
from border_py.agents.qrdqn.model import QuantileNetwork, midpoint_fractions
from border_py.agents.value_based import ValueBasedAgent, observation_shape
from border_py.base.spaces import Spaces
from border_py.replay_buffer.transition import TransitionBatch

if TYPE_CHECKING:  # the config's build() imports this module
    from border_py.agents.qrdqn.config import QrDqnConfig


class QrDqn(ValueBasedAgent["QrDqnConfig", QuantileNetwork, TransitionBatch]):
    """Quantile regression DQN (Dabney et al., 2017) for discrete actions.

    The network gives ``n_quantiles`` quantiles of each action's return at the fixed fractions
    ``(i + 1/2) / n``; the greedy action has the largest mean quantile. In train mode the DQN explorers act
    on that mean; in eval mode the action is greedy and deterministic. ``opt`` regresses the quantiles of
    the taken action onto ``r + discount * Z_target(s', a*)`` with the quantile Huber loss, where ``a*``
    maximises the target network's mean quantile (as sb3-contrib's ``QRDQN``), among the next state's legal
    actions if the env masks actions (its observation's ``action_mask``). With prioritized replay, each
    item's priority is its loss.

    Args:
        config: hyperparameters.
        spaces: the env's observation shape (an encoder takes it whole) and discrete actions.
        seed: seeds network initialisation and the explorer.

    Raises:
        TypeError: the actions are not discrete.
        ValueError: ``config.device`` does not exist on this machine.

    Examples:
        >>> import numpy as np
        >>> from border_py.agents import QrDqnConfig
        >>> from border_py.base import Spaces
        >>> agent = QrDqn(QrDqnConfig(), Spaces(obs_shape=(4,), n_actions=2), seed=0)
        >>> agent.eval(); int(agent.sample(np.zeros(4, np.float32))) in (0, 1)
        True
    """

    name = "QR-DQN"
    takes_masks = True

    def __init__(self, config: QrDqnConfig, spaces: Spaces, seed: int) -> None:
        n_actions = spaces.need_discrete(self.name, masks=True, images=config.encoder is not None)
        shape = observation_shape(spaces, config.encoder)
        with seeded(seed):
            encoder = None if config.encoder is None else config.encoder.build(shape, spaces.obs_parts)
            net = QuantileNetwork(spaces.obs_dim, n_actions, config.n_quantiles, config.hidden, encoder)
        super().__init__(
            config,
            net,
            spaces,
            seed,
            files=("qrdqn.pt", "qrdqn_tgt.pt"),
            obs_shape=shape,
            images=config.encoder is not None,
        )
        self.taus = midpoint_fractions(config.n_quantiles, self.device)
        """The fractions of the quantiles, ``(n_quantiles,)``."""

    def greedy_policy(self) -> MlpParts:
        """The eval-mode policy for export: one MLP whose last layer gives the mean quantile of each
        action (its weights and bias averaged over the quantiles: the mean of a linear map is the map of
        the mean), and the argmax, among the legal actions if the env masks actions; with an encoder (the
        Nature CNN, or a dict observation's images), the encoder first."""
        net = self.parts.net.net
        *layers, (weight, bias) = linear_layers(net.net)
        n, a = self.config.n_quantiles, self.n_actions
        last = (f32(weight.reshape(-1, n, a).mean(axis=1)), f32(bias.reshape(n, a).mean(axis=0)))
        return self._argmax_mlp([*layers, last], net.encoder)

    def _action_values(self, obs: torch.Tensor) -> torch.Tensor:
        q: torch.Tensor = self.parts.net.net(obs).mean(dim=1)
        return q

    def _loss(self, batch: TransitionBatch) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        c, b, net = self.config, batch, self.parts.net
        pred = quantiles_of_action(net.net(b.obs), b.act)  # (batch, N)
        with torch.no_grad():
            next_quantiles = greedy_quantiles(net.target(b.next_obs), self._legal(b.next_obs))
            target = quantile_target(b.reward, b.is_terminated, b.discount, next_quantiles)
        per_item = quantile_huber_loss(pred, self.taus.expand_as(pred), target, c.kappa)
        loss = (per_item * b.weight).mean() if b.weight is not None else per_item.mean()
        return loss, per_item.detach(), pred.detach().mean()
