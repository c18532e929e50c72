"""The AWAC agent: twin critics trained on the policy's actions, an advantage-weighted actor."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from border_py.agents.iql.losses import advantage_weights, value_target
from border_py.agents.offline_base import ActorCriticParts, GaussianActorCritic, ObsStats
from border_py.base.spaces import Spaces
from border_py.replay_buffer.transition import TransitionBatch

if TYPE_CHECKING:  # the config's build() imports this module
    from border_py.agents.awac.config import AwacConfig


class Awac(GaussianActorCritic["AwacConfig", ActorCriticParts]):
    """Advantage-weighted actor-critic (Nair et al., 2020), for Box actions: offline pre-training, then
    online fine-tuning from the same checkpoint with the online trainer (train mode samples actions).

    Each update: the Q-networks regress to ``r + discount * min_i Q_target_i(s', a')`` with ``a' ~ pi(s')``;
    the actor maximises ``exp(A / lam) * log pi(a|s)`` (clipped at ``max_weight``) with
    ``A = min_i Q_i(s, a) - min_i Q_i(s, a_pi)``, ``a_pi ~ pi(s)``; then the targets move by Polyak
    averaging. ``A`` comes from the critics before this update's step, as in the AWAC authors' code
    (rlkit), so ``Q_i(s, a)`` is the forward pass the critic loss made, not another one (what that saves:
    ``benchmarks/RESULTS.md``).

    Args:
        config: hyperparameters.
        spaces: the env's observation size and its box of actions.
        seed: seeds network initialisation and sampling.
        obs_stats: the dataset's observation mean and std (``normalize_obs``).

    Examples:
        >>> import numpy as np
        >>> from border_py.agents import AwacConfig
        >>> from border_py.base import Spaces
        >>> agent = Awac(AwacConfig(), Spaces(obs_shape=(3,), action_low=[-2.0], action_high=[2.0]), seed=0)
        >>> agent.eval(); agent.sample(np.zeros(3, np.float32)).shape
        (1,)
    """

    def __init__(
        self, config: AwacConfig, spaces: Spaces, seed: int, obs_stats: ObsStats | None = None
    ) -> None:
        super().__init__("AWAC", config, spaces, seed, obs_stats)
        actor, critic = self._actor_critic(seed)
        self.parts = ActorCriticParts(normalizer=self._normalizer(obs_stats), actor=actor, critic=critic)

    def _update(self, batch: TransitionBatch) -> dict[str, float]:
        c, b = self.config, batch
        actor, critic = self.parts.actor.net, self.parts.critic
        act = self._unit(b.act)
        with torch.no_grad():
            next_act = actor.sample(b.next_obs, self.generator).clamp(-1.0, 1.0)
            next_q = critic.target(b.next_obs, next_act).min(dim=0).values
            pi_act = actor.sample(b.obs, self.generator).clamp(-1.0, 1.0)
            v_pi = critic.net(b.obs, pi_act).min(dim=0).values
        critic_loss, q = self._critic_step(
            b.obs, act, value_target(b.reward, b.is_terminated, b.discount, next_q)
        )
        advantage = q.min(dim=0).values - v_pi
        weight = advantage_weights(advantage, 1.0 / c.lam, c.max_weight)
        actor_loss = self._actor_step(b.obs, act, weight)
        critic.update_target(c.tau)
        return {
            "train/critic_loss": critic_loss,
            "train/actor_loss": actor_loss,
            "train/advantage_mean": float(advantage.mean()),
            "train/weight_mean": float(weight.mean()),
        }
