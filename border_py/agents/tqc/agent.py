"""The TQC agent: SAC's policy and entropy tuning, distributional critics with a truncated target."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from border_py.agents.ensemble import CriticEnsemble
from border_py.agents.sac.agent import Sac
from border_py.agents.tqc.losses import quantile_critic_loss, truncated_target
from border_py.base.spaces import Spaces
from border_py.replay_buffer.transition import TransitionBatch

if TYPE_CHECKING:  # the config's build() imports this module
    from border_py.agents.tqc.config import TqcConfig


class Tqc(Sac):
    """Truncated quantile critics (Kuznetsov et al., 2020) for Box action spaces: `Sac` whose critics each
    give ``n_quantiles`` quantiles of the return.

    The target pools the target critics' quantiles of the next state, sorts them and drops the
    ``top_quantiles_to_drop_per_net x n_critics`` largest (the overestimation control, in place of SAC's
    minimum); every critic's quantiles regress onto every kept atom with the quantile Huber loss. The policy
    climbs the mean of all critics' quantiles, less the entropy bonus; alpha is tuned as SAC's. Acting,
    export, the checkpoint files and the generator are SAC's.

    Args:
        config: hyperparameters.
        spaces: the env's observation size and its box of actions.
        seed: seeds network initialisation and the agent's sampling.

    Raises:
        TypeError: the actions are not a box.
        ValueError: ``config.device`` does not exist here.

    Examples:
        >>> import numpy as np
        >>> from border_py.agents import TqcConfig
        >>> from border_py.base import Spaces
        >>> agent = Tqc(TqcConfig(), Spaces(obs_shape=(3,), action_low=[-2.0], action_high=[2.0]), seed=0)
        >>> agent.parts.critic.net(torch.zeros(4, 3), torch.zeros(4, 1)).shape  # critics, batch, quantiles
        torch.Size([5, 4, 25])
    """

    name = "TQC"
    config: TqcConfig

    def __init__(self, config: TqcConfig, spaces: Spaces, seed: int) -> None:
        # Only to take a TqcConfig: SAC's constructor builds the parts, calling `_critic` below.
        super().__init__(config, spaces, seed)

    def _critic(self, obs_dim: int, act_dim: int) -> CriticEnsemble:
        c = self.config
        return CriticEnsemble(
            obs_dim, act_dim, c.critic_hidden, c.n_critics, out=c.n_quantiles, encoder=self._encoder()
        )

    def _critic_target(self, b: TransitionBatch, alpha: torch.Tensor) -> torch.Tensor:
        c = self.config
        next_act, next_log_prob = self._sample_policy(b.next_obs)
        next_z = self.parts.critic.target(b.next_obs, next_act)  # (n, batch, M)
        n_drop = c.top_quantiles_to_drop_per_net * c.n_critics
        return truncated_target(
            b.reward, b.is_terminated, b.discount, next_z, n_drop, next_log_prob, alpha, c.reward_scale
        )

    def _critic_loss(
        self, q: torch.Tensor, target: torch.Tensor, weight: torch.Tensor | None
    ) -> torch.Tensor:
        return quantile_critic_loss(q, target, weight)

    def _policy_value(self, q: torch.Tensor) -> torch.Tensor:
        return q.mean(dim=(0, 2))
