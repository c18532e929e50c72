"""The IQN agent: quantile network, target network, explorer and ``opt``."""

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
from border_py.agents.explorers import (
    build_explorer,
    discrete_action,
    discrete_actions,
    explorer_record,
)
from border_py.agents.iqn.config import IqnConfig, TauSampling
from border_py.agents.iqn.losses import quantile_huber_loss, quantile_target
from border_py.agents.iqn.model import IqnNetwork, sample_taus
from border_py.base.replay_buffer import ReplayBuffer
from border_py.record import Record
from border_py.replay_buffer.transition import TransitionBatch


def _of_action(quantiles: torch.Tensor, act: torch.Tensor) -> torch.Tensor:
    """The quantiles ``(batch, n_taus)`` of action ``act[i]`` for each batch item ``i``, from ``quantiles``
    ``(batch, n_taus, n_actions)``."""
    index = act.reshape(-1, 1, 1).expand(-1, quantiles.shape[1], 1)
    return quantiles.gather(2, index).squeeze(2)


_STATE_KEYS = ("optimizer", "opt_steps", "generator", "explorer")


class Iqn(TrainEvalMode):
    """Implicit quantile networks (Dabney et al., 2018) for discrete actions.

    Acting is risk-neutral: the greedy action maximises the mean of the quantiles at ``act_taus``. In train
    mode the DQN explorers act on that mean; in eval mode the action is greedy, and deterministic when
    ``act_taus`` is ``even`` or ``fixed`` (the default). ``opt`` regresses the quantiles of the taken action
    at ``pred_taus`` onto ``r + discount * Z_target(s', a*)`` at ``target_taus`` with the quantile Huber
    loss, where ``a*`` maximises the target network's mean quantile. Fractions drawn uniformly come from
    the agent's own seeded ``torch.Generator``. With prioritized replay, each item's priority is its loss.

    Args:
        config: hyperparameters.
        obs_dim: size of a (flat) observation.
        n_actions: number of discrete actions.
        seed: seeds network initialisation, the explorer and fraction sampling.

    Example:
        >>> agent = Iqn(IqnConfig(), obs_dim=4, n_actions=2, seed=0)
        >>> agent.eval(); int(agent.sample(np.zeros(4, np.float32))) in (0, 1)
        True
    """

    def __init__(self, config: IqnConfig, obs_dim: int, n_actions: int, seed: int) -> None:
        self.config = config
        self.obs_dim = obs_dim
        self.n_actions = n_actions
        self.device = torch.device(config.device)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.net = IqnNetwork(
                obs_dim, n_actions, config.hidden, config.embed_dim, config.n_cos, config.head_hidden
            ).to(self.device)
        self.net_tgt = copy.deepcopy(self.net).requires_grad_(False)
        # Made once: module.parameters() walks the module tree on every call.
        self._online_params: list[torch.Tensor] = list(self.net.parameters())
        self._tgt_params: list[torch.Tensor] = list(self.net_tgt.parameters())
        self.optimizer = adam(self._online_params, config.lr)
        self.explorer = build_explorer(config.explorer, seed)
        self.generator = torch.Generator(self.device).manual_seed(seed)
        self.opt_steps = 0

    def _taus(self, sampling: TauSampling, batch: int) -> torch.Tensor:
        return sample_taus(sampling, batch, self.generator, self.device)

    def _q_values(self, obs: npt.NDArray[Any], n: int) -> torch.Tensor:
        """The mean over the acting quantiles of each action, ``(n, n_actions)``, for ``n`` observations
        (stacked)."""
        with torch.inference_mode():
            x = torch.as_tensor(obs, dtype=torch.float32, device=self.device).reshape(n, -1)
            q: torch.Tensor = self.net(x, self._taus(self.config.act_taus, n)).mean(dim=1)
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
            ``train/loss``, ``train/q_mean`` (mean predicted quantile of the taken actions),
            ``train/grad_norm`` and, for epsilon-greedy, ``train/epsilon``.
        """
        c = self.config
        if len(buffer) < c.batch_size:
            return None
        b = buffer.batch(c.batch_size).to(self.device)
        n = len(b)

        taus = self._taus(c.pred_taus, n)
        pred = _of_action(self.net(b.obs, taus), b.act.long())  # (batch, N)
        with torch.no_grad():
            z_next = self.net_tgt(b.next_obs, self._taus(c.target_taus, n))  # (batch, N', actions)
            next_quantiles = _of_action(z_next, z_next.mean(dim=1).argmax(dim=1))
            target = quantile_target(b.reward, b.is_terminated, b.discount, next_quantiles)
        per_item = quantile_huber_loss(pred, taus, target, c.kappa)
        loss = (per_item * b.weight).mean() if b.weight is not None else per_item.mean()

        grad_norm = gradient_step(self.optimizer, loss, self._online_params, c.max_grad_norm)
        self.opt_steps += 1
        # The target is updated after the optimiser step, so it follows the freshly updated online net.
        if self.opt_steps % c.target_update_interval == 0:
            update_target(self._tgt_params, self._online_params, c.tau)

        if b.weight is not None:
            buffer.update_priority(b.ix_sample, per_item.detach().cpu().numpy())
        return Record(
            {
                "train/loss": float(loss.detach()),
                "train/q_mean": float(pred.detach().mean()),
                "train/grad_norm": grad_norm,
                **explorer_record(self.explorer),
            }
        )

    def _modules(self) -> dict[str, torch.nn.Module]:
        return {"iqn.pt": self.net, "iqn_tgt.pt": self.net_tgt}

    def save_params(self, path: Path) -> list[Path]:
        """Writes ``iqn.pt``, ``iqn_tgt.pt`` and ``state.pt`` (optimiser state, opt steps, the fraction
        generator, the explorer's schedule and RNG) to ``path``."""
        extra = {
            "optimizer": self.optimizer.state_dict(),
            "opt_steps": self.opt_steps,
            "generator": self.generator.get_state(),
            "explorer": self.explorer.state_dict(),
        }
        return save_modules(path, self._modules(), extra)

    def load_params(self, path: Path) -> None:
        """Reads what ``save_params`` wrote.

        Raises:
            FileNotFoundError: a file is missing (the message names it).
            ValueError: a file is corrupt or does not match this agent's networks (the message names it).
        """
        state = load_modules(path, self._modules(), "IQN", self.device, _STATE_KEYS)
        load_optimizer(self.optimizer, state["optimizer"])
        self.opt_steps = int(state["opt_steps"])
        self.generator.set_state(state["generator"].cpu())
        self.explorer.load_state_dict(state["explorer"])
