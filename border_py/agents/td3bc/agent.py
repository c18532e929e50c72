"""The TD3+BC agent: TD3's critics and delayed deterministic policy, with a behaviour-cloning term."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs
import torch
from torch import nn

from border_py.agents.ensemble import CriticEnsemble
from border_py.agents.greedy import F32, linear_layers
from border_py.agents.multi_input import Encoded, encoded
from border_py.agents.normalization import ObsNormalizer
from border_py.agents.offline_base import ObsStats, OfflineAgent
from border_py.agents.parts import Saved, Tracked, seeded
from border_py.agents.td3.agent import smoothed_td_target
from border_py.agents.td3.losses import critic_loss
from border_py.agents.td3bc.losses import td3bc_actor_loss
from border_py.agents.toolkit import frozen, mlp
from border_py.base.spaces import Spaces
from border_py.replay_buffer.transition import TransitionBatch

if TYPE_CHECKING:  # the config's build() imports this module
    from border_py.agents.td3bc.config import Td3BcConfig


@attrs.frozen
class Td3BcParts:
    """TD3+BC's parts: the observation normaliser, and the deterministic policy (an MLP then a tanh; with
    an encoder, an `Encoded` of them) and the critics, each with its Polyak-averaged target."""

    normalizer: Saved[ObsNormalizer]
    actor: Tracked[nn.Module]
    critic: Tracked[CriticEnsemble]


class Td3Bc(OfflineAgent["Td3BcConfig", Td3BcParts]):
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

    box_only = True

    def __init__(
        self, config: Td3BcConfig, spaces: Spaces, seed: int, obs_stats: ObsStats | None = None
    ) -> None:
        super().__init__("TD3+BC", config, spaces, seed, obs_stats)
        c, device = config, self.device
        obs_dim, act_dim = spaces.obs_dim, self._box.dim
        with seeded(seed):  # each with its own encoder, if any (the critics of the ensemble share one)
            actor = encoded(
                self._encoder(), obs_dim, lambda n: nn.Sequential(mlp(n, act_dim, c.actor_hidden), nn.Tanh())
            )
            critic = CriticEnsemble(obs_dim, act_dim, c.critic_hidden, c.n_critics, encoder=self._encoder())
        self.parts = Td3BcParts(
            normalizer=self._normalizer(obs_stats),
            actor=Tracked.adam_with_target(actor, "actor.pt", "actor", c.actor_lr, device, "actor_tgt.pt"),
            critic=Tracked.adam_with_target(
                critic, "critic.pt", "critic", c.critic_lr, device, "critic_tgt.pt"
            ),
        )
        self._one = torch.ones(act_dim, device=device)

    def _policy_act(self, obs: torch.Tensor) -> torch.Tensor:
        return self._box.from_unit(self.parts.actor.net(obs))

    def _update(self, batch: TransitionBatch) -> dict[str, float]:
        c, b, actor, critic = self.config, batch, self.parts.actor, self.parts.critic
        act = self._box.to_unit(b.act)
        noise = c.target_noise * torch.randn(act.shape, generator=self.generator, device=self.device)
        target = smoothed_td_target(
            b, actor.target, critic.target, noise, c.target_noise_clip, self._one, -self._one, self._one
        )
        q = critic.net(b.obs, act)
        loss_q = critic_loss(q, target)
        critic.step(loss_q)
        record = {"train/critic_loss": float(loss_q.detach()), "train/q_mean": float(q.detach().mean())}
        # opt_steps counts the updates before this one: the policy moves on every policy_delay-th.
        if (self.opt_steps + 1) % c.policy_delay == 0:
            record.update(self._policy_step(b.obs, act))
            critic.update_target(c.tau)
            actor.update_target(c.tau)
        return record

    def _policy_step(self, obs: torch.Tensor, act: torch.Tensor) -> dict[str, float]:
        critic = self.parts.critic
        with frozen(critic.params):  # only the policy's gradient is wanted
            pi = self.parts.actor.net(obs)
            loss = td3bc_actor_loss(critic.net.first(obs, pi), pi, act, self.config.alpha)
        self.parts.actor.step(loss)
        return {
            "train/actor_loss": float(loss.detach()),
            "train/bc_mse": float(((pi.detach() - act) ** 2).mean()),
        }

    def _greedy_layers(self) -> list[tuple[F32, F32]]:
        actor = self.parts.actor.net
        return linear_layers(actor.net if isinstance(actor, Encoded) else actor)  # its Tanh: tanh_box

    def _greedy_encoder(self) -> nn.Module | None:
        actor = self.parts.actor.net
        return actor.encoder if isinstance(actor, Encoded) else None
