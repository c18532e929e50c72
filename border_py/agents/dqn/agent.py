"""The DQN agent: networks, optimiser, target updates and ``opt``."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from border_py.agents._mode import TrainEvalMode
from border_py.agents._torch import (
    adam,
    gradient_step,
    load_modules,
    load_optimizer,
    save_modules,
    update_target,
)
from border_py.agents.dqn.config import DqnConfig
from border_py.agents.dqn.losses import next_state_value, td_loss, td_target
from border_py.agents.dqn.model import QNetwork
from border_py.agents.explorers import (
    build_explorer,
    discrete_action,
    discrete_actions,
    explorer_record,
)
from border_py.base.replay_buffer import ReplayBuffer
from border_py.record import Record
from border_py.replay_buffer.transition import TransitionBatch

_STATE_KEYS = ("optimizer", "opt_steps", "explorer")


class Dqn(TrainEvalMode):
    """Deep Q-network (Mnih et al., 2015) with target network, double DQN, dueling head, Huber/MSE loss,
    gradient clipping, prioritized replay and n-step targets (each transition's ``discount``).

    In train mode ``sample`` explores with the configured explorer; in eval mode it is greedy with no
    randomness at all. ``opt`` returns ``None`` (skips) while the buffer holds fewer than ``batch_size``
    transitions.

    Args:
        config: hyperparameters.
        obs_dim: size of a (flat) observation.
        n_actions: number of discrete actions.
        seed: seeds network initialisation and the explorer.

    Example:
        >>> agent = Dqn(DqnConfig(), obs_dim=4, n_actions=2, seed=0)
        >>> agent.eval(); int(agent.sample(np.zeros(4, np.float32))) in (0, 1)
        True
    """

    def __init__(self, config: DqnConfig, obs_dim: int, n_actions: int, seed: int) -> None:
        self.config = config
        self.obs_dim = obs_dim
        self.n_actions = n_actions
        self.device = torch.device(config.device)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.qnet = QNetwork(obs_dim, n_actions, config.hidden, config.dueling).to(self.device)
        self.qnet_tgt = copy.deepcopy(self.qnet).requires_grad_(False)
        # Made once: module.parameters() walks the module tree on every call.
        self._online_params: list[torch.Tensor] = list(self.qnet.parameters())
        self._tgt_params: list[torch.Tensor] = list(self.qnet_tgt.parameters())
        self.optimizer = adam(self._online_params, config.lr)
        self.explorer = build_explorer(config.explorer, seed)
        self.opt_steps = 0

    def _q_values(self, obs: npt.NDArray[Any], n: int) -> torch.Tensor:
        """The Q-values ``(n, n_actions)`` of ``n`` observations (stacked)."""
        with torch.inference_mode():
            x = torch.as_tensor(obs, dtype=torch.float32, device=self.device).reshape(n, -1)
            q: torch.Tensor = self.qnet(x)
        return q

    def sample(self, obs: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
        """An int64 action of shape ``()``: explored in train mode, greedy in eval mode."""
        return discrete_action(self.explorer, self._train, self.n_actions, lambda: self._q_values(obs, 1)[0])

    def sample_batch(self, obs: Sequence[npt.NDArray[Any]]) -> Sequence[npt.NDArray[np.int64]]:
        """:meth:`sample` for the observations of a vector env, with one forward pass for all."""
        return discrete_actions(
            self.explorer,
            self._train,
            self.n_actions,
            lambda: self._q_values(np.stack(obs), len(obs)),
            len(obs),
        )

    def opt(self, buffer: ReplayBuffer[TransitionBatch]) -> Record | None:
        """One gradient step on a sampled batch; ``None`` while the buffer is smaller than a batch.

        Returns:
            ``train/loss``, ``train/q_mean``, ``train/grad_norm`` and, for epsilon-greedy, ``train/epsilon``.
        """
        c = self.config
        if len(buffer) < c.batch_size:
            return None
        b = buffer.batch(c.batch_size).to(self.device)

        q_taken = self.qnet(b.obs).gather(1, b.act.reshape(-1, 1).long()).squeeze(1)
        with torch.no_grad():
            q_next_online = self.qnet(b.next_obs) if c.double_dqn else None
            next_value = next_state_value(self.qnet_tgt(b.next_obs), q_next_online)
            target = td_target(b.reward, b.is_terminated, next_value, b.discount)
        loss = td_loss(q_taken, target, c.loss, b.weight)

        grad_norm = gradient_step(self.optimizer, loss, self._online_params, c.max_grad_norm)
        self.opt_steps += 1
        # The target is updated after the optimiser step, so it follows the freshly updated online net.
        if self.opt_steps % c.target_update_interval == 0:
            update_target(self._tgt_params, self._online_params, c.tau)

        if b.weight is not None:
            buffer.update_priority(b.ix_sample, (target - q_taken).detach().cpu().numpy())
        return Record(
            {
                "train/loss": float(loss.detach()),
                "train/q_mean": float(q_taken.detach().mean()),
                "train/grad_norm": grad_norm,
                **explorer_record(self.explorer),
            }
        )

    def _modules(self) -> dict[str, torch.nn.Module]:
        return {"qnet.pt": self.qnet, "qnet_tgt.pt": self.qnet_tgt}

    def save_params(self, path: Path) -> list[Path]:
        """Writes ``qnet.pt``, ``qnet_tgt.pt`` and ``state.pt`` (optimiser state, opt steps, the explorer's
        schedule and RNG) to ``path``."""
        extra = {
            "optimizer": self.optimizer.state_dict(),
            "opt_steps": self.opt_steps,
            "explorer": self.explorer.state_dict(),
        }
        return save_modules(path, self._modules(), extra)

    def load_params(self, path: Path) -> None:
        """Reads what ``save_params`` wrote.

        Raises:
            FileNotFoundError: a file is missing (the message names it).
            ValueError: a file is corrupt or does not match this agent's networks (the message names it).
        """
        state = load_modules(path, self._modules(), "DQN", self.device, _STATE_KEYS)
        load_optimizer(self.optimizer, state["optimizer"])
        self.opt_steps = int(state["opt_steps"])
        self.explorer.load_state_dict(state["explorer"])
