"""The CQL agent: SAC's tanh-Gaussian policy and critics, with the conservative penalty on the critics."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import attrs
import torch
from torch import nn

from border_py.agents.cql.losses import conservative_gap, conservative_penalty, uniform_log_density
from border_py.agents.ensemble import CriticEnsemble
from border_py.agents.greedy import F32, linear_layers, mean_head
from border_py.agents.normalization import ObsNormalizer
from border_py.agents.offline_base import ObsStats, OfflineAgent
from border_py.agents.parts import Saved, Scalar, Tracked, Trained, seeded
from border_py.agents.sac.losses import actor_loss, alpha_loss, squashed_gaussian_log_prob
from border_py.agents.sac.model import GaussianActor
from border_py.agents.td3.losses import td_target
from border_py.agents.toolkit import frozen
from border_py.base.spaces import Spaces
from border_py.replay_buffer.transition import TransitionBatch

if TYPE_CHECKING:  # the config's build() imports this module
    from border_py.agents.cql.config import CqlConfig


@attrs.frozen
class CqlParts:
    """CQL's parts: the observation normaliser, SAC's policy, the critics with their targets, and the
    log-coefficients (saved together in ``coefficients.pt``): the entropy's ``log_alpha`` and the
    Lagrangian's ``log_alpha_prime``, each with its Adam."""

    normalizer: Saved[ObsNormalizer]
    actor: Trained[GaussianActor]
    critic: Tracked[CriticEnsemble]
    coefficients: Saved[nn.ParameterDict]
    log_alpha: Scalar
    log_alpha_prime: Scalar


class Cql(OfflineAgent["CqlConfig", CqlParts]):
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

    box_only = True

    def __init__(
        self, config: CqlConfig, spaces: Spaces, seed: int, obs_stats: ObsStats | None = None
    ) -> None:
        super().__init__("CQL", config, spaces, seed, obs_stats)
        c, device = config, self.device
        obs_dim, act_dim = spaces.obs_dim, self._box.dim
        with seeded(seed):  # each with its own encoder, if any (the critics of the ensemble share one)
            actor = GaussianActor(
                obs_dim, act_dim, c.actor_hidden, c.log_std_min, c.log_std_max, encoder=self._encoder()
            )
            critic = CriticEnsemble(obs_dim, act_dim, c.critic_hidden, c.n_critics, encoder=self._encoder())
        # log alpha (entropy) and log alpha' (the Lagrangian's; e as in CORL and the authors' code).
        logs = {"log_alpha": math.log(c.init_alpha), "log_alpha_prime": 1.0}
        coefficients = Saved.on(
            nn.ParameterDict({k: nn.Parameter(torch.tensor(v)) for k, v in logs.items()}),
            "coefficients.pt",
            device,
        )
        self.parts = CqlParts(
            normalizer=self._normalizer(obs_stats),
            actor=Trained.adam(actor, "actor.pt", "actor", c.actor_lr, device),
            critic=Tracked.adam_with_target(
                critic, "critic.pt", "critic", c.critic_lr, device, "critic_tgt.pt"
            ),
            coefficients=coefficients,
            log_alpha=Scalar.adam_of(coefficients.net["log_alpha"], "alpha", c.actor_lr),
            log_alpha_prime=Scalar.adam_of(coefficients.net["log_alpha_prime"], "alpha_prime", c.critic_lr),
        )
        self.target_entropy = -float(act_dim) if c.target_entropy is None else c.target_entropy
        self._one = torch.ones(act_dim, device=device)
        self._uniform_log_density = uniform_log_density(act_dim)

    def alpha(self) -> float:
        """The current entropy coefficient."""
        return self.parts.log_alpha.exp()

    def _policy_act(self, obs: torch.Tensor) -> torch.Tensor:
        mean, log_std = self.parts.actor.net(obs)
        if self._train:
            return self._box.from_unit(self._draw((mean, log_std), 1)[0][:, 0])
        return self._box.from_unit(torch.tanh(mean))

    def _draw(self, policy: tuple[torch.Tensor, torch.Tensor], n: int) -> tuple[torch.Tensor, torch.Tensor]:
        """``n`` reparameterised unit actions per state from the policy's ``(mean, log_std)``,
        ``(batch, n, act_dim)``, and their log-densities, ``(batch, n)``."""
        mean, log_std = policy[0].unsqueeze(1), policy[1].unsqueeze(1)
        noise = torch.randn((mean.shape[0], n, mean.shape[-1]), generator=self.generator, device=self.device)
        u = mean + log_std.exp() * noise
        return torch.tanh(u), squashed_gaussian_log_prob(u, mean, log_std, self._one)

    def _update(self, batch: TransitionBatch) -> dict[str, float]:
        c, b, n = self.config, batch, self.config.n_actions
        actor, critic, log_alpha_prime = self.parts.actor.net, self.parts.critic, self.parts.log_alpha_prime
        alpha = self.parts.log_alpha.value.detach().exp()
        with torch.no_grad():
            next_act, next_log_prob = self._draw(actor(b.next_obs), 1 + n)
            next_q = critic.target(b.next_obs, next_act[:, 0]).min(dim=0).values
            if c.backup_entropy:
                next_q = next_q - alpha * next_log_prob[:, 0]
            target = td_target(b.reward, b.is_terminated, b.discount, next_q)
        # One draw from pi(s) serves the policy's loss (column 0, with its gradient) and the penalty.
        act_pi, log_prob_pi = self._draw(actor(b.obs), 1 + n)
        uniform = 2.0 * torch.rand(act_pi[:, 1:].shape, generator=self.generator, device=self.device) - 1.0
        data_act = self._box.to_unit(b.act).clamp(-1.0, 1.0).unsqueeze(1)
        acts = torch.cat([data_act, uniform, act_pi[:, 1:].detach(), next_act[:, 1:]], dim=1)
        log_density = torch.cat(
            [
                torch.full_like(log_prob_pi[:, 1:], self._uniform_log_density),
                log_prob_pi[:, 1:].detach(),
                next_log_prob[:, 1:],
            ],
            dim=1,
        )
        q = critic.net(b.obs.unsqueeze(1), acts)  # each state broadcast over its actions
        td_loss = ((q[..., 0] - target) ** 2).mean(dim=1).sum()
        gap = conservative_gap(q, n, log_density, c.temperature)
        penalty, prime_loss = conservative_penalty(
            gap, c.cql_alpha, log_alpha_prime.value, c.target_action_gap
        )
        critic.step(td_loss + penalty)
        record = {
            "train/critic_loss": float(td_loss.detach()),
            "train/cql_gap": float(gap.detach().mean()),
            "train/q_mean": float(q[..., 0].detach().mean()),
        }
        if prime_loss is not None:
            log_alpha_prime.step(prime_loss)
            record["train/alpha_prime"] = log_alpha_prime.exp()
        record.update(self._policy_step(b.obs, act_pi[:, 0], log_prob_pi[:, 0], alpha))
        critic.update_target(c.tau)
        return record

    def _policy_step(
        self, obs: torch.Tensor, act: torch.Tensor, log_prob: torch.Tensor, alpha: torch.Tensor
    ) -> dict[str, float]:
        critic, log_alpha = self.parts.critic, self.parts.log_alpha
        with frozen(critic.params):  # only the policy's gradient is wanted
            loss = actor_loss(log_prob, critic.net(obs, act).min(dim=0).values, alpha)
        self.parts.actor.step(loss)
        record = {"train/actor_loss": float(loss.detach()), "train/entropy": float(-log_prob.detach().mean())}
        if self.config.auto_alpha:
            log_alpha.step(alpha_loss(log_alpha.value, log_prob.detach(), self.target_entropy))
        record["train/alpha"] = self.alpha()
        return record

    def _greedy_layers(self) -> list[tuple[F32, F32]]:
        return mean_head(linear_layers(self.parts.actor.net.net), self._box.dim)

    def _greedy_encoder(self) -> nn.Module | None:
        return self.parts.actor.net.encoder
