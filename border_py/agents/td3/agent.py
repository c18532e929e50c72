"""The TD3 agent: deterministic policy, critics, their targets, exploration noise and ``opt``."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from border_py.agents.greedy import MlpParts, linear_layers
from border_py.agents.td3.losses import actor_loss, critic_loss, smoothed_target_action, td_target
from border_py.agents.td3.model import BoxCritic, DeterministicActor
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
    from border_py.agents.td3.config import Td3Config


@torch.no_grad()
def smoothed_td_target(
    batch: TransitionBatch,
    actor_tgt: nn.Module,
    critic_tgt: CriticEnsemble,
    noise: torch.Tensor | None,
    noise_clip: float,
    scale: torch.Tensor,
    low: torch.Tensor,
    high: torch.Tensor,
) -> torch.Tensor:
    """TD3's critic target ``r + discount * (1 - terminated) * min_i Q_i'(s', a')`` with ``a'`` the target
    policy's action, smoothed by ``noise`` (half action ranges; ``None``: not smoothed, DDPG) clipped to
    ``noise_clip`` and to ``[low, high]``. TD3 and TD3+BC share it."""
    next_act = actor_tgt(batch.next_obs)
    if noise is not None:
        next_act = smoothed_target_action(next_act, noise, noise_clip, scale, low, high)
    next_q_min = critic_tgt(batch.next_obs, next_act).min(dim=0).values
    return td_target(batch.reward, batch.is_terminated, batch.discount, next_q_min)


class Td3(TorchAgent):
    """Twin delayed deep deterministic policy gradient (Fujimoto et al., 2018) for Box action spaces; DDPG
    (Lillicrap et al., 2016) with `Td3Config.ddpg`.

    Eval-mode actions are the policy's; train-mode actions add exploration noise (Gaussian, or
    Ornstein-Uhlenbeck, which runs on across episodes: the agent does not see their ends) and are clipped
    to the bounds. Until its first update the agent acts uniformly at random in train mode (SB3's
    ``learning_starts``), so the warm-up fills the buffer with varied actions. The critics take the action
    rescaled to ``[-1, 1]``, so learning does not depend on the units of the box (`BoxCritic`). Each update
    fits the critics to ``r + discount * min_i Q_i'(s', clip(pi'(s') + clipped noise))``; every
    ``policy_delay`` updates the policy climbs the first critic and the targets follow by Polyak
    averaging. All randomness comes from the agent's own ``torch.Generator``, seeded with ``seed``.

    Args:
        config: hyperparameters.
        spaces: the env's observation size and its box of actions (bounds checked by `Spaces`).
        seed: seeds network initialisation and the agent's sampling.

    Raises:
        TypeError: the actions are not a box.
        ValueError: ``config.device`` does not exist here.

    Examples:
        >>> from border_py.agents import Td3Config
        >>> from border_py.base import Spaces
        >>> agent = Td3(Td3Config(), Spaces(obs_shape=(3,), action_low=[-2.0], action_high=[2.0]), seed=0)
        >>> agent.eval(); agent.sample(np.zeros(3, np.float32)).shape
        (1,)
    """

    name = "TD3"

    def __init__(self, config: Td3Config, spaces: Spaces, seed: int) -> None:
        low, high = spaces.need_box("TD3")
        self.config = config
        obs_dim = spaces.obs_dim
        self.obs_dim, self.act_dim = obs_dim, spaces.action_dim
        self.device = torch_device(config.device)
        self.action_low, self.action_high = low, high
        self.low, self.high = (
            torch.as_tensor(low, device=self.device),
            torch.as_tensor(high, device=self.device),
        )
        self.scale = (self.high - self.low) / 2.0
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            bias = (self.high + self.low) / 2.0
            self.actor = DeterministicActor(obs_dim, self.act_dim, config.actor_hidden, self.scale, bias).to(
                self.device
            )
            # Critics of the action rescaled to [-1, 1] (as SB3's): see BoxCritic for why (issue 37).
            self.critic = BoxCritic(
                obs_dim, self.act_dim, config.critic_hidden, config.n_critics, self.scale, bias
            ).to(self.device)
        self.actor_tgt = copy.deepcopy(self.actor).requires_grad_(False)
        self.critic_tgt = copy.deepcopy(self.critic).requires_grad_(False)
        # Made once: module.parameters() walks the module tree on every call.
        self._critic_params: list[torch.Tensor] = list(self.critic.parameters())
        self._actor_params: list[torch.Tensor] = list(self.actor.parameters())
        self._tgt_params: list[torch.Tensor] = [*self.critic_tgt.parameters(), *self.actor_tgt.parameters()]
        self._online_params: list[torch.Tensor] = [*self._critic_params, *self._actor_params]
        self.actor_optimizer = adam(self._actor_params, config.actor_lr)
        self.critic_optimizer = adam(self._critic_params, config.critic_lr)
        self.generator = torch.Generator(self.device).manual_seed(seed)
        self.ou = torch.zeros(1, self.act_dim, device=self.device)
        self.opt_steps = 0
        self.updates = 0
        """Critic updates so far: the policy moves on every ``policy_delay``-th."""

    @property
    def batch_size(self) -> int:
        """In transitions per update."""
        return self.config.batch_size

    def _noise(self, shape: tuple[int, ...]) -> torch.Tensor:
        return torch.randn(shape, generator=self.generator, device=self.device)

    def _exploration(self, n: int) -> torch.Tensor:
        """Exploration noise for ``n`` actions, in action units."""
        c = self.config
        if c.exploration == "gaussian":
            return self.scale * c.exploration_std * self._noise((n, self.act_dim))
        if self.ou.shape[0] != n:
            self.ou = torch.zeros(n, self.act_dim, device=self.device)
        self.ou = self.ou - c.ou_theta * self.ou + c.exploration_std * self._noise((n, self.act_dim))
        return self.scale * self.ou

    def _act(self, obs: npt.NDArray[Any], n: int) -> npt.NDArray[np.float32]:
        """Float32 actions ``(n, act_dim)`` within the bounds: the policy's plus noise in train mode
        (uniform before the first update), the policy's in eval mode."""
        with torch.inference_mode():
            if self._train and self.updates == 0:
                uniform = torch.rand((n, self.act_dim), generator=self.generator, device=self.device)
                act = self.low + (self.high - self.low) * uniform
            else:
                act = self.actor(torch.as_tensor(obs, dtype=torch.float32, device=self.device).reshape(n, -1))
                if self._train:
                    act = act + self._exploration(n)
        out: npt.NDArray[np.float32] = np.clip(act.cpu().numpy(), self.action_low, self.action_high)
        return out

    def acting_state(self) -> dict[str, Any]:
        """The policy network's weights and the update count (`SyncModel`)."""
        return {"actor": state_arrays(self.actor), "updates": self.updates}

    def load_acting_state(self, state: Mapping[str, Any], env_steps: int) -> None:
        """Loads `acting_state` into the policy network (an actor acts uniformly until the learner's
        first update)."""
        load_state_arrays(self.actor, state["actor"], "TD3")
        self.updates = int(state["updates"])

    def opt(self, buffer: ReplayBuffer[TransitionBatch]) -> Record | None:
        """``n_updates_per_opt`` critic updates, each on its own batch, the policy and targets moving every
        ``policy_delay``-th; ``None`` while the buffer is smaller than a batch.

        Returns:
            Means over the updates of ``train/critic_loss`` and ``train/q_mean``, and of
            ``train/actor_loss`` over the policy updates among them (absent when there was none).
        """
        if len(buffer) < self.config.batch_size:
            return None
        records = [self._update(buffer) for _ in range(self.config.n_updates_per_opt)]
        self.opt_steps += 1
        keys = dict.fromkeys(k for r in records for k in r)
        return Record({k: float(np.mean([r[k] for r in records if k in r])) for k in keys})

    def _update(self, buffer: ReplayBuffer[TransitionBatch]) -> dict[str, float]:
        c = self.config
        b = buffer.batch(c.batch_size).to(self.device)
        noise = c.target_noise * self._noise(tuple(b.act.shape)) if c.target_noise > 0.0 else None
        target = smoothed_td_target(
            b, self.actor_tgt, self.critic_tgt, noise, c.target_noise_clip, self.scale, self.low, self.high
        )
        q = self.critic(b.obs, b.act)
        loss_q = critic_loss(q, target, b.weight)
        descend(self.critic_optimizer, loss_q, self._critic_params, c.max_grad_norm)
        self.updates += 1
        record = {"train/critic_loss": float(loss_q.detach()), "train/q_mean": float(q.detach().mean())}
        if self.updates % c.policy_delay == 0:
            record["train/actor_loss"] = self._policy_step(b.obs)
            update_target(self._tgt_params, self._online_params, c.tau)
        if b.weight is not None:
            buffer.update_priority(b.ix_sample, (target - q.detach().mean(dim=0)).cpu().numpy())
        return record

    def _policy_step(self, obs: torch.Tensor) -> float:
        with frozen(self._critic_params):  # only the policy's gradient is wanted
            loss = actor_loss(self.critic.first(obs, self.actor(obs)))
        descend(self.actor_optimizer, loss, self._actor_params, self.config.max_grad_norm)
        return float(loss.detach())

    def greedy_policy(self) -> MlpParts:
        """The eval-mode policy for export: the deterministic actor, ``bias + scale * tanh(out)``."""
        return MlpParts(
            obs_mean=None,
            obs_std=None,
            obs_clip=None,
            layers=linear_layers(self.actor.net),
            activation="relu",
            head="tanh_box",
            low=self.action_low,
            high=self.action_high,
        )

    def _modules(self) -> dict[str, torch.nn.Module]:
        return {
            "actor.pt": self.actor,
            "actor_tgt.pt": self.actor_tgt,
            "critic.pt": self.critic,
            "critic_tgt.pt": self.critic_tgt,
        }

    def _optimizers(self) -> dict[str, torch.optim.Optimizer]:
        return {"actor_optimizer": self.actor_optimizer, "critic_optimizer": self.critic_optimizer}

    def _state(self) -> dict[str, Any]:
        # The sampling generator and the Ornstein-Uhlenbeck noise's state: exploration resumes exactly.
        return {
            "opt_steps": self.opt_steps,
            "updates": self.updates,
            "generator": self.generator.get_state(),
            "ou": self.ou.detach().clone(),
        }

    def _load_state(self, state: dict[str, Any]) -> None:
        self.opt_steps, self.updates = int(state["opt_steps"]), int(state["updates"])
        restore_generator(self.generator, state["generator"])
        self.ou = state["ou"].to(self.device)
