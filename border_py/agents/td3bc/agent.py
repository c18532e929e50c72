"""The TD3+BC agent: TD3's critics and delayed deterministic policy, with a behaviour-cloning term."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

import torch
from torch import nn

from border_py.agents.greedy import F32, linear_layers
from border_py.agents.offline_base import ObsStats, OfflineAgent
from border_py.agents.td3.agent import smoothed_td_target
from border_py.agents.td3.losses import critic_loss
from border_py.agents.td3bc.losses import td3bc_actor_loss
from border_py.agents.toolkit import CriticEnsemble, adam, descend, frozen, mlp, update_target
from border_py.base.spaces import Spaces
from border_py.replay_buffer.transition import TransitionBatch

if TYPE_CHECKING:  # the config's build() imports this module
    from border_py.agents.td3bc.config import Td3BcConfig


class Td3Bc(OfflineAgent):
    """TD3+BC (Fujimoto and Gu, 2021), for Box actions: TD3 on a fixed dataset whose policy loss adds the
    squared distance to the dataset's action, with the Q term scaled by ``alpha / mean |Q|``; observations
    normalised with the dataset's statistics.

    The networks work on unit actions (the Box mapped to ``[-1, 1]``). Each update fits the critics to
    ``r + discount * min_i Q_i'(s', clip(pi'(s') + clipped noise, -1, 1))``; every ``policy_delay``
    updates the policy takes a step and the targets follow by Polyak averaging. It acts with its
    deterministic policy in both modes (offline, nothing to explore).

    Args:
        config: hyperparameters.
        spaces: the env's observation size and its box of actions.
        seed: seeds network initialisation and the smoothing noise.
        obs_stats: the dataset's observation mean and std (``normalize_obs``).

    Examples:
        >>> import numpy as np
        >>> from border_py.agents import Td3BcConfig
        >>> from border_py.base import Spaces
        >>> spaces = Spaces(obs_shape=(3,), action_low=[-2.0], action_high=[2.0])
        >>> agent = Td3Bc(Td3BcConfig(normalize_obs=False), spaces, seed=0)
        >>> agent.sample(np.zeros(3, np.float32)).shape
        (1,)
    """

    def __init__(
        self, config: Td3BcConfig, spaces: Spaces, seed: int, obs_stats: ObsStats | None = None
    ) -> None:
        spaces.need_box("TD3+BC")
        super().__init__("TD3+BC", config, spaces, seed, obs_stats)
        assert self.scale is not None
        obs_dim, c = spaces.obs_dim, config
        self.config = config
        act_dim = self.scale.dim
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.actor = nn.Sequential(mlp(obs_dim, act_dim, c.actor_hidden), nn.Tanh()).to(self.device)
            self.critic = CriticEnsemble(obs_dim, act_dim, c.critic_hidden, c.n_critics).to(self.device)
        self.actor_tgt = copy.deepcopy(self.actor).requires_grad_(False)
        self.critic_tgt = copy.deepcopy(self.critic).requires_grad_(False)
        self._actor_params: list[torch.Tensor] = list(self.actor.parameters())
        self._critic_params: list[torch.Tensor] = list(self.critic.parameters())
        self._tgt_params: list[torch.Tensor] = [*self.critic_tgt.parameters(), *self.actor_tgt.parameters()]
        self._online_params: list[torch.Tensor] = [*self._critic_params, *self._actor_params]
        self.actor_optimizer = adam(self._actor_params, c.actor_lr)
        self.critic_optimizer = adam(self._critic_params, c.critic_lr)
        self._one = torch.ones(act_dim, device=self.device)

    def _policy_act(self, obs: torch.Tensor) -> torch.Tensor:
        assert self.scale is not None
        return self.scale.from_unit(self.actor(obs))

    def _update(self, batch: TransitionBatch) -> dict[str, float]:
        c, b = self.config, batch
        assert self.scale is not None
        act = self.scale.to_unit(b.act)
        noise = c.target_noise * torch.randn(act.shape, generator=self.generator, device=self.device)
        target = smoothed_td_target(
            b, self.actor_tgt, self.critic_tgt, noise, c.target_noise_clip, self._one, -self._one, self._one
        )
        q = self.critic(b.obs, act)
        loss_q = critic_loss(q, target)
        descend(self.critic_optimizer, loss_q, self._critic_params)
        record = {"train/critic_loss": float(loss_q.detach()), "train/q_mean": float(q.detach().mean())}
        # opt_steps counts the updates before this one: the policy moves on every policy_delay-th.
        if (self.opt_steps + 1) % c.policy_delay == 0:
            record.update(self._policy_step(b.obs, act))
            update_target(self._tgt_params, self._online_params, c.tau)
        return record

    def _policy_step(self, obs: torch.Tensor, act: torch.Tensor) -> dict[str, float]:
        with frozen(self._critic_params):  # only the policy's gradient is wanted
            pi = self.actor(obs)
            loss = td3bc_actor_loss(self.critic.first(obs, pi), pi, act, self.config.alpha)
        descend(self.actor_optimizer, loss, self._actor_params)
        return {
            "train/actor_loss": float(loss.detach()),
            "train/bc_mse": float(((pi.detach() - act) ** 2).mean()),
        }

    def _greedy_layers(self) -> list[tuple[F32, F32]]:
        return linear_layers(self.actor)  # its Tanh is the policy's tanh_box

    def _networks(self) -> dict[str, nn.Module]:
        return {
            "actor.pt": self.actor,
            "actor_tgt.pt": self.actor_tgt,
            "critic.pt": self.critic,
            "critic_tgt.pt": self.critic_tgt,
        }

    def _optimizers(self) -> dict[str, torch.optim.Optimizer]:
        return {"actor": self.actor_optimizer, "critic": self.critic_optimizer}
