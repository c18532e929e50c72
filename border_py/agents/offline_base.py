"""``OfflineAgent``: what the offline agents (BC, AWAC, IQL, CQL, TD3+BC) share. Observations normalised
with a dataset's statistics (saved with the agent), continuous actions as unit actions in the env's bounds,
acting, the opt step around an update, and the checkpoint files.

A subclass makes its networks and optimisers, acts on normalised observations (``_act``) and learns from a
batch whose observations are already normalised (``_update``).
"""

from __future__ import annotations

import copy
from abc import abstractmethod
from typing import Any, Protocol

import attrs
import numpy.typing as npt
import torch
from torch import nn

from border_py.agents.greedy import F32, MlpParts, f32, linear_layers
from border_py.agents.normalization import ObsNormalizer
from border_py.agents.policies import ActionScale, GaussianPolicy
from border_py.agents.toolkit import (
    CriticEnsemble,
    adam,
    gradient_step,
    torch_device,
)
from border_py.agents.torch_agent import TorchAgent, restore_generator
from border_py.base.replay_buffer import ReplayBuffer
from border_py.base.spaces import Spaces
from border_py.record import Record
from border_py.replay_buffer.transition import TransitionBatch

ObsStats = tuple[npt.NDArray[Any], npt.NDArray[Any]]
"""An observation's mean and standard deviation, per component."""


class OfflineConfig(Protocol):
    """What every offline agent's config has (the fields of the same names)."""

    @property
    def device(self) -> str: ...
    @property
    def batch_size(self) -> int: ...
    @property
    def normalize_obs(self) -> bool: ...


class ActorCriticConfig(OfflineConfig, Protocol):
    """What the configs of `GaussianActorCritic`'s agents (IQL, AWAC) have besides."""

    @property
    def actor_hidden(self) -> tuple[int, ...]: ...
    @property
    def critic_hidden(self) -> tuple[int, ...]: ...
    @property
    def n_critics(self) -> int: ...
    @property
    def actor_lr(self) -> float: ...
    @property
    def critic_lr(self) -> float: ...


class OfflineAgent(TorchAgent):
    """The shared half of the offline agents.

    Args:
        name: the agent's name in error messages (``IQL``).
        config: the fields every offline agent's config has (``device``, ``batch_size``, and
            ``normalize_obs``: normalise observations, in ``sample`` and in ``opt``, with ``obs_stats``;
            without them, with the statistics `load_params` restores: ``opt`` refuses to run before).
        spaces: the env's observation size and actions (a box's bounds map the policy's unit actions).
        seed: seeds the agent's generator (all its sampling).
        obs_stats: the dataset's observation mean and std, used when ``normalize_obs``.

    Raises:
        ValueError: a device this machine lacks.
    """

    def __init__(
        self, name: str, config: OfflineConfig, spaces: Spaces, seed: int, obs_stats: ObsStats | None
    ) -> None:
        self.name = name
        self.obs_dim = obs_dim = spaces.obs_dim
        self.device = torch_device(config.device)
        self._batch_size = config.batch_size
        normalize_obs = config.normalize_obs
        stats = obs_stats if normalize_obs else None
        self.normalizer = ObsNormalizer(obs_dim, *(stats or (None, None))).to(self.device)
        # Without statistics, normalize_obs waits for load_params (an evaluation restores them from the
        # saved model); training refuses to start without them.
        self._stats_missing = normalize_obs and obs_stats is None
        self.scale = None if spaces.discrete else ActionScale(*spaces.action_bounds, self.device)
        self.generator = torch.Generator(self.device).manual_seed(seed)
        self.opt_steps = 0

    @property
    def batch_size(self) -> int:
        """In transitions per opt step."""
        return self._batch_size

    optimizers_key = "optimizers"

    @abstractmethod
    def _policy_act(self, obs: torch.Tensor) -> torch.Tensor:
        """Env actions for normalised observations ``(n, obs_dim)``: drawn in train mode, the policy's
        mode in eval mode."""

    @abstractmethod
    def _update(self, batch: TransitionBatch) -> dict[str, float]:
        """One update on ``batch`` (its observations normalised); returns the ``train/...`` values."""

    @abstractmethod
    def _networks(self) -> dict[str, nn.Module]:
        """The networks, by file name (the observation normaliser is saved beside them)."""

    @abstractmethod
    def _greedy_layers(self) -> list[tuple[F32, F32]]:
        """The linear layers the greedy action comes from (a Gaussian policy's: its mean's)."""

    def greedy_policy(self) -> MlpParts:
        """The eval-mode policy for export: the observation normalised with the dataset's statistics (the
        identity without them), the policy's MLP, then the argmax (discrete actions) or ``bias + scale *
        tanh(out)`` within the box."""
        scale = self.scale
        return MlpParts(
            obs_mean=f32(self.normalizer.mean.cpu().numpy()),
            obs_std=f32(self.normalizer.std.cpu().numpy()),
            obs_clip=None,
            layers=self._greedy_layers(),
            activation="relu",
            head="argmax" if scale is None else "tanh_box",
            low=None if scale is None else f32(scale.low),
            high=None if scale is None else f32(scale.high),
        )

    def _act(self, obs: npt.NDArray[Any], n: int) -> npt.NDArray[Any]:
        """The actions for ``n`` observations, normalised first (float32 within the bounds, or int64)."""
        with torch.inference_mode():
            x = torch.as_tensor(obs, dtype=torch.float32, device=self.device).reshape(n, -1)
            out: npt.NDArray[Any] = self._policy_act(self.normalizer(x)).cpu().numpy()
        return out

    def opt(self, buffer: ReplayBuffer[TransitionBatch]) -> Record | None:
        """One update on a sampled batch; ``None`` while the buffer holds fewer than ``batch_size``."""
        if self._stats_missing:
            raise ValueError(
                f"{self.name}: normalize_obs needs the dataset's observation statistics (obs_stats)"
            )
        if len(buffer) < self._batch_size:
            return None
        batch = buffer.batch(self._batch_size).to(self.device)
        batch = attrs.evolve(batch, obs=self.normalizer(batch.obs), next_obs=self.normalizer(batch.next_obs))
        record = self._update(batch)
        self.opt_steps += 1
        return Record(record)

    def _modules(self) -> dict[str, nn.Module]:
        return {**self._networks(), "normalizer.pt": self.normalizer}

    def _state(self) -> dict[str, Any]:
        return {"opt_steps": self.opt_steps, "generator": self.generator.get_state()}

    def _load_state(self, state: dict[str, Any]) -> None:
        self.opt_steps = int(state["opt_steps"])
        restore_generator(self.generator, state["generator"])
        self._stats_missing = False  # the saved statistics came with the networks


class GaussianActorCritic(OfflineAgent):
    """AWAC's and IQL's shared networks: a `GaussianPolicy` actor over
    unit actions, ``n_critics`` Q-networks and their Polyak-averaged targets, with an Adam each for the
    actor and the critics. In train mode it acts by sampling (online fine-tuning explores), in eval mode
    with the mean.

    Args:
        name, spaces, seed, obs_stats: as `OfflineAgent` (the actions a box).
        config: as `OfflineAgent`'s, with the actor's and each critic's hidden layers, the number of
            critics (their minimum is used) and the actor's and critics' Adam learning rates.
        actor_hidden: the actor's hidden layers.
        critic_hidden: each critic's hidden layers.
        n_critics: how many Q-networks (their minimum is used).
        actor_lr: the actor's Adam learning rate.
        critic_lr: the critics' Adam learning rate.
    """

    def __init__(
        self, name: str, config: ActorCriticConfig, spaces: Spaces, seed: int, obs_stats: ObsStats | None
    ) -> None:
        spaces.need_box(name)
        super().__init__(name, config, spaces, seed, obs_stats)
        assert self.scale is not None
        obs_dim, act_dim = spaces.obs_dim, self.scale.dim
        actor_hidden, critic_hidden, n_critics = config.actor_hidden, config.critic_hidden, config.n_critics
        actor_lr, critic_lr = config.actor_lr, config.critic_lr
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.actor = GaussianPolicy(obs_dim, act_dim, actor_hidden).to(self.device)
            self.critic = CriticEnsemble(obs_dim, act_dim, critic_hidden, n_critics).to(self.device)
        self.critic_tgt = copy.deepcopy(self.critic).requires_grad_(False)
        self._actor_params: list[torch.Tensor] = list(self.actor.parameters())
        self._critic_params: list[torch.Tensor] = list(self.critic.parameters())
        self._tgt_params: list[torch.Tensor] = list(self.critic_tgt.parameters())
        self.actor_optimizer = adam(self._actor_params, actor_lr)
        self.critic_optimizer = adam(self._critic_params, critic_lr)

    def _policy_act(self, obs: torch.Tensor) -> torch.Tensor:
        assert self.scale is not None
        unit = self.actor.sample(obs, self.generator) if self._train else self.actor(obs)[0]
        return self.scale.from_unit(unit)

    def _unit(self, act: torch.Tensor) -> torch.Tensor:
        """Env actions to the unit actions the critics and the actor work on."""
        assert self.scale is not None
        return self.scale.to_unit(act)

    def _critic_step(
        self, obs: torch.Tensor, unit_act: torch.Tensor, target: torch.Tensor
    ) -> tuple[float, torch.Tensor]:
        """One step of every critic towards ``target``; returns the loss and the critics' values
        ``Q_i(obs, unit_act)`` before the step, ``(n, batch)``, detached."""
        q = self.critic(obs, unit_act)
        loss = ((q - target) ** 2).mean(dim=1).sum()
        gradient_step(self.critic_optimizer, loss, self._critic_params, None)
        return float(loss.detach()), q.detach()

    def _actor_step(self, obs: torch.Tensor, unit_act: torch.Tensor, weight: torch.Tensor) -> float:
        """One step of advantage-weighted regression: ``-mean(weight * log pi(a|s))``; returns the loss."""
        loss = -(weight * self.actor.log_prob(obs, unit_act)).mean()
        gradient_step(self.actor_optimizer, loss, self._actor_params, None)
        return float(loss.detach())

    def _networks(self) -> dict[str, nn.Module]:
        return {"actor.pt": self.actor, "critic.pt": self.critic, "critic_tgt.pt": self.critic_tgt}

    def _greedy_layers(self) -> list[tuple[F32, F32]]:
        return linear_layers(self.actor.net)

    def _optimizers(self) -> dict[str, torch.optim.Optimizer]:
        return {"actor": self.actor_optimizer, "critic": self.critic_optimizer}
