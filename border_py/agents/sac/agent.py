"""The SAC agent: policy, critics, target critics, entropy coefficient and ``opt``."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import torch

from border_py.agents.greedy import MlpParts, linear_layers, mean_head
from border_py.agents.sac.losses import (
    actor_loss,
    alpha_loss,
    critic_loss,
    soft_q_target,
    squashed_gaussian_log_prob,
)
from border_py.agents.sac.model import GaussianActor
from border_py.agents.toolkit import (
    CriticEnsemble,
    adam,
    descend,
    frozen,
    load_state_arrays,
    state_arrays,
    torch_device,
    update_target,
)
from border_py.agents.torch_agent import TorchAgent, restore_generator
from border_py.base.replay_buffer import ReplayBuffer
from border_py.base.spaces import Spaces
from border_py.record import Record
from border_py.replay_buffer.transition import TransitionBatch

if TYPE_CHECKING:  # the config's build() imports this module
    from border_py.agents.sac.config import SacConfig


class Sac(TorchAgent):
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
        >>> from border_py.agents import SacConfig
        >>> from border_py.base import Spaces
        >>> agent = Sac(SacConfig(), Spaces(obs_shape=(3,), action_low=[-2.0], action_high=[2.0]), seed=0)
        >>> agent.eval(); agent.sample(np.zeros(3, np.float32)).shape
        (1,)
    """

    name = "SAC"

    def __init__(self, config: SacConfig, spaces: Spaces, seed: int) -> None:
        low, high = spaces.need_box("SAC")
        self.config = config
        self.obs_dim = obs_dim = spaces.obs_dim
        self.act_dim = int(low.shape[0])
        self.device = torch_device(config.device)
        self.action_low, self.action_high = low, high
        self.scale = torch.as_tensor((high - low) / 2.0, device=self.device)
        self.bias = torch.as_tensor((high + low) / 2.0, device=self.device)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.actor = GaussianActor(
                obs_dim, self.act_dim, config.actor_hidden, config.log_std_min, config.log_std_max
            ).to(self.device)
            self.critic = CriticEnsemble(obs_dim, self.act_dim, config.critic_hidden, config.n_critics).to(
                self.device
            )
        # The target critics are their own networks, saved and loaded as themselves.
        self.critic_tgt = copy.deepcopy(self.critic).requires_grad_(False)
        # Made once: module.parameters() walks the module tree on every call.
        self._online_params: list[torch.Tensor] = list(self.critic.parameters())
        self._tgt_params: list[torch.Tensor] = list(self.critic_tgt.parameters())
        self._actor_params: list[torch.Tensor] = list(self.actor.parameters())
        self.log_alpha = torch.tensor(
            float(np.log(config.init_alpha)), device=self.device, requires_grad=config.auto_alpha
        )
        self.target_entropy = -float(self.act_dim) if config.target_entropy is None else config.target_entropy
        self.actor_optimizer = adam(self._actor_params, config.actor_lr)
        self.critic_optimizer = adam(self._online_params, config.critic_lr)
        self.alpha_optimizer = adam([self.log_alpha], config.alpha_lr)
        self.generator = torch.Generator(self.device).manual_seed(seed)
        self.opt_steps = 0

    @property
    def batch_size(self) -> int:
        """In transitions per update."""
        return self.config.batch_size

    def _squash(self, u: torch.Tensor) -> torch.Tensor:
        return self.bias + self.scale * torch.tanh(u)

    def _sample_policy(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Reparameterised actions and their log-probabilities, ``(batch, act_dim)`` and ``(batch,)``."""
        mean, log_std = self.actor(obs)
        noise = torch.randn(mean.shape, generator=self.generator, device=self.device)
        u = mean + log_std.exp() * noise
        return self._squash(u), squashed_gaussian_log_prob(u, mean, log_std, self.scale)

    def _act(self, obs: npt.NDArray[Any], n: int) -> npt.NDArray[np.float32]:
        """Float32 actions ``(n, act_dim)`` within the bounds: sampled in train mode, the policy's mode in
        eval mode."""
        with torch.inference_mode():
            x = torch.as_tensor(obs, dtype=torch.float32, device=self.device).reshape(n, -1)
            if self._train:
                act, _ = self._sample_policy(x)
            else:
                act = self._squash(self.actor(x)[0])
        # The clip only guards float rounding of bias + scale * tanh at the bounds.
        out: npt.NDArray[np.float32] = np.clip(act.cpu().numpy(), self.action_low, self.action_high)
        return out

    def acting_state(self) -> dict[str, Any]:
        """The policy network's weights as numpy arrays (`SyncModel`)."""
        return {"actor": state_arrays(self.actor)}

    def load_acting_state(self, state: Mapping[str, Any], env_steps: int) -> None:
        """Loads `acting_state`'s weights into the policy network (SAC has no schedule in env
        steps)."""
        load_state_arrays(self.actor, state["actor"], "SAC")

    def alpha(self) -> float:
        """The current entropy coefficient."""
        return float(self.log_alpha.detach().exp())

    def opt(self, buffer: ReplayBuffer[TransitionBatch]) -> Record | None:
        """``n_updates_per_opt`` updates, each on its own batch; ``None`` while the buffer is smaller than a
        batch.

        Returns:
            Means over the updates of ``train/critic_loss``, ``train/actor_loss``, ``train/q_mean``,
            ``train/entropy`` (``-log pi`` of fresh actions), ``train/alpha`` and, with automatic tuning,
            ``train/alpha_loss``.
        """
        if len(buffer) < self.config.batch_size:
            return None
        records = [self._update(buffer) for _ in range(self.config.n_updates_per_opt)]
        self.opt_steps += 1
        return Record({k: float(np.mean([r[k] for r in records])) for k in records[0]})

    def _update(self, buffer: ReplayBuffer[TransitionBatch]) -> dict[str, float]:
        c = self.config
        b = buffer.batch(c.batch_size).to(self.device)
        alpha = self.log_alpha.detach().exp()

        with torch.no_grad():
            next_act, next_log_prob = self._sample_policy(b.next_obs)
            next_q_min = self.critic_tgt(b.next_obs, next_act).min(dim=0).values
            target = soft_q_target(
                b.reward, b.is_terminated, b.discount, next_q_min, next_log_prob, alpha, c.reward_scale
            )
        q = self.critic(b.obs, b.act)
        loss_q = critic_loss(q, target, b.weight)
        descend(self.critic_optimizer, loss_q, self._online_params, c.max_grad_norm)

        act, log_prob = self._sample_policy(b.obs)
        with frozen(self._online_params):  # only the policy's gradient is wanted
            loss_pi = actor_loss(log_prob, self.critic(b.obs, act).min(dim=0).values, alpha)
        descend(self.actor_optimizer, loss_pi, self._actor_params, c.max_grad_norm)

        record = {
            "train/critic_loss": float(loss_q.detach()),
            "train/actor_loss": float(loss_pi.detach()),
            "train/q_mean": float(q.detach().mean()),
            "train/entropy": float(-log_prob.detach().mean()),
        }
        if c.auto_alpha:
            loss_alpha = alpha_loss(self.log_alpha, log_prob.detach(), self.target_entropy)
            descend(self.alpha_optimizer, loss_alpha, [self.log_alpha])
            record["train/alpha_loss"] = float(loss_alpha.detach())
        record["train/alpha"] = self.alpha()

        # The targets follow the critics after their optimiser step.
        update_target(self._tgt_params, self._online_params, c.tau)
        if b.weight is not None:
            td = (target - q.detach().mean(dim=0)).cpu().numpy()
            buffer.update_priority(b.ix_sample, td)
        return record

    def greedy_policy(self) -> MlpParts:
        """The eval-mode policy for export: the mean of the Gaussian, ``bias + scale * tanh(mean)``."""
        return MlpParts(
            obs_mean=None,
            obs_std=None,
            obs_clip=None,
            layers=mean_head(linear_layers(self.actor.net), self.act_dim),
            activation="relu",
            head="tanh_box",
            low=self.action_low,
            high=self.action_high,
        )

    def _modules(self) -> dict[str, torch.nn.Module]:
        # The target critics are saved as themselves.
        return {"actor.pt": self.actor, "critic.pt": self.critic, "critic_tgt.pt": self.critic_tgt}

    def _optimizers(self) -> dict[str, torch.optim.Optimizer]:
        return {
            "actor_optimizer": self.actor_optimizer,
            "critic_optimizer": self.critic_optimizer,
            "alpha_optimizer": self.alpha_optimizer,
        }

    def _state(self) -> dict[str, Any]:
        return {
            "log_alpha": self.log_alpha.detach().clone(),
            "opt_steps": self.opt_steps,
            "generator": self.generator.get_state(),
        }

    def _load_state(self, state: dict[str, Any]) -> None:
        with torch.no_grad():
            self.log_alpha.copy_(state["log_alpha"])
        self.opt_steps = int(state["opt_steps"])
        restore_generator(self.generator, state["generator"])
