"""The CrossQ agent: SAC's policy and entropy tuning, batch-renormalised critics and no target critics."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

import attrs
import torch

from border_py.agents.batch_renorm import BatchRenorm, folded_linear_layers, train_mode
from border_py.agents.crossq.losses import joint_critic_values
from border_py.agents.ensemble import CriticEnsemble
from border_py.agents.greedy import MlpParts, mean_head
from border_py.agents.parts import Scalar, Trained, seeded
from border_py.agents.sac.model import GaussianActor
from border_py.agents.sac.soft import SoftActorCritic
from border_py.agents.toolkit import adam, saved_count
from border_py.base.spaces import Spaces
from border_py.replay_buffer.transition import TransitionBatch

if TYPE_CHECKING:  # the config's build() imports this module
    from border_py.agents.crossq.config import CrossQConfig


@attrs.frozen
class CrossQParts:
    """CrossQ's parts: the policy, the critics (no target: a `Trained` part, not a `Tracked` one), and
    the entropy coefficient's log."""

    actor: Trained[GaussianActor]
    critic: Trained[CriticEnsemble]
    log_alpha: Scalar


class CrossQ(SoftActorCritic["CrossQConfig", CrossQParts]):
    """CrossQ (Bhatt et al., ICLR 2024) for Box action spaces: SAC with no target critics, whose critics
    (and policy) batch-renormalise their input and hidden activations.

    Each update samples the next actions from the policy with its running statistics, runs the critics
    in train mode on the current and the next state-actions as one joint batch (so the batch statistics
    cover both distributions: the paper's point), splits the outputs, and regresses the current half onto
    the soft Bellman target of the next half's minimum, without gradient. On every ``policy_delay``-th
    update the policy (in train mode) climbs the critics' minimum with their running statistics (eval
    mode), less the entropy bonus, and alpha is tuned as SAC's. Adam's first moment decays at
    ``adam_beta1`` (0.5). Between updates both networks rest in eval mode, so acting and the targets use
    the running statistics, as SBX's.

    Eval-mode actions are the policy's mode ``bias + scale * tanh(mean)``; export folds the policy's
    normalisations into its linear layers. The running statistics and counts are buffers of the networks'
    files; ``state.pt`` adds the update count.

    Args:
        config: hyperparameters.
        spaces: the env's observation size and its box of actions.
        seed: seeds network initialisation and the agent's sampling.

    Raises:
        TypeError: the actions are not a box.
        ValueError: ``config.device`` does not exist here.

    Examples:
        >>> import numpy as np
        >>> from border_py.agents import CrossQConfig
        >>> from border_py.base import Spaces
        >>> spaces = Spaces(obs_shape=(3,), action_low=[-2.0], action_high=[2.0])
        >>> agent = CrossQ(CrossQConfig(), spaces, seed=0)
        >>> agent.eval(); agent.sample(np.zeros(3, np.float32)).shape
        (1,)
        >>> agent.parts.critic.net.norms[1].running_mean.shape  # per critic, per unit
        torch.Size([2, 1, 1024])
    """

    name = "CrossQ"

    def __init__(self, config: CrossQConfig, spaces: Spaces, seed: int) -> None:
        super().__init__(config, spaces, seed)
        c, device, obs_dim, act_dim = config, self.device, self.obs_dim, self.act_dim
        norm = partial(
            BatchRenorm,
            momentum=c.batch_norm_momentum,
            eps=c.batch_norm_eps,
            warmup_steps=c.renorm_warmup_steps,
            r_max=c.renorm_r_max,
            d_max=c.renorm_d_max,
        )
        with seeded(seed):
            actor_norm = (lambda width: norm((width,))) if c.actor_batch_norm else None
            actor = self._gaussian_actor(actor_norm)
            critic = CriticEnsemble(
                obs_dim,
                act_dim,
                c.critic_hidden,
                c.n_critics,
                norm=lambda n, width: norm((n, 1, width)),
                encoder=self._encoder(),
            )
        # At rest in eval mode (running statistics): acting, the next actions and the policy's critics.
        actor.eval()
        critic.eval()
        betas = (c.adam_beta1, 0.999)
        self.parts = CrossQParts(
            actor=Trained.of(
                actor, "actor.pt", "actor_optimizer", device, lambda p: adam(p, c.actor_lr, betas=betas)
            ),
            critic=Trained.of(
                critic, "critic.pt", "critic_optimizer", device, lambda p: adam(p, c.critic_lr, betas=betas)
            ),
            log_alpha=self._log_alpha(),
        )
        self.updates = 0
        """Critic updates so far: the policy and alpha step on every ``policy_delay``-th."""

    def _critic_values(self, b: TransitionBatch, alpha: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The critics on ``(s, a)`` and ``(s', a')`` as one batch in train mode, ``a'`` drawn from the
        policy with its running statistics; the outputs for ``(s, a)`` and their target from the rest."""
        critic, c = self.parts.critic, self.config
        with torch.no_grad():
            next_act, next_log_prob = self._sample_policy(b.next_obs)
        with train_mode(critic.net):
            q_joint = critic.net(torch.cat([b.obs, b.next_obs]), torch.cat([b.act, next_act]))
        return joint_critic_values(
            q_joint, b.reward, b.is_terminated, b.discount, next_log_prob, alpha, c.reward_scale
        )

    def _policy_due(self) -> bool:
        self.updates += 1
        return self.updates % self.config.policy_delay == 0

    def _policy_step(self, obs: torch.Tensor, alpha: torch.Tensor) -> dict[str, float]:
        # The policy normalises with its batch (and its running statistics follow); the critics it climbs
        # stay in eval mode, with their running statistics.
        with train_mode(self.parts.actor.net):
            return super()._policy_step(obs, alpha)

    def greedy_policy(self) -> MlpParts:
        """The eval-mode policy for export: the Gaussian's mean, its normalisations folded into the linear
        layers, ``bias + scale * tanh(mean)``."""
        return self._tanh_box_policy(mean_head(folded_linear_layers(self.parts.actor.net.net), self.act_dim))

    def _state(self) -> dict[str, Any]:
        # The update count: the policy's delay resumes in step.
        return {**super()._state(), "updates": self.updates}

    def _check_state(self, state: dict[str, Any]) -> None:
        super()._check_state(state)
        saved_count(state["updates"], "updates")

    def _load_state(self, state: dict[str, Any]) -> None:
        super()._load_state(state)
        self.updates = int(state["updates"])
