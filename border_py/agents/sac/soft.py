"""The update SAC, TQC and CrossQ share (`SoftActorCritic`): the critics fitted to a soft Bellman target,
the tanh-squashed Gaussian policy, the entropy coefficient, acting (gSDE included) and export. Each
member (`border_py.agents.sac.agent.Sac`, TQC, CrossQ) declares its parts and its critics' target."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import attrs
import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from border_py.agents.actor_critic import ActorCriticAgent
from border_py.agents.ensemble import CriticEnsemble
from border_py.agents.greedy import F32, MlpParts, linear_layers, mean_head, with_encoder
from border_py.agents.parts import Scalar, Trained
from border_py.agents.sac.gsde import ActingNoise
from border_py.agents.sac.losses import (
    actor_loss,
    alpha_loss,
    critic_loss,
    gsde_log_std,
    gsde_noise,
    gsde_weight_std,
    squashed_gaussian_log_prob,
)
from border_py.agents.sac.model import GaussianActor
from border_py.agents.toolkit import frozen
from border_py.base.replay_buffer import ReplayBuffer
from border_py.base.spaces import Spaces
from border_py.record import Record
from border_py.replay_buffer.transition import TransitionBatch

if TYPE_CHECKING:  # a member's config module imports its agent's
    from border_py.agents.sac.config import SoftActorCriticConfig


class SoftParts(Protocol):
    """The parts the SAC family's update reads: `SacParts`, and CrossQ's, whose critics have no target."""

    @property
    def actor(self) -> Trained[GaussianActor]: ...

    @property
    def critic(self) -> Trained[CriticEnsemble]: ...

    @property
    def log_alpha(self) -> Scalar: ...


C = TypeVar("C", bound="SoftActorCriticConfig")
"""The agent's config."""
P = TypeVar("P", bound=SoftParts)
"""The agent's parts record."""


class SoftActorCritic(ActorCriticAgent[C, P, TransitionBatch]):
    """The update SAC, TQC and CrossQ share: the critics fitted to a soft Bellman target, then (when due)
    the tanh-squashed Gaussian policy to what it climbs less the entropy bonus, and alpha towards the
    target entropy; acting and export. A member declares its parts and writes ``_critic_values`` (the
    critics' outputs and their target); where it differs, ``_critic_loss``, ``_policy_value``,
    ``_policy_due`` (a delayed policy) and ``_end_update`` (SAC: the targets follow the critics).

    With ``gsde`` the policy explores with gSDE (SB3's SAC ``use_sde``): the pre-squash action is ``mean +
    latent @ W``, ``latent`` the policy's last hidden features and ``W`` a matrix of noise weights; while
    acting, ``W`` is `ActingNoise`'s (new after each ``opt`` call and every ``sde_sample_freq`` acts, kept
    in ``state.pt``'s ``sde`` entry); each update draws one ``W`` for its batch, shared by the target's next
    actions and the policy's step, as SB3 draws one per gradient step. The log-probability is the
    Gaussian's with the state's variance ``latent^2 @ std^2`` (`gsde_log_std`); gradients reach the
    features through the noise and the variance (SB3's SAC: ``learn_features=True``). Eval mode acts with
    ``bias + scale * tanh(mean)`` either way.

    Args:
        config: hyperparameters.
        spaces: the env's observation size and its box of actions (bounds checked by `Spaces`).
        seed: seeds the agent's sampling (the member seeds its networks with `seeded`).

    Raises:
        TypeError: the actions are not a box.
        ValueError: ``config.device`` does not exist here.
    """

    def __init__(self, config: C, spaces: Spaces, seed: int) -> None:
        super().__init__(config, spaces, seed)
        low, high = self.action_low, self.action_high
        self.scale = torch.as_tensor((high - low) / 2.0, device=self.device)
        self.bias = torch.as_tensor((high + low) / 2.0, device=self.device)
        c = config
        self.target_entropy = -float(self.act_dim) if c.target_entropy is None else c.target_entropy
        self.acting_noise = ActingNoise(c.sde_sample_freq, c.use_expln, self.generator) if c.gsde else None
        """gSDE's noise weights while acting; ``None`` without gSDE."""
        self._update_draw: torch.Tensor | None = None
        """gSDE: the standard normal draw of the current update's noise weights (``W = std * draw``); a
        sample outside an update draws its own."""

    def _gaussian_actor(self, norm: Callable[[int], nn.Module] | None = None) -> GaussianActor:
        """The policy network as the config sizes it (with gSDE's noise weights where ``gsde``), built in
        the member's ``seeded`` block."""
        c = self.config
        init = c.log_std_init if c.gsde else None
        return GaussianActor(
            self.obs_dim,
            self.act_dim,
            c.actor_hidden,
            c.log_std_min,
            c.log_std_max,
            norm,
            gsde_log_std_init=init,
            encoder=self._encoder(),
            clip_mean=c.clip_mean,
        )

    def _log_alpha(self) -> Scalar:
        """The entropy coefficient's log at ``log(init_alpha)``, trained by Adam when ``auto_alpha``."""
        c = self.config
        init = float(np.log(c.init_alpha))
        return Scalar.adam(
            "log_alpha", init, "alpha_optimizer", c.alpha_lr, self.device, trained=c.auto_alpha
        )

    def _scheduled_lrs(self) -> Sequence[tuple[torch.optim.Optimizer, float]]:
        """The policy's, the critics' and alpha's optimisers at their configured rates."""
        c, parts = self.config, self.parts
        return [
            (parts.actor.optimizer, c.actor_lr),
            (parts.critic.optimizer, c.critic_lr),
            (parts.log_alpha.optimizer, c.alpha_lr),
        ]

    @abstractmethod
    def _critic_values(self, b: TransitionBatch, alpha: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The critics' outputs for the batch's actions, with their gradient, and the target they regress
        onto, without."""

    def _critic_loss(
        self, q: torch.Tensor, target: torch.Tensor, weight: torch.Tensor | None
    ) -> torch.Tensor:
        """The critics' loss for their outputs ``q`` on the batch: squared error to the target."""
        return critic_loss(q, target, weight)

    def _policy_value(self, q: torch.Tensor) -> torch.Tensor:
        """What the policy climbs, ``(batch,)``, from the critics' outputs for its actions: their minimum."""
        return q.min(dim=0).values

    def _policy_due(self) -> bool:
        """Asked once per update, after the critics' step: whether the policy and alpha step in this
        update (SAC: in every one)."""
        return True

    def _end_update(self) -> None:
        """The end of an update, after every optimiser step (SAC: its targets follow the critics)."""

    def _squash(self, u: torch.Tensor) -> torch.Tensor:
        return self.bias + self.scale * torch.tanh(u)

    def _sample_policy(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Reparameterised actions and their log-probabilities, ``(batch, act_dim)`` and ``(batch,)``
        (with gSDE, from the current update's noise weights)."""
        actor = self.parts.actor.net
        if actor.log_std is not None:
            return self._sample_gsde(obs, actor.log_std)
        mean, log_std = actor(obs)
        noise = torch.randn(mean.shape, generator=self.generator, device=self.device)
        u = mean + log_std.exp() * noise
        return self._squash(u), squashed_gaussian_log_prob(u, mean, log_std, self.scale)

    def _sample_gsde(self, obs: torch.Tensor, log_std: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """`_sample_policy` with gSDE: ``u = mean + latent @ W``, ``W = std * draw`` (the update's draw,
        so the gradient reaches ``log_std`` through ``W``), and the log-probability of ``u`` under the
        state's Gaussian."""
        mean, latent = self.parts.actor.net(obs)
        draw = self._update_draw if self._update_draw is not None else self._standard_draw(log_std)
        std = gsde_weight_std(log_std, self.config.use_expln)
        u = mean + gsde_noise(latent, std * draw)
        return self._squash(u), squashed_gaussian_log_prob(u, mean, gsde_log_std(latent, std), self.scale)

    def _standard_draw(self, log_std: torch.Tensor) -> torch.Tensor:
        """A standard normal matrix the shape of ``log_std``, from the agent's generator."""
        return torch.randn(log_std.shape, generator=self.generator, device=self.device)

    def _act(self, obs: npt.NDArray[Any], n: int) -> npt.NDArray[np.float32]:
        """Float32 actions ``(n, act_dim)`` within the bounds: sampled in train mode, the policy's mode in
        eval mode."""
        with torch.inference_mode():
            x = torch.as_tensor(obs, dtype=torch.float32, device=self.device).reshape(n, -1)
            if self._train and self._warming_up():
                act = self._uniform_actions(n)
            elif self._train and self.acting_noise is not None:
                mean, latent = self.parts.actor.net(x)
                log_std = self.parts.actor.net.log_std
                assert log_std is not None  # gsde's policy has its noise weights' log-std
                act = self._squash(mean + self.acting_noise.noise(latent, log_std))
            elif self._train:
                act, _ = self._sample_policy(x)
            else:
                act = self._squash(self.parts.actor.net(x)[0])
        # The clip only guards float rounding of bias + scale * tanh at the bounds.
        out: npt.NDArray[np.float32] = np.clip(act.cpu().numpy(), self.action_low, self.action_high)
        return out

    def _warming_up(self) -> bool:
        """Whether train-mode acts are uniform: ``warmup_actions`` is ``uniform`` and no opt step is done."""
        return self.config.warmup_actions == "uniform" and self.opt_steps == 0

    def alpha(self) -> float:
        """The current entropy coefficient."""
        return self.parts.log_alpha.exp()

    def _update(self, buffer: ReplayBuffer[TransitionBatch]) -> dict[str, float]:
        c, critic = self.config, self.parts.critic
        log_std = self.parts.actor.net.log_std
        if log_std is not None:  # gSDE: this update's noise weights, for the next actions and the policy
            self._update_draw = self._standard_draw(log_std)
        b = buffer.batch(c.batch_size).to(self.device)
        alpha = self.parts.log_alpha.value.detach().exp()

        q, target = self._critic_values(b, alpha)
        loss_q = self._critic_loss(q, target, b.weight)
        critic.step(loss_q, c.max_grad_norm)
        record = {"train/critic_loss": float(loss_q.detach()), "train/q_mean": float(q.detach().mean())}
        if self._policy_due():
            record.update(self._policy_step(b.obs, alpha))
        record["train/alpha"] = self.alpha()

        self._end_update()
        if b.weight is not None:  # a priority per item: its mean target less its mean prediction
            target_mean = target.reshape(len(b), -1).mean(dim=1)  # SAC's (batch,), TQC's (batch, atoms)
            predicted_mean = q.detach().reshape(len(q), len(b), -1).mean(dim=(0, 2))
            buffer.update_priority(b.ix_sample, (target_mean - predicted_mean).cpu().numpy())
        self._update_draw = None
        return record

    def _policy_step(self, obs: torch.Tensor, alpha: torch.Tensor) -> dict[str, float]:
        """The policy's step on the batch's observations, then alpha's (when tuned); their values."""
        c, critic, log_alpha = self.config, self.parts.critic, self.parts.log_alpha
        act, log_prob = self._sample_policy(obs)
        with frozen(critic.params):  # only the policy's gradient is wanted
            loss_pi = actor_loss(log_prob, self._policy_value(critic.net(obs, act)), alpha)
        self.parts.actor.step(loss_pi, c.max_grad_norm)
        record = {
            "train/actor_loss": float(loss_pi.detach()),
            "train/entropy": float(-log_prob.detach().mean()),
        }
        if c.auto_alpha:
            loss_alpha = alpha_loss(log_alpha.value, log_prob.detach(), self.target_entropy)
            log_alpha.step(loss_alpha)
            record["train/alpha_loss"] = float(loss_alpha.detach())
        log_std = self.parts.actor.net.log_std
        if log_std is not None:  # gSDE: the mean standard deviation of the noise weights (SB3's train/std)
            record["train/std"] = float(gsde_weight_std(log_std.detach(), c.use_expln).mean())
        return record

    def opt(self, buffer: ReplayBuffer[TransitionBatch]) -> Record | None:
        """`ActorCriticAgent.opt`; with gSDE, the next act then draws new noise weights (SB3 draws them
        at the start of each collection block, after each training phase), whether or not it updated."""
        record = super().opt(buffer)
        if self.acting_noise is not None:
            self.acting_noise.new_block()
        return record

    def acting_state(self) -> dict[str, Any]:
        """`ActorCriticAgent.acting_state` and the learner's opt steps (an actor's copy warms up until the
        first)."""
        return {**super().acting_state(), "opt_steps": self.opt_steps}

    def load_acting_state(self, state: Mapping[str, Any], env_steps: int) -> None:
        """`ActorCriticAgent.load_acting_state`; with gSDE a new block begins (an actor's copy of the
        policy never calls ``opt``: each new set of parameters draws new noise weights)."""
        super().load_acting_state(state, env_steps)
        self.opt_steps = int(state["opt_steps"])
        if self.acting_noise is not None:
            self.acting_noise.new_block()

    def _state(self) -> dict[str, Any]:
        # With gSDE: the acting noise weights and their step, so a resumed run explores as the whole one.
        sde = {} if self.acting_noise is None else {"sde": self.acting_noise.state()}
        return {**super()._state(), **sde}

    def _check_state(self, state: dict[str, Any]) -> None:
        super()._check_state(state)
        log_std = self.parts.actor.net.log_std
        if self.acting_noise is not None and log_std is not None:
            self.acting_noise.check_state(state["sde"], log_std.shape)

    def _load_state(self, state: dict[str, Any]) -> None:
        super()._load_state(state)
        if self.acting_noise is not None:
            self.acting_noise.load_state(state["sde"], self.device)

    def greedy_policy(self) -> MlpParts:
        """The eval-mode policy for export: the mean of the Gaussian, ``bias + scale * tanh(mean)`` (the
        mean held in ``[-clip_mean, clip_mean]`` with that field); with a dict observation's images, the
        actor's encoder first."""
        return self._tanh_box_policy(mean_head(linear_layers(self.parts.actor.net.net), self.act_dim))

    def _tanh_box_policy(self, layers: list[tuple[F32, F32]]) -> MlpParts:
        # Here rather than in greedy_policy: CrossQ states its own layers (folded) through this too.
        actor = self.parts.actor.net
        parts = attrs.evolve(super()._tanh_box_policy(layers), clip_mean=self.config.clip_mean)
        return with_encoder(parts, actor.encoder, (self.obs_dim,))
