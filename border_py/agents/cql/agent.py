"""The CQL agent: SAC's tanh-Gaussian policy and critics, with the conservative penalty on the critics."""

from __future__ import annotations

import copy
import math
from typing import TYPE_CHECKING

import torch
from torch import nn

from border_py.agents.cql.losses import conservative_gap, conservative_penalty, uniform_log_density
from border_py.agents.greedy import F32, linear_layers, mean_head
from border_py.agents.offline_base import ObsStats, OfflineAgent
from border_py.agents.sac.losses import actor_loss, alpha_loss, squashed_gaussian_log_prob
from border_py.agents.sac.model import GaussianActor
from border_py.agents.td3.losses import td_target
from border_py.agents.toolkit import CriticEnsemble, adam, descend, frozen, update_target
from border_py.base.spaces import Spaces
from border_py.replay_buffer.transition import TransitionBatch

if TYPE_CHECKING:  # the config's build() imports this module
    from border_py.agents.cql.config import CqlConfig


class Cql(OfflineAgent):
    """Conservative Q-learning (Kumar et al., 2020), continuous CQL(H) on SAC, for Box actions.

    The networks work on unit actions (the Box mapped to ``[-1, 1]``). Each update, on a batch:

    1. The critics regress to ``r + discount * (1 - terminated) * min_i Q_i'(s', a')``, ``a' ~ pi(s')``
       (minus ``alpha log pi(a'|s')`` with ``backup_entropy``), plus the conservative penalty
       ``cql_alpha * [temperature * logsumexp_j((Q(s, a_j) - log mu(a_j)) / temperature) - Q(s, a)]``
       over ``n_actions`` uniform actions, ``n_actions`` from ``pi(s)`` and ``n_actions`` from ``pi(s')``,
       each importance-weighted by the density it was drawn from (CORL's; the ``pi(s')`` actions are
       evaluated at ``s``, as in the authors' code). With ``target_action_gap`` the weight is scaled by
       a Lagrange multiplier that holds the gap at that value.
    2. The policy minimises SAC's ``alpha log pi(a|s) - min_i Q_i(s, a)``; alpha is tuned towards
       ``target_entropy``.
    3. The target critics follow by Polyak averaging.

    All critic evaluations of one update go through the ensemble in a single batched forward pass. In
    train mode it acts by sampling, in eval mode with ``tanh(mean)``.

    Args:
        config: hyperparameters.
        spaces: the env's observation size and its box of actions.
        seed: seeds network initialisation and sampling.
        obs_stats: the dataset's observation mean and std (``normalize_obs``).

    Examples:
        >>> import numpy as np
        >>> from border_py.agents import CqlConfig
        >>> from border_py.base import Spaces
        >>> spaces = Spaces(obs_shape=(3,), action_low=[-2.0], action_high=[2.0])
        >>> agent = Cql(CqlConfig(normalize_obs=False), spaces, seed=0)
        >>> agent.eval(); agent.sample(np.zeros(3, np.float32)).shape
        (1,)
    """

    def __init__(
        self, config: CqlConfig, spaces: Spaces, seed: int, obs_stats: ObsStats | None = None
    ) -> None:
        spaces.need_box("CQL")
        super().__init__("CQL", config, spaces, seed, obs_stats)
        assert self.scale is not None
        obs_dim, c = spaces.obs_dim, config
        self.config = config
        self.act_dim = act_dim = self.scale.dim
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.actor = GaussianActor(obs_dim, act_dim, c.actor_hidden, c.log_std_min, c.log_std_max)
            self.actor = self.actor.to(self.device)
            self.critic = CriticEnsemble(obs_dim, act_dim, c.critic_hidden, c.n_critics).to(self.device)
        self.critic_tgt = copy.deepcopy(self.critic).requires_grad_(False)
        # log alpha (entropy) and log alpha' (the Lagrangian's; e as in CORL and the authors' code).
        self.coefficients = nn.ParameterDict(
            {
                "log_alpha": nn.Parameter(torch.tensor(math.log(c.init_alpha))),
                "log_alpha_prime": nn.Parameter(torch.tensor(1.0)),
            }
        ).to(self.device)
        self._actor_params: list[torch.Tensor] = list(self.actor.parameters())
        self._critic_params: list[torch.Tensor] = list(self.critic.parameters())
        self._tgt_params: list[torch.Tensor] = list(self.critic_tgt.parameters())
        self._log_alpha = self.coefficients["log_alpha"]
        self._log_alpha_prime = self.coefficients["log_alpha_prime"]
        self.actor_optimizer = adam(self._actor_params, c.actor_lr)
        self.critic_optimizer = adam(self._critic_params, c.critic_lr)
        self.alpha_optimizer = adam([self._log_alpha], c.actor_lr)
        self.alpha_prime_optimizer = adam([self._log_alpha_prime], c.critic_lr)
        self.target_entropy = -float(act_dim) if c.target_entropy is None else c.target_entropy
        self._one = torch.ones(act_dim, device=self.device)
        self._uniform_log_density = uniform_log_density(act_dim)

    def alpha(self) -> float:
        """The current entropy coefficient."""
        return float(self._log_alpha.detach().exp())

    def _policy_act(self, obs: torch.Tensor) -> torch.Tensor:
        assert self.scale is not None
        mean, log_std = self.actor(obs)
        if self._train:
            return self.scale.from_unit(self._draw((mean, log_std), 1)[0][:, 0])
        return self.scale.from_unit(torch.tanh(mean))

    def _draw(self, policy: tuple[torch.Tensor, torch.Tensor], n: int) -> tuple[torch.Tensor, torch.Tensor]:
        """``n`` reparameterised unit actions per state from the policy's ``(mean, log_std)``,
        ``(batch, n, act_dim)``, and their log-densities, ``(batch, n)``."""
        mean, log_std = policy[0].unsqueeze(1), policy[1].unsqueeze(1)
        noise = torch.randn((mean.shape[0], n, mean.shape[-1]), generator=self.generator, device=self.device)
        u = mean + log_std.exp() * noise
        return torch.tanh(u), squashed_gaussian_log_prob(u, mean, log_std, self._one)

    def _update(self, batch: TransitionBatch) -> dict[str, float]:
        c, b, n = self.config, batch, self.config.n_actions
        assert self.scale is not None
        alpha = self._log_alpha.detach().exp()
        with torch.no_grad():
            next_act, next_log_prob = self._draw(self.actor(b.next_obs), 1 + n)
            next_q = self.critic_tgt(b.next_obs, next_act[:, 0]).min(dim=0).values
            if c.backup_entropy:
                next_q = next_q - alpha * next_log_prob[:, 0]
            target = td_target(b.reward, b.is_terminated, b.discount, next_q)
        # One draw from pi(s) serves the policy's loss (column 0, with its gradient) and the penalty.
        act_pi, log_prob_pi = self._draw(self.actor(b.obs), 1 + n)
        uniform = 2.0 * torch.rand(act_pi[:, 1:].shape, generator=self.generator, device=self.device) - 1.0
        data_act = self.scale.to_unit(b.act).clamp(-1.0, 1.0).unsqueeze(1)
        acts = torch.cat([data_act, uniform, act_pi[:, 1:].detach(), next_act[:, 1:]], dim=1)
        log_density = torch.cat(
            [
                torch.full_like(log_prob_pi[:, 1:], self._uniform_log_density),
                log_prob_pi[:, 1:].detach(),
                next_log_prob[:, 1:],
            ],
            dim=1,
        )
        q = self.critic(b.obs.unsqueeze(1).expand(-1, acts.shape[1], -1), acts)
        td_loss = ((q[..., 0] - target) ** 2).mean(dim=1).sum()
        gap = conservative_gap(q, n, log_density, c.temperature)
        penalty, prime_loss = conservative_penalty(
            gap, c.cql_alpha, self._log_alpha_prime, c.target_action_gap
        )
        descend(self.critic_optimizer, td_loss + penalty, self._critic_params)
        record = {
            "train/critic_loss": float(td_loss.detach()),
            "train/cql_gap": float(gap.detach().mean()),
            "train/q_mean": float(q[..., 0].detach().mean()),
        }
        if prime_loss is not None:
            descend(self.alpha_prime_optimizer, prime_loss, [self._log_alpha_prime])
            record["train/alpha_prime"] = float(self._log_alpha_prime.detach().exp())
        record.update(self._policy_step(b.obs, act_pi[:, 0], log_prob_pi[:, 0], alpha))
        update_target(self._tgt_params, self._critic_params, c.tau)
        return record

    def _policy_step(
        self, obs: torch.Tensor, act: torch.Tensor, log_prob: torch.Tensor, alpha: torch.Tensor
    ) -> dict[str, float]:
        with frozen(self._critic_params):  # only the policy's gradient is wanted
            loss = actor_loss(log_prob, self.critic(obs, act).min(dim=0).values, alpha)
        descend(self.actor_optimizer, loss, self._actor_params)
        record = {"train/actor_loss": float(loss.detach()), "train/entropy": float(-log_prob.detach().mean())}
        if self.config.auto_alpha:
            loss_alpha = alpha_loss(self._log_alpha, log_prob.detach(), self.target_entropy)
            descend(self.alpha_optimizer, loss_alpha, [self._log_alpha])
        record["train/alpha"] = self.alpha()
        return record

    def _greedy_layers(self) -> list[tuple[F32, F32]]:
        assert self.scale is not None
        return mean_head(linear_layers(self.actor.net), self.scale.dim)

    def _networks(self) -> dict[str, nn.Module]:
        return {
            "actor.pt": self.actor,
            "critic.pt": self.critic,
            "critic_tgt.pt": self.critic_tgt,
            "coefficients.pt": self.coefficients,
        }

    def _optimizers(self) -> dict[str, torch.optim.Optimizer]:
        return {
            "actor": self.actor_optimizer,
            "critic": self.critic_optimizer,
            "alpha": self.alpha_optimizer,
            "alpha_prime": self.alpha_prime_optimizer,
        }
