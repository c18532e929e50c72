"""The DQN agent: its Q-network and TD loss on `border_py.agents.value_based.ValueBasedAgent`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from border_py.agents.dqn.losses import next_state_value, td_loss, td_target
from border_py.agents.dqn.model import QNetwork
from border_py.agents.greedy import (
    ArrayNames,
    GreedyPolicy,
    linear_layers,
)
from border_py.agents.parts import seeded
from border_py.agents.toolkit import NumpyMlp
from border_py.agents.value_based import ValueBasedAgent, observation_shape
from border_py.base.spaces import Spaces
from border_py.replay_buffer.transition import TransitionBatch

if TYPE_CHECKING:  # the config's build() imports this module
    from border_py.agents.dqn.config import DqnConfig


class Dqn(ValueBasedAgent["DqnConfig", QNetwork, TransitionBatch]):
    """Deep Q-network (Mnih et al., 2015) with target network, double DQN, dueling head, Huber/MSE loss,
    gradient clipping, prioritized replay and n-step targets (each transition's ``discount``).

    In train mode ``sample`` explores with the configured explorer; in eval mode it is greedy with no
    randomness at all. ``opt`` returns ``None`` (skips) while the buffer holds fewer than ``batch_size``
    transitions. With prioritized replay, each item's priority is its TD error.

    Args:
        config: hyperparameters.
        spaces: the env's observation shape (an encoder takes it whole) and discrete actions.
        seed: seeds network initialisation and the explorer.

    Raises:
        TypeError: the actions are not discrete.
        ValueError: ``config.device`` does not exist on this machine.

    Examples:
        >>> import numpy as np
        >>> from border_py.agents import DqnConfig
        >>> from border_py.base import Spaces
        >>> agent = Dqn(DqnConfig(), Spaces(obs_shape=(4,), n_actions=2), seed=0)
        >>> agent.eval(); int(agent.sample(np.zeros(4, np.float32))) in (0, 1)
        True
    """

    name = "DQN"
    takes_masks = True

    def __init__(self, config: DqnConfig, spaces: Spaces, seed: int) -> None:
        n_actions = spaces.need_discrete(self.name, masks=True, images=config.encoder is not None)
        shape = observation_shape(spaces, config.encoder)
        with seeded(seed):
            encoder = None if config.encoder is None else config.encoder.build(shape, spaces.obs_parts)
            net = QNetwork(spaces.obs_dim, n_actions, config.hidden, config.dueling, encoder)
        super().__init__(
            config,
            net,
            spaces,
            seed,
            files=("qnet.pt", "qnet_tgt.pt"),
            obs_shape=shape,
            images=config.encoder is not None,
        )
        if config.numpy_acting and self.device.type == "cpu" and encoder is None and not config.dueling:
            self._numpy_values = NumpyMlp(net.net)

    def greedy_policy(self) -> GreedyPolicy:
        """The eval-mode policy for export: the argmax of the Q-values, as one MLP, or for a dueling
        network its shared layers and its value and advantage heads (the ``dqn`` kind); with an encoder
        (the Nature CNN, or a dict observation's images), the encoder first."""
        net = self.parts.net.net
        if not self.config.dueling:
            return self._argmax_mlp(linear_layers(net.net), net.encoder)
        names = ArrayNames()
        network = {
            "trunk": names.add("trunk", net.net),
            "dueling": True,
            "value": names.add("value", net.value),
            "advantage": names.add("advantage", net.advantage),
        }
        return self._argmax_network("dqn", network, names, net, net.encoder)

    def _action_values(self, obs: torch.Tensor) -> torch.Tensor:
        q: torch.Tensor = self.parts.net.net(obs)
        return q

    def _loss(self, batch: TransitionBatch) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        c, b, net = self.config, batch, self.parts.net
        q_taken = net.net(b.obs).gather(1, b.act.reshape(-1, 1).long()).squeeze(1)
        with torch.no_grad():
            q_next_online = net.net(b.next_obs) if c.double_dqn else None
            next_value = next_state_value(net.target(b.next_obs), q_next_online, self._legal(b.next_obs))
            target = td_target(b.reward, b.is_terminated, next_value, b.discount)
        loss = td_loss(q_taken, target, c.loss, b.weight)
        return loss, target - q_taken.detach(), q_taken.detach().mean()
