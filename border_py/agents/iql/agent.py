"""The IQL agent: expectile value, twin critics, advantage-weighted actor."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs
import torch
from torch import nn

from border_py.agents.iql.losses import advantage_weights, cosine_lr, expectile_loss, value_target
from border_py.agents.multi_input import encoded
from border_py.agents.offline_base import ActorCriticParts, GaussianActorCritic, ObsStats
from border_py.agents.parts import Trained, seeded
from border_py.agents.toolkit import mlp
from border_py.base.spaces import Spaces
from border_py.replay_buffer.transition import TransitionBatch

if TYPE_CHECKING:  # the config's build() imports this module
    from border_py.agents.iql.config import IqlConfig


@attrs.frozen
class IqlParts(ActorCriticParts):
    """IQL's parts: `ActorCriticParts` and the state-value network (``value.pt``, optimiser ``value``)."""

    value: Trained[nn.Module]


class Iql(GaussianActorCritic["IqlConfig", IqlParts]):
    """Implicit Q-learning (Kostrikov et al., 2022), for Box actions.

    Each update, in CORL's order: ``V(s')`` for the Q target is taken first; the value network regresses
    to the ``expectile`` of ``min_i Q_target_i(s, a)`` (never querying an action outside the dataset); the
    Q-networks to ``r + discount * V(s')``; the actor maximises ``exp(beta * (Q_target - V)) * log pi(a|s)``
    with the weight clipped at ``max_weight`` (its learning rate annealed along a cosine with
    ``actor_lr_decay_steps``); then the targets move by Polyak averaging.

    Args:
        config: hyperparameters.
        spaces: the env's observation size and its box of actions.
        seed: seeds network initialisation and sampling.
        obs_stats: the dataset's observation mean and std (``normalize_obs``).

    Examples:
        >>> import numpy as np
        >>> from border_py.agents import IqlConfig
        >>> from border_py.base import Spaces
        >>> agent = Iql(IqlConfig(), Spaces(obs_shape=(3,), action_low=[-2.0], action_high=[2.0]), seed=0)
        >>> agent.eval(); agent.sample(np.zeros(3, np.float32)).shape
        (1,)
    """

    def __init__(
        self, config: IqlConfig, spaces: Spaces, seed: int, obs_stats: ObsStats | None = None
    ) -> None:
        super().__init__("IQL", config, spaces, seed, obs_stats)
        actor, critic = self._actor_critic(seed)
        with seeded(seed + 1):  # after the actor and the critics, from a seed of its own (and its encoder)
            value = encoded(self._encoder(), spaces.obs_dim, lambda n: mlp(n, 1, config.critic_hidden))
        self.parts = IqlParts(
            normalizer=self._normalizer(obs_stats),
            actor=actor,
            critic=critic,
            value=Trained.adam(value, "value.pt", "value", config.critic_lr, self.device),
        )

    def _update(self, batch: TransitionBatch) -> dict[str, float]:
        c, b, parts = self.config, batch, self.parts
        act = self._unit(b.act)
        with torch.no_grad():
            next_v = parts.value.net(b.next_obs).squeeze(-1)
            target_q = parts.critic.target(b.obs, act).min(dim=0).values
        v = parts.value.net(b.obs).squeeze(-1)
        value_loss = expectile_loss(target_q - v, c.expectile)
        parts.value.step(value_loss)
        critic_loss, _ = self._critic_step(
            b.obs, act, value_target(b.reward, b.is_terminated, b.discount, next_v)
        )
        weight = advantage_weights(target_q - v.detach(), c.temperature, c.max_weight)
        if c.actor_lr_decay_steps is not None:  # derived from opt_steps, so a resumed run continues it
            parts.actor.set_lr(cosine_lr(c.actor_lr, self.opt_steps, c.actor_lr_decay_steps))
        actor_loss = self._actor_step(b.obs, act, weight)
        parts.critic.update_target(c.tau)
        return {
            "train/value_loss": float(value_loss.detach()),
            "train/critic_loss": critic_loss,
            "train/actor_loss": actor_loss,
            "train/v_mean": float(v.detach().mean()),
            "train/weight_mean": float(weight.mean()),
            "train/actor_lr": float(parts.actor.optimizer.param_groups[0]["lr"]),
        }
