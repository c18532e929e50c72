"""The SAC agent: its parts (the policy, the critics with their targets, the entropy coefficient) and
its critics' target; the update is the family's (`border_py.agents.sac.soft.SoftActorCritic`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs
import torch

from border_py.agents.ensemble import CriticEnsemble
from border_py.agents.parts import Scalar, Tracked, Trained, seeded
from border_py.agents.sac.losses import soft_q_target
from border_py.agents.sac.model import GaussianActor
from border_py.agents.sac.soft import SoftActorCritic
from border_py.base.spaces import Spaces
from border_py.replay_buffer.transition import TransitionBatch

if TYPE_CHECKING:  # the config's build() imports this module
    from border_py.agents.sac.config import SacConfig


@attrs.frozen
class SacParts:
    """SAC's parts: the policy, the critics with their targets, and the entropy coefficient's log."""

    actor: Trained[GaussianActor]
    critic: Tracked[CriticEnsemble]
    log_alpha: Scalar


class Sac(SoftActorCritic["SacConfig", SacParts]):
    """Soft actor-critic (Haarnoja et al., 2018) for Box action spaces.

    Train-mode actions are sampled from the tanh-squashed Gaussian policy; eval-mode actions are its
    deterministic mode ``bias + scale * tanh(mean)``. Each update fits ``n_critics`` Q-networks to the soft
    Bellman target built from the minimum of the target critics, then the policy to ``min_i Q_i`` minus the
    entropy bonus, then (optionally) alpha, then moves the target critics by Polyak averaging. All
    randomness comes from the agent's own ``torch.Generator``, seeded with ``seed``.

    Args:
        config: hyperparameters.
        spaces: the env's observation size and its box of actions (bounds checked by `Spaces`).
        seed: seeds network initialisation and the agent's sampling.

    Raises:
        TypeError: the actions are not a box.
        ValueError: ``config.device`` does not exist here.

    Examples:
        >>> import numpy as np
        >>> from border_py.agents import SacConfig
        >>> from border_py.base import Spaces
        >>> agent = Sac(SacConfig(), Spaces(obs_shape=(3,), action_low=[-2.0], action_high=[2.0]), seed=0)
        >>> agent.eval(); agent.sample(np.zeros(3, np.float32)).shape
        (1,)
    """

    name = "SAC"

    def __init__(self, config: SacConfig, spaces: Spaces, seed: int) -> None:
        super().__init__(config, spaces, seed)
        c, device, obs_dim, act_dim = config, self.device, self.obs_dim, self.act_dim
        with seeded(seed):
            actor = self._gaussian_actor()
            critic = self._critic(obs_dim, act_dim)
        self.parts = SacParts(
            actor=Trained.adam(actor, "actor.pt", "actor_optimizer", c.actor_lr, device),
            critic=Tracked.adam_with_target(
                critic, "critic.pt", "critic_optimizer", c.critic_lr, device, "critic_tgt.pt"
            ),
            log_alpha=self._log_alpha(),
        )

    def _critic(self, obs_dim: int, act_dim: int) -> CriticEnsemble:
        """The critics, built in the agent's ``seeded`` block after the policy: ``n_critics`` Q-networks."""
        c = self.config
        return CriticEnsemble(obs_dim, act_dim, c.critic_hidden, c.n_critics, encoder=self._encoder())

    def _critic_values(self, b: TransitionBatch, alpha: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The critics' outputs for the batch's actions and, without gradient, `_critic_target`."""
        with torch.no_grad():
            target = self._critic_target(b, alpha)
        return self.parts.critic.net(b.obs, b.act), target

    def _critic_target(self, b: TransitionBatch, alpha: torch.Tensor) -> torch.Tensor:
        """The critics' regression target (no gradient): the soft Bellman target of the target critics'
        minimum, ``(batch,)``."""
        next_act, next_log_prob = self._sample_policy(b.next_obs)
        next_q_min = self.parts.critic.target(b.next_obs, next_act).min(dim=0).values
        c = self.config
        return soft_q_target(
            b.reward, b.is_terminated, b.discount, next_q_min, next_log_prob, alpha, c.reward_scale
        )

    def _end_update(self) -> None:
        # The targets follow the critics after their optimiser step.
        self.parts.critic.update_target(self.config.tau)
