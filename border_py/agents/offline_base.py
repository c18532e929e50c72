"""``OfflineAgent``: what BC, AWAC and IQL share. Observations normalised with a dataset's statistics (saved
with the agent), continuous actions as unit actions in the env's bounds, acting, the opt step around an
update, and the checkpoint files.

A subclass makes its networks and optimisers, acts on normalised observations (``_act``) and learns from a
batch whose observations are already normalised (``_update``).
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from border_py.agents.normalization import ObsNormalizer
from border_py.agents.policies import ActionScale, GaussianPolicy
from border_py.agents.toolkit import (
    CriticEnsemble,
    TrainEvalMode,
    adam,
    gradient_step,
    load_modules,
    load_optimizer,
    save_modules,
    torch_device,
)
from border_py.base.replay_buffer import ReplayBuffer
from border_py.record import Record
from border_py.replay_buffer.transition import TransitionBatch

ObsStats = tuple[npt.NDArray[Any], npt.NDArray[Any]]
"""An observation's mean and standard deviation, per component."""


class OfflineAgent(TrainEvalMode, ABC):
    """The shared half of the offline agents.

    Args:
        name: the agent's name in error messages (``IQL``).
        obs_dim: size of a (flat) observation.
        device: the torch device's name (checked to exist).
        batch_size: transitions per opt step (``opt`` skips while the buffer holds fewer).
        seed: seeds the agent's generator (all its sampling).
        obs_stats: the dataset's observation mean and std, used when ``normalize_obs``.
        normalize_obs: normalise observations (in ``sample`` and in ``opt``) with ``obs_stats``; without
            them, with the statistics `load_params` restores (``opt`` refuses to run before).
        action_bounds: the Box's ``(low, high)``, for continuous actions.

    Raises:
        ValueError: bad bounds, or a device this machine lacks.
    """

    def __init__(
        self,
        name: str,
        obs_dim: int,
        device: str,
        batch_size: int,
        seed: int,
        obs_stats: ObsStats | None,
        normalize_obs: bool,
        action_bounds: tuple[npt.NDArray[Any], npt.NDArray[Any]] | None,
    ) -> None:
        self.name = name
        self.obs_dim = obs_dim
        self.device = torch_device(device)
        self._batch_size = batch_size
        stats = obs_stats if normalize_obs else None
        self.normalizer = ObsNormalizer(obs_dim, *(stats or (None, None))).to(self.device)
        # Without statistics, normalize_obs waits for load_params (an evaluation restores them from the
        # saved model); training refuses to start without them.
        self._stats_missing = normalize_obs and obs_stats is None
        self.scale = None if action_bounds is None else ActionScale(*action_bounds, self.device)
        self.generator = torch.Generator(self.device).manual_seed(seed)
        self.opt_steps = 0

    @property
    def batch_size(self) -> int:
        """In transitions per opt step."""
        return self._batch_size

    @abstractmethod
    def _act(self, obs: torch.Tensor) -> torch.Tensor:
        """Env actions for normalised observations ``(n, obs_dim)``: drawn in train mode, the policy's
        mode in eval mode."""

    @abstractmethod
    def _update(self, batch: TransitionBatch) -> dict[str, float]:
        """One update on ``batch`` (its observations normalised); returns the ``train/...`` values."""

    @abstractmethod
    def _modules(self) -> dict[str, nn.Module]:
        """The networks, by file name."""

    @abstractmethod
    def _optimizers(self) -> dict[str, torch.optim.Optimizer]:
        """The optimisers, by name."""

    def _actions(self, obs: npt.NDArray[Any], n: int) -> npt.NDArray[Any]:
        with torch.inference_mode():
            x = torch.as_tensor(obs, dtype=torch.float32, device=self.device).reshape(n, -1)
            out: npt.NDArray[Any] = self._act(self.normalizer(x)).cpu().numpy()
        return out

    def sample(self, obs: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """The action for ``obs`` (a float32 array within the bounds, or an int64 array of shape ``()``)."""
        act: npt.NDArray[Any] = self._actions(obs, 1)[0, ...]
        return act

    def sample_batch(self, obs: Sequence[npt.NDArray[Any]]) -> Sequence[npt.NDArray[Any]]:
        """`sample` for the observations of a vector env, with one forward pass for all."""
        acts = self._actions(np.stack(obs), len(obs))
        return [acts[i, ...] for i in range(len(obs))]

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

    def _all_modules(self) -> dict[str, nn.Module]:
        return {**self._modules(), "normalizer.pt": self.normalizer}

    def save_params(self, path: Path) -> list[Path]:
        """Writes the networks, ``normalizer.pt`` (the observation statistics) and ``state.pt`` (optimisers,
        opt steps, the generator) to ``path``."""
        extra = {
            "optimizers": {k: o.state_dict() for k, o in self._optimizers().items()},
            "opt_steps": self.opt_steps,
            "generator": self.generator.get_state(),
        }
        return save_modules(path, self._all_modules(), extra)

    def load_params(self, path: Path) -> None:
        """Reads what ``save_params`` wrote.

        Raises:
            FileNotFoundError: a file is missing (the message names it).
            ValueError: a file is corrupt or does not match this agent (the message names it).
        """
        keys = ("optimizers", "opt_steps", "generator")
        state = load_modules(path, self._all_modules(), self.name, self.device, keys)
        for key, optimizer in self._optimizers().items():
            load_optimizer(optimizer, state["optimizers"][key])
        self.opt_steps = int(state["opt_steps"])
        self.generator.set_state(state["generator"].cpu())
        self._stats_missing = False


class GaussianActorCritic(OfflineAgent):
    """AWAC's and IQL's shared networks: a `GaussianPolicy` actor over
    unit actions, ``n_critics`` Q-networks and their Polyak-averaged targets, with an Adam each for the
    actor and the critics. In train mode it acts by sampling (online fine-tuning explores), in eval mode
    with the mean.

    Args:
        name, obs_dim, device, batch_size, seed, obs_stats, normalize_obs: as `OfflineAgent`.
        action_bounds: the Box's ``(low, high)``.
        actor_hidden: the actor's hidden layers.
        critic_hidden: each critic's hidden layers.
        n_critics: how many Q-networks (their minimum is used).
        actor_lr: the actor's Adam learning rate.
        critic_lr: the critics' Adam learning rate.
    """

    def __init__(
        self,
        name: str,
        obs_dim: int,
        device: str,
        batch_size: int,
        seed: int,
        obs_stats: ObsStats | None,
        normalize_obs: bool,
        action_bounds: tuple[npt.NDArray[Any], npt.NDArray[Any]],
        actor_hidden: Sequence[int],
        critic_hidden: Sequence[int],
        n_critics: int,
        actor_lr: float,
        critic_lr: float,
    ) -> None:
        super().__init__(name, obs_dim, device, batch_size, seed, obs_stats, normalize_obs, action_bounds)
        assert self.scale is not None
        act_dim = self.scale.dim
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

    def _act(self, obs: torch.Tensor) -> torch.Tensor:
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

    def _modules(self) -> dict[str, nn.Module]:
        return {"actor.pt": self.actor, "critic.pt": self.critic, "critic_tgt.pt": self.critic_tgt}

    def _optimizers(self) -> dict[str, torch.optim.Optimizer]:
        return {"actor": self.actor_optimizer, "critic": self.critic_optimizer}
