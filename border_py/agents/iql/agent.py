"""The IQL agent: expectile value, twin critics, advantage-weighted actor."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from torch import nn

from border_py.agents.iql.losses import advantage_weights, cosine_lr, expectile_loss, value_target
from border_py.agents.offline_base import GaussianActorCritic, ObsStats
from border_py.agents.toolkit import adam, gradient_step, mlp, update_target
from border_py.base.spaces import Spaces
from border_py.replay_buffer.transition import TransitionBatch

if TYPE_CHECKING:  # the config's build() imports this module
    from border_py.agents.iql.config import IqlConfig


class Iql(GaussianActorCritic):
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
        self.config = config
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed + 1)
            self.value = mlp(spaces.obs_dim, 1, config.critic_hidden).to(self.device)
        self._value_params: list[torch.Tensor] = list(self.value.parameters())
        self.value_optimizer = adam(self._value_params, config.critic_lr)

    def _update(self, batch: TransitionBatch) -> dict[str, float]:
        c, b = self.config, batch
        act = self._unit(b.act)
        with torch.no_grad():
            next_v = self.value(b.next_obs).squeeze(-1)
            target_q = self.critic_tgt(b.obs, act).min(dim=0).values
        v = self.value(b.obs).squeeze(-1)
        value_loss = expectile_loss(target_q - v, c.expectile)
        gradient_step(self.value_optimizer, value_loss, self._value_params, None)
        critic_loss, _ = self._critic_step(
            b.obs, act, value_target(b.reward, b.is_terminated, b.discount, next_v)
        )
        weight = advantage_weights(target_q - v.detach(), c.temperature, c.max_weight)
        if c.actor_lr_decay_steps is not None:  # derived from opt_steps, so a resumed run continues it
            for group in self.actor_optimizer.param_groups:
                group["lr"] = cosine_lr(c.actor_lr, self.opt_steps, c.actor_lr_decay_steps)
        actor_loss = self._actor_step(b.obs, act, weight)
        update_target(self._tgt_params, self._critic_params, c.tau)
        return {
            "train/value_loss": float(value_loss.detach()),
            "train/critic_loss": critic_loss,
            "train/actor_loss": actor_loss,
            "train/v_mean": float(v.detach().mean()),
            "train/weight_mean": float(weight.mean()),
            "train/actor_lr": float(self.actor_optimizer.param_groups[0]["lr"]),
        }

    def _networks(self) -> dict[str, nn.Module]:
        return {**super()._networks(), "value.pt": self.value}

    def _optimizers(self) -> dict[str, torch.optim.Optimizer]:
        return {**super()._optimizers(), "value": self.value_optimizer}
