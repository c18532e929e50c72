"""``OnPolicyAgent``: what PPO and A2C share. Acting (Categorical or Gaussian, optionally gSDE), the
rollout's preparation (the collecting policy's log-probabilities and values, reward scaling, GAE), the
learning-rate schedule, observation statistics, export and the saved state. A subclass names its network's
file and optimiser (``_trained``) and writes its update (``_update``)."""

from __future__ import annotations

import math
from abc import abstractmethod
from typing import Any, Generic, TypeVar

import attrs
import numpy as np
import numpy.typing as npt
import torch

from border_py.agents.greedy import MlpParts, f32, linear_layers, mask_span, with_encoder
from border_py.agents.normalization import RunningMeanStd
from border_py.agents.on_policy.config import OnPolicyConfig
from border_py.agents.on_policy.model import ActorCritic, SharedTrunk, masked_logits
from border_py.agents.on_policy.returns import bootstrap_values, explained_variance, gae
from border_py.agents.parts import Trained, seeded
from border_py.agents.toolkit import saved_count, torch_device
from border_py.agents.torch_agent import TorchAgent
from border_py.base.replay_buffer import ReplayBuffer
from border_py.base.spaces import Spaces, legal_flags
from border_py.record import Record
from border_py.replay_buffer.rollout import Rollout

__all__ = ["OnPolicyAgent", "OnPolicyParts"]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)

C = TypeVar("C", bound=OnPolicyConfig)
"""The agent's config."""


@attrs.frozen
class OnPolicyParts:
    """An on-policy agent's parts: the policy and value network with its optimiser (``ppo.pt`` and
    ``optimizer`` for PPO)."""

    model: Trained[ActorCritic]


class OnPolicyAgent(TorchAgent[OnPolicyParts], Generic[C]):
    """The shared half of an on-policy agent over the rollouts of a `RolloutBuffer`.

    Acting: a Categorical over ``n_actions`` logits, or a Gaussian around the mean action with a
    state-independent standard deviation (or gSDE's state-dependent noise). Continuous actions are not
    squashed: they are clipped to the action space by the env adapter (``GymEnvConfig.clip_actions``), so
    the buffer keeps the action the policy drew and its log-probability is exact. Eval mode acts with the
    argmax or the mean. All randomness comes from the agent's own ``torch.Generator``.

    ``opt`` takes the whole rollout and computes, from the stored observations and actions and the policy
    that collected them (nothing changes during a rollout), the old log-probabilities and values, then GAE
    with a bootstrap at truncations and the rollout's end; the subclass's ``_update`` learns from that.
    Observation statistics are updated after each update, so they are frozen while a rollout is collected.

    Args:
        config: hyperparameters.
        spaces: the env's observation size and its actions: discrete, or a box (whose bounds the env
            clips the actions to, as SB3 does).
        seed: seeds network initialisation and all sampling.

    Raises:
        ValueError: gSDE with discrete actions, or a device this machine does not have.
    """

    def __init__(self, config: C, spaces: Spaces, seed: int) -> None:
        self.discrete = spaces.discrete
        self.action_mask = spaces.action_mask
        """Where the legal-action flags lie in each observation (the env's ``action_mask``), or ``None``:
        acting, the log-probabilities and the entropy then cover the legal actions only (as sb3-contrib's
        ``MaskablePPO``)."""
        # The box the env clips actions to: the exported greedy policy clips to it too.
        self.action_bounds = None if spaces.discrete else spaces.action_bounds
        if self.discrete and config.gsde:
            raise ValueError("gsde is for continuous actions only")
        self.config = config
        self.obs_dim = obs_dim = spaces.obs_dim
        # What the network takes one observation as: the env's frame stack for an encoder, else flat.
        self.obs_shape = spaces.obs_shape if config.encoder is not None else (obs_dim,)
        self.obs_parts = spaces.obs_parts
        images = config.encoder is not None
        if spaces.discrete:
            spaces.need_discrete(type(self).__name__, masks=True, images=images)
        else:
            spaces.need_box(type(self).__name__, images=images)
        self.act_dim = spaces.n_actions if spaces.n_actions is not None else spaces.action_dim
        self.device = torch_device(config.device)
        with seeded(seed):
            model = self._network()
        self.parts = OnPolicyParts(self._trained(model))
        self.generator = torch.Generator(self.device).manual_seed(seed)
        self.obs_rms = RunningMeanStd((obs_dim,))
        self.ret_rms = RunningMeanStd(())
        self._returns: npt.NDArray[np.float64] = np.zeros(0)
        self._sde_weights: torch.Tensor | None = None
        self._sde_step = 0
        self.env_steps = 0
        """In env steps: the transitions learnt from so far (what the linear schedules count)."""

    def _network(self) -> ActorCritic:
        """The policy and value network, freshly initialised (from the seeded global RNG)."""
        c = self.config
        encoder = None if c.encoder is None else c.encoder.build(self.obs_shape, self.obs_parts)
        return ActorCritic(
            self.obs_dim,
            self.act_dim,
            self.discrete,
            c.hidden,
            c.activation,
            c.ortho_init,
            c.log_std_init,
            c.gsde,
            encoder,
        )

    @abstractmethod
    def _trained(self, model: ActorCritic) -> Trained[ActorCritic]:
        """``model`` on the agent's device with its file and optimiser (`Trained`)."""

    @abstractmethod
    def _update(self, data: dict[str, torch.Tensor]) -> dict[str, float]:
        """Learns from a prepared rollout (`_prepare`'s tensors); returns the record's ``train/`` values
        without the prefix."""

    def _network_obs(self, obs: torch.Tensor, n: int) -> torch.Tensor:
        """``n`` observations as the network takes them: uint8 frame stacks as they are (the encoder scales
        them), flat observations as float32, normalised where the config says so."""
        x = obs.reshape(n, *self.obs_shape)
        if self.config.encoder is not None:
            return x
        x = x.to(torch.float32)
        return self.obs_rms.normalize(x, self.config.clip_obs) if self.config.normalize_obs else x

    def _std(self, latent: torch.Tensor) -> torch.Tensor:
        """The Gaussian's standard deviations ``(batch, act_dim)``."""
        log_std = self.parts.model.net.log_std
        assert log_std is not None
        if not self.config.gsde:
            return log_std.exp().expand(latent.shape[0], -1)
        # gSDE: the action noise is latent @ W with W ~ N(0, exp(log_std)^2), so its variance is
        # latent^2 @ exp(log_std)^2; the latent is treated as given (its features are not learnt through it).
        variance = latent.detach() ** 2 @ log_std.exp() ** 2
        return torch.sqrt(variance + 1e-6)

    def _legal(self, obs: torch.Tensor, n: int) -> torch.Tensor | None:
        """The legal actions ``(n, n_actions)`` of ``n`` raw observations (before normalisation), or
        ``None`` without an action mask.

        Raises:
            ValueError: an observation allows no action.
        """
        if self.action_mask is None:
            return None
        legal = legal_flags(obs.reshape(n, -1), self.action_mask)
        if not bool(legal.any(dim=1).all()):
            raise ValueError(f"{type(self).__name__}: an observation's action_mask allows no action")
        return legal

    def _log_prob_entropy(
        self, latent: torch.Tensor, out: torch.Tensor, act: torch.Tensor, legal: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The log-probability of ``act`` and the entropy of the policy, ``(batch,)`` each; over the
        ``legal`` actions only where given."""
        if self.discrete:
            log_p = torch.log_softmax(masked_logits(out, legal), dim=-1)
            entropy = -(log_p.exp() * log_p).sum(-1)
            return log_p.gather(1, act.long().reshape(-1, 1)).squeeze(1), entropy
        std = self._std(latent)
        log_std = std.log()
        log_prob = (-0.5 * ((act - out) / std) ** 2 - log_std - _LOG_SQRT_2PI).sum(-1)
        return log_prob, (0.5 + _LOG_SQRT_2PI + log_std).sum(-1)

    def _act(self, obs: npt.NDArray[Any], n: int) -> npt.NDArray[Any]:
        """Actions drawn from the policy in train mode, its argmax or mean in eval mode (int64 ``(n,)``,
        or float32 ``(n, action_dim)``, not clipped)."""
        with torch.inference_mode():
            raw = torch.as_tensor(obs, device=self.device)
            latent, out = self._policy(self._network_obs(raw, n))
            if self.discrete:
                legal = self._legal(raw, n)
                out = masked_logits(out, legal)
                if self._train:  # inverse CDF: one uniform draw per row, cheaper than torch.multinomial
                    u = torch.rand(n, 1, generator=self.generator, device=self.device)
                    cdf = out.softmax(-1).cumsum(-1)
                    # Masked: the first action whose cumulative probability reaches u times the row's
                    # total, so rounding can never land past the last legal action on a forbidden one.
                    threshold = u if legal is None else u * cdf[:, -1:]
                    act = (cdf < threshold).sum(-1).clamp(max=self.act_dim - 1)
                else:
                    act = out.argmax(dim=-1)
            else:
                act = out + self._noise(latent, n) if self._train else out
            actions: npt.NDArray[Any] = act.cpu().numpy()
        return actions

    def _policy(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(latent_pi, logits or mean action)`` of the network observations ``x`` when acting."""
        return self.parts.model.net.policy(x)

    def _noise(self, latent: torch.Tensor, n: int) -> torch.Tensor:
        log_std = self.parts.model.net.log_std
        assert log_std is not None
        if not self.config.gsde:
            return log_std.exp() * torch.randn(
                latent.shape[0], self.act_dim, generator=self.generator, device=self.device
            )
        freq = self.config.sde_sample_freq
        if (
            self._sde_weights is None
            or self._sde_weights.shape[0] != n
            or self._sde_step == 0
            or (freq is not None and self._sde_step % freq == 0)
        ):
            std = log_std.exp()
            self._sde_weights = std * torch.randn(n, *std.shape, generator=self.generator, device=self.device)
        self._sde_step += 1
        return torch.bmm(latent.unsqueeze(1), self._sde_weights).squeeze(1)

    def _remaining(self) -> float:
        """What a linear schedule keeps at the current env step: 1 at the start, 0 at its end."""
        steps = self.config.schedule_env_steps
        return 1.0 - min(1.0, self.env_steps / steps) if steps else 1.0

    def _scaled_rewards(self, rollout: Rollout) -> torch.Tensor:
        """The rewards divided by the running std of the discounted return (as SB3's ``VecNormalize``:
        the return is accumulated step by step and reset at episode ends), or as they are."""
        if not self.config.normalize_reward:
            return rollout.reward
        reward = rollout.reward.cpu().numpy().astype(np.float64)
        discount = rollout.discount.cpu().numpy()
        done = (rollout.is_terminated + rollout.is_truncated).cpu().numpy() > 0
        if self._returns.shape != reward.shape[1:]:
            self._returns = np.zeros(reward.shape[1:])
        scaled = np.empty_like(reward)
        for t in range(reward.shape[0]):
            self._returns = self._returns * discount[t] + reward[t]
            self.ret_rms.update(self._returns)
            scaled[t] = np.clip(
                reward[t] / np.sqrt(self.ret_rms.var + 1e-8),
                -self.config.clip_reward,
                self.config.clip_reward,
            )
            self._returns[done[t]] = 0.0
        return torch.as_tensor(scaled, dtype=torch.float32, device=self.device)

    def _prepare(self, rollout: Rollout) -> dict[str, torch.Tensor]:
        """The flat training data of a rollout: normalised observations, actions, the collecting policy's
        log-probabilities and values, advantages and returns."""
        n_steps, num_envs = rollout.shape
        flat = n_steps * num_envs
        obs = self._network_obs(rollout.obs, flat)
        act = rollout.act.reshape(flat) if self.discrete else rollout.act.reshape(flat, -1)
        legal = self._legal(rollout.obs, flat) if self.discrete else None
        reward = self._scaled_rewards(rollout)
        with torch.no_grad():
            latent, out, value, next_value, extra = self._rollout_forward(obs, rollout)
            old_log_prob, _ = self._log_prob_entropy(latent, out, act, legal)
            advantage, returns = gae(
                reward,
                value.reshape(n_steps, num_envs),
                next_value,
                rollout.is_terminated,
                rollout.is_truncated,
                rollout.discount,
                self.config.gae_lambda,
            )
        return {
            "obs": obs,
            "act": act,
            **({} if legal is None else {"legal": legal}),
            "old_log_prob": old_log_prob,
            "old_value": value,
            "advantage": advantage.reshape(flat),
            "returns": returns.reshape(flat),
            **extra,
        }

    def _rollout_forward(
        self, obs: torch.Tensor, rollout: Rollout
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, dict[str, torch.Tensor]]:
        """The collecting policy on the rollout's network observations ``obs`` (flat, step-major):
        ``(latent_pi, logits or mean action, value)`` of each step, the values of the next observations
        ``(n_steps, num_envs)``, and what else the update needs (by key, one row per step)."""
        latent, out, value = self.parts.model.net(obs)
        return latent, out, value, self._next_values(rollout, value.reshape(rollout.shape)), {}

    def _next_values(self, rollout: Rollout, value: torch.Tensor) -> torch.Tensor:
        """``V(next_obs)`` of every step, ``(n_steps, num_envs)``. Where a sub-env's episode went on, its
        ``next_obs`` is the next step's ``obs`` (the buffer checks it), whose value ``value`` holds; the
        network runs only on the rest: truncations and the rollout's last step (after a termination the
        value is multiplied by 0): on pixels this halves the preparation's forward passes. A flat
        observation's MLP runs on every ``next_obs``, as cheap, and rounds as the golden checkpoints did."""
        if self.config.encoder is None:
            n = rollout.shape[0] * rollout.shape[1]
            return self.parts.model.net.value(self._network_obs(rollout.next_obs, n)).reshape(value.shape)
        next_obs = rollout.next_obs.reshape(-1, *rollout.next_obs.shape[2:])
        return bootstrap_values(
            rollout,
            value,
            lambda rows: self.parts.model.net.value(self._network_obs(next_obs[rows], len(rows))),
        )

    def _normalized(self, advantage: torch.Tensor) -> torch.Tensor:
        """The advantages normalised to mean 0 and std 1 when ``normalize_advantage`` (and there is more
        than one), else as they are."""
        if self.config.normalize_advantage and len(advantage) > 1:
            return (advantage - advantage.mean()) / (advantage.std() + 1e-8)
        return advantage

    def opt(self, buffer: ReplayBuffer[Rollout]) -> Record | None:
        """Learns from the rollout the buffer holds (taking it); ``None`` when the buffer is empty.

        Returns:
            The update's ``train/`` values (see the subclass), ``train/explained_variance`` of the
            rollout's values, ``train/lr`` and, for continuous actions, ``train/std`` (the mean standard
            deviation).
        """
        if len(buffer) == 0:
            return None
        rollout = buffer.batch(len(buffer)).to(self.device)
        self.env_steps += rollout.shape[0] * rollout.shape[1]
        lr = self.config.lr * (self._remaining() if self.config.lr_schedule == "linear" else 1.0)
        self.parts.model.set_lr(lr)
        data = self._prepare(rollout)
        record = {f"train/{k}": v for k, v in self._update(data).items()}
        if self.config.normalize_obs:  # after the update: the rollout was collected with the old statistics
            self.obs_rms.update(rollout.obs.reshape(-1, self.obs_dim).cpu().numpy())
        self._sde_step = 0  # a new rollout draws new gSDE weights
        self.opt_steps += 1
        record["train/explained_variance"] = explained_variance(data["old_value"], data["returns"])
        record["train/lr"] = lr
        if not self.discrete:
            record["train/std"] = self._mean_std(data)
        return Record(record)

    def _mean_std(self, data: dict[str, torch.Tensor]) -> float:
        """The mean standard deviation of the continuous actions in the rollout's states, after the
        update."""
        with torch.no_grad():
            latent, _ = self.parts.model.net.policy(data["obs"])
            return float(self._std(latent).mean())

    def greedy_policy(self) -> MlpParts:
        """The eval-mode policy for export: observation normalisation (clipped), the policy network (its
        encoder first, if any, then the shared layers), then the argmax of its logits, or its mean action
        clipped to the box (what the env does to it); never a forbidden action where the env masks them."""
        body, head = self.parts.model.net.body, self.parts.model.net.action_net
        if isinstance(body, SharedTrunk):
            layers, encoder = linear_layers(body.layers), body.encoder
        else:
            layers = [
                (f32(w[0].detach().cpu().numpy()), f32(b[0].detach().cpu().numpy().reshape(-1)))
                for w, b in zip(body.weights, body.biases, strict=True)
            ]
            encoder = None
        normalise = self.config.normalize_obs  # never with an encoder: the config refuses both
        policy = MlpParts(
            obs_mean=f32(self.obs_rms.mean) if normalise else None,
            obs_std=f32(np.sqrt(self.obs_rms.var + 1e-8)) if normalise else None,
            obs_clip=float(self.config.clip_obs) if normalise else None,
            layers=[*layers, *linear_layers(head)],
            activation=self.config.activation,
            head="argmax" if self.discrete else "clip_box",
            low=None if self.action_bounds is None else self.action_bounds[0],
            high=None if self.action_bounds is None else self.action_bounds[1],
            action_mask=mask_span(self.action_mask),
        )
        return with_encoder(policy, encoder, self.obs_shape)

    def _state(self) -> dict[str, Any]:
        # Besides opt_steps and the generator: the normalisation statistics, the env steps the schedules
        # count and the gSDE weights, so that a resumed run acts and learns exactly as the uninterrupted one.
        return {
            **super()._state(),
            "obs_rms": self.obs_rms.state_dict(),
            "ret_rms": self.ret_rms.state_dict(),
            "returns": torch.from_numpy(self._returns),
            "env_steps": self.env_steps,
            "sde": {"weights": self._sde_weights, "step": self._sde_step},
        }

    def _check_state(self, state: dict[str, Any]) -> None:
        super()._check_state(state)
        saved_count(state["env_steps"], "env_steps")
        sde = state["sde"]
        if not isinstance(sde, dict):
            raise ValueError(f"sde must be a mapping, got {type(sde).__name__}")
        saved_count(sde.get("step"), "sde.step")

    def _load_state(self, state: dict[str, Any]) -> None:
        super()._load_state(state)
        self.obs_rms.load_state_dict(state["obs_rms"])
        self.ret_rms.load_state_dict(state["ret_rms"])
        self._returns = state["returns"].cpu().numpy().astype(np.float64)
        self.env_steps = int(state["env_steps"])
        self._sde_weights, self._sde_step = state["sde"]["weights"], int(state["sde"]["step"])
