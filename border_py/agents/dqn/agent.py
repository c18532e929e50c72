"""The DQN agent: networks, optimiser, target updates and ``opt``."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from border_py.agents._mode import TrainEvalMode
from border_py.agents.dqn.config import DqnConfig
from border_py.agents.dqn.explorer import EpsilonGreedy, build_explorer
from border_py.agents.dqn.losses import next_state_value, td_loss, td_target
from border_py.agents.dqn.model import QNetwork
from border_py.base.replay_buffer import ReplayBuffer
from border_py.record import Record
from border_py.replay_buffer.transition import TransitionBatch

_FILES = ("qnet.pt", "qnet_tgt.pt", "optimizer.pt")


class Dqn(TrainEvalMode):
    """Deep Q-network (Mnih et al., 2015) with target network, double DQN, Huber/MSE loss, gradient
    clipping and prioritized replay.

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
            self.qnet = QNetwork(obs_dim, n_actions, config.hidden).to(self.device)
        self.qnet_tgt = copy.deepcopy(self.qnet).requires_grad_(False)
        self.optimizer = torch.optim.Adam(self.qnet.parameters(), lr=config.lr)
        self.explorer = build_explorer(config.explorer, seed)
        self.opt_steps = 0

    def _q_values(self, obs: npt.NDArray[Any]) -> torch.Tensor:
        with torch.inference_mode():
            x = torch.as_tensor(obs, dtype=torch.float32, device=self.device).reshape(1, -1)
            q: torch.Tensor = self.qnet(x)[0]
        return q

    def sample(self, obs: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
        """Returns an action as an int64 array of shape ``()``."""
        if self._train:
            act = self.explorer.action(self.n_actions, lambda: self._q_values(obs))
        else:
            act = int(self._q_values(obs).argmax())
        return np.array(act, dtype=np.int64)

    def opt(self, buffer: ReplayBuffer[TransitionBatch]) -> Record | None:
        """One gradient step on a sampled batch; ``None`` while the buffer is smaller than a batch.

        Returns:
            ``train/loss``, ``train/q_mean``, ``train/grad_norm`` and, for epsilon-greedy, ``train/epsilon``.
        """
        c = self.config
        if len(buffer) < c.batch_size:
            return None
        batch = buffer.batch(c.batch_size)
        dev = self.device
        obs, next_obs = batch.obs.to(dev), batch.next_obs.to(dev)
        act = batch.act.to(dev).reshape(-1, 1).long()
        reward, terminated = batch.reward.to(dev), batch.is_terminated.to(dev)
        weight = None if batch.weight is None else batch.weight.to(dev)

        q_taken = self.qnet(obs).gather(1, act).squeeze(1)
        with torch.no_grad():
            q_next_online = self.qnet(next_obs) if c.double_dqn else None
            target = td_target(
                reward, terminated, next_state_value(self.qnet_tgt(next_obs), q_next_online), c.gamma
            )
        loss = td_loss(q_taken, target, c.loss, weight)

        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        max_norm = c.max_grad_norm if c.max_grad_norm is not None else float("inf")
        grad_norm = torch.nn.utils.clip_grad_norm_(self.qnet.parameters(), max_norm)
        self.optimizer.step()
        self.opt_steps += 1
        # The target is updated after the optimiser step, so it follows the freshly updated online net.
        if self.opt_steps % c.target_update_interval == 0:
            self._update_target()

        if weight is not None:
            buffer.update_priority(batch.ix_sample, (target - q_taken).detach().cpu().numpy())
        record: dict[str, float] = {
            "train/loss": float(loss.detach()),
            "train/q_mean": float(q_taken.detach().mean()),
            "train/grad_norm": float(grad_norm),
        }
        if isinstance(self.explorer, EpsilonGreedy):
            record["train/epsilon"] = self.explorer.epsilon()
        return Record(record)

    @torch.no_grad()
    def _update_target(self) -> None:
        tau = self.config.tau
        for p_tgt, p in zip(self.qnet_tgt.parameters(), self.qnet.parameters(), strict=True):
            if tau == 1.0:
                p_tgt.copy_(p)
            else:
                p_tgt.lerp_(p, tau)

    def save_params(self, path: Path) -> list[Path]:
        """Writes ``qnet.pt``, ``qnet_tgt.pt``, ``optimizer.pt`` (optimiser state, opt steps) to ``path``."""
        files = [path / name for name in _FILES]
        torch.save(self.qnet.state_dict(), files[0])
        torch.save(self.qnet_tgt.state_dict(), files[1])
        torch.save({"optimizer": self.optimizer.state_dict(), "opt_steps": self.opt_steps}, files[2])
        return files

    def load_params(self, path: Path) -> None:
        """Reads what ``save_params`` wrote.

        Raises:
            FileNotFoundError: a file is missing (the message names it).
            ValueError: a file does not match this agent's networks (the message names the file).
        """
        for name in _FILES:
            if not (path / name).is_file():
                raise FileNotFoundError(f"{path / name} not found: not a saved DQN model directory")
        for name, module in (("qnet.pt", self.qnet), ("qnet_tgt.pt", self.qnet_tgt)):
            try:
                module.load_state_dict(torch.load(path / name, map_location=self.device, weights_only=True))
            except RuntimeError as exc:
                raise ValueError(f"{path / name} does not match this DQN's network: {exc}") from exc
        state = torch.load(path / _FILES[2], map_location=self.device, weights_only=True)
        self.optimizer.load_state_dict(state["optimizer"])
        self.opt_steps = int(state["opt_steps"])
