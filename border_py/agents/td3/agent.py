"""The TD3 agent: deterministic policy, critics, their targets, exploration noise and ``opt``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from border_py.agents.actor_critic import ActorCriticAgent
from border_py.agents.ensemble import CriticEnsemble
from border_py.agents.greedy import MlpParts, linear_layers, with_encoder
from border_py.agents.parts import Tracked, seeded
from border_py.agents.td3.losses import actor_loss, critic_loss, smoothed_target_action, td_target
from border_py.agents.td3.model import BoxCritic, DeterministicActor
from border_py.agents.toolkit import frozen, saved_count
from border_py.base.replay_buffer import ReplayBuffer
from border_py.base.spaces import Spaces
from border_py.replay_buffer.transition import TransitionBatch

if TYPE_CHECKING:  # the config's build() imports this module
    from border_py.agents.td3.config import Td3Config


@attrs.frozen
class Td3Parts:
    """TD3's parts: the policy and the critics, each with its target."""

    actor: Tracked[DeterministicActor]
    critic: Tracked[BoxCritic]


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


class Td3(ActorCriticAgent["Td3Config", Td3Parts, TransitionBatch]):
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
        super().__init__(config, spaces, seed)
        c, device = config, self.device
        self.low = torch.as_tensor(self.action_low, device=device)
        self.high = torch.as_tensor(self.action_high, device=device)
        self.scale = (self.high - self.low) / 2.0
        with seeded(seed):
            bias = (self.high + self.low) / 2.0
            actor = DeterministicActor(
                self.obs_dim, self.act_dim, c.actor_hidden, self.scale, bias, self._encoder()
            )
            # Critics of the action rescaled to [-1, 1] (as SB3's): see BoxCritic for why (issue 37).
            critic = BoxCritic(
                self.obs_dim, self.act_dim, c.critic_hidden, c.n_critics, self.scale, bias, self._encoder()
            )
        self.parts = Td3Parts(
            actor=Tracked.adam_with_target(
                actor, "actor.pt", "actor_optimizer", c.actor_lr, device, "actor_tgt.pt"
            ),
            critic=Tracked.adam_with_target(
                critic, "critic.pt", "critic_optimizer", c.critic_lr, device, "critic_tgt.pt"
            ),
        )
        self.ou = torch.zeros(1, self.act_dim, device=device)
        self.updates = 0
        """Critic updates so far: the policy moves on every ``policy_delay``-th."""

    def _scheduled_lrs(self) -> Sequence[tuple[torch.optim.Optimizer, float]]:
        """The policy's and the critics' optimisers at their configured rates."""
        c, parts = self.config, self.parts
        return [(parts.actor.optimizer, c.actor_lr), (parts.critic.optimizer, c.critic_lr)]

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

    def start_noise(self, starts: Sequence[bool]) -> None:
        """Ornstein-Uhlenbeck exploration starts again at 0 in the lanes whose episode starts (SB3 resets
        its action noise when an episode ends; `border_py.base.EpisodicNoise`): the sampler calls this.
        Gaussian exploration has no state, and nothing changes."""
        if all(starts) or self.ou.shape[0] != len(starts):
            self.ou = torch.zeros(len(starts), self.act_dim, device=self.device)
            return
        flags = torch.as_tensor(list(starts), dtype=torch.bool, device=self.device)
        self.ou = torch.where(flags[:, None], torch.zeros_like(self.ou), self.ou)

    def _act(self, obs: npt.NDArray[Any], n: int) -> npt.NDArray[np.float32]:
        """Float32 actions ``(n, act_dim)`` within the bounds: the policy's plus noise in train mode
        (uniform before the first update), the policy's in eval mode."""
        with torch.inference_mode():
            if self._train and self.updates == 0:
                act = self._uniform_actions(n)
            else:
                act = self.parts.actor.net(
                    torch.as_tensor(obs, dtype=torch.float32, device=self.device).reshape(n, -1)
                )
                if self._train:
                    act = act + self._exploration(n)
        out: npt.NDArray[np.float32] = np.clip(act.cpu().numpy(), self.action_low, self.action_high)
        return out

    def acting_state(self) -> dict[str, Any]:
        """The policy network's weights and the update count (`SyncModel`)."""
        return {**super().acting_state(), "updates": self.updates}

    def load_acting_state(self, state: Mapping[str, Any], env_steps: int) -> None:
        """Loads `acting_state` into the policy network (an actor acts uniformly until the learner's
        first update)."""
        super().load_acting_state(state, env_steps)
        self.updates = int(state["updates"])

    def _update(self, buffer: ReplayBuffer[TransitionBatch]) -> dict[str, float]:
        c, actor, critic = self.config, self.parts.actor, self.parts.critic
        b = buffer.batch(c.batch_size).to(self.device)
        noise = c.target_noise * self._noise(tuple(b.act.shape)) if c.target_noise > 0.0 else None
        target = smoothed_td_target(
            b, actor.target, critic.target, noise, c.target_noise_clip, self.scale, self.low, self.high
        )
        q = critic.net(b.obs, b.act)
        loss_q = critic_loss(q, target, b.weight)
        critic.step(loss_q, c.max_grad_norm)
        self.updates += 1
        record = {"train/critic_loss": float(loss_q.detach()), "train/q_mean": float(q.detach().mean())}
        if self.updates % c.policy_delay == 0:
            record["train/actor_loss"] = self._policy_step(b.obs)
            critic.update_target(c.tau)
            actor.update_target(c.tau)
        if b.weight is not None:
            buffer.update_priority(b.ix_sample, (target - q.detach().mean(dim=0)).cpu().numpy())
        return record

    def _policy_step(self, obs: torch.Tensor) -> float:
        actor, critic = self.parts.actor, self.parts.critic
        with frozen(critic.params):  # only the policy's gradient is wanted
            loss = actor_loss(critic.net.first(obs, actor.net(obs)))
        actor.step(loss, self.config.max_grad_norm)
        return float(loss.detach())

    def greedy_policy(self) -> MlpParts:
        """The eval-mode policy for export: the deterministic actor, ``bias + scale * tanh(out)``; with a
        dict observation's images, its encoder first."""
        actor = self.parts.actor.net
        return with_encoder(self._tanh_box_policy(linear_layers(actor.net)), actor.encoder, (self.obs_dim,))

    def _state(self) -> dict[str, Any]:
        # The Ornstein-Uhlenbeck noise's state and the update count: exploration resumes exactly.
        return {**super()._state(), "updates": self.updates, "ou": self.ou.detach().clone()}

    def _check_state(self, state: dict[str, Any]) -> None:
        super()._check_state(state)
        saved_count(state["updates"], "updates")
        ou = state["ou"]
        if not (isinstance(ou, torch.Tensor) and ou.is_floating_point() and ou.shape[1:] == (self.act_dim,)):
            raise ValueError(f"ou must be a float tensor of shape (n, {self.act_dim}), got {ou!r:.60}")

    def _load_state(self, state: dict[str, Any]) -> None:
        super()._load_state(state)
        self.updates = int(state["updates"])
        self.ou = state["ou"].to(self.device)
