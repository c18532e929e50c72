"""``ValueBasedAgent``: what DQN and IQN share. A network and its target, Adam, an explorer, acting on
per-action values, the opt step around the loss, and the checkpoint files.

A subclass gives the network (`ValueBasedAgent.__init__` takes it), the per-action values used to act
(``_action_values``) and the loss of a batch (``_loss``); everything else is here.
"""

from __future__ import annotations

import copy
import functools
from abc import abstractmethod
from collections.abc import Mapping
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from border_py.agents.explorers import (
    EpsilonGreedy,
    EpsilonGreedyConfig,
    SoftmaxConfig,
    build_explorer,
    discrete_action,
    discrete_actions,
    explorer_record,
)
from border_py.agents.toolkit import (
    NumpyMlp,
    adam,
    gradient_step,
    load_state_arrays,
    state_arrays,
    update_target,
)
from border_py.agents.torch_agent import TorchAgent
from border_py.base.replay_buffer import ReplayBuffer
from border_py.base.spaces import Spaces
from border_py.record import Record
from border_py.replay_buffer.transition import TransitionBatch


def observation_shape(spaces: Spaces, encoder: object | None) -> tuple[int, ...]:
    """The shape the network takes one observation in: the env's (``(4, 84, 84)``) for an ``encoder``,
    else flat (``(obs_dim,)``)."""
    return spaces.obs_shape if encoder is not None else (spaces.obs_dim,)


class ValueBasedConfig(Protocol):
    """The fields of `DqnConfig` and `IqnConfig` the
    shared code reads."""

    @property
    def lr(self) -> float: ...
    @property
    def adam_eps(self) -> float: ...
    @property
    def batch_size(self) -> int: ...
    @property
    def tau(self) -> float: ...
    @property
    def target_update_interval(self) -> int: ...
    @property
    def max_grad_norm(self) -> float | None: ...
    @property
    def explorer(self) -> EpsilonGreedyConfig | SoftmaxConfig: ...


N = TypeVar("N", bound=nn.Module)
"""The network type (``QNetwork``, ``IqnNetwork``)."""


class ValueBasedAgent(TorchAgent, Generic[N]):
    """A discrete-action agent that acts on per-action values and learns from
    `TransitionBatch` es.

    In train mode ``sample`` explores with the configured explorer; in eval mode it is greedy with no
    randomness. ``opt`` returns ``None`` (skips) while the buffer holds fewer than ``batch_size``
    transitions. The target network is updated after the optimiser step (every ``target_update_interval``
    opt steps), so it follows the freshly updated online network.

    Args:
        config: the shared hyperparameters.
        net: the online network, already on ``device`` (built by the subclass, seeded).
        n_actions: number of discrete actions.
        obs_shape: the shape of one observation (``(obs_dim,)`` for an MLP).
        device: where the networks live.
        seed: seeds the explorer.
        name: the agent's name in error messages (``DQN``).
        files: the file names of the online and target networks (``qnet.pt``, ``qnet_tgt.pt``).
    """

    def __init__(
        self,
        config: ValueBasedConfig,
        net: N,
        n_actions: int,
        obs_shape: tuple[int, ...],
        device: torch.device,
        seed: int,
        name: str,
        files: tuple[str, str],
    ) -> None:
        self.n_actions = n_actions
        self.obs_shape = obs_shape
        self.device = device
        self._config = config
        self.name, self._files = name, files
        self.net: N = net
        self.net_tgt: N = copy.deepcopy(net).requires_grad_(False)
        # Made once: module.parameters() walks the module tree on every call.
        self._online_params: list[torch.Tensor] = list(self.net.parameters())
        self._tgt_params: list[torch.Tensor] = list(self.net_tgt.parameters())
        self.optimizer = adam(self._online_params, config.lr, config.adam_eps)
        self.explorer = build_explorer(config.explorer, seed)
        self.opt_steps = 0
        self._numpy_values: NumpyMlp | None = None
        """Set by an agent whose network acts as a `NumpyMlp` (`_values_of` then skips torch)."""

    @property
    def batch_size(self) -> int:
        """In transitions per opt step."""
        return self._config.batch_size

    @abstractmethod
    def _action_values(self, obs: torch.Tensor) -> torch.Tensor:
        """The values ``(n, n_actions)`` the greedy action maximises, for observations ``(n, *obs_shape)``."""

    @abstractmethod
    def _loss(self, batch: TransitionBatch) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The loss of ``batch`` to minimise, each item's new priority (for prioritized replay) and the
        mean predicted value of the taken actions (for the record)."""

    def _values_of(self, obs: npt.NDArray[Any], n: int) -> torch.Tensor:
        if self._numpy_values is not None:
            rows = np.asarray(obs, dtype=np.float32).reshape(n, -1)
            return torch.from_numpy(self._numpy_values(rows))
        with torch.inference_mode():
            # Frames cross to the device as uint8 (a quarter of the bytes); the network scales them.
            dtype = torch.uint8 if isinstance(obs, np.ndarray) and obs.dtype == np.uint8 else torch.float32
            x = torch.as_tensor(obs, dtype=dtype, device=self.device).reshape(n, *self.obs_shape)
            return self._action_values(x)

    def _act(self, obs: npt.NDArray[Any], n: int) -> npt.NDArray[np.int64]:
        """Int64 actions ``(n,)``: explored in train mode (one forward pass for all, made only if some
        action is greedy), greedy in eval mode."""
        if n == 1 and self._numpy_values is not None:
            return self._act_one_in_numpy(obs, self._numpy_values)
        values = functools.partial(self._values_of, obs, n)
        return np.stack(discrete_actions(self.explorer, self._train, self.n_actions, values, n))

    def _act_one_in_numpy(self, obs: npt.NDArray[Any], forward: NumpyMlp) -> npt.NDArray[np.int64]:
        """`_act` for one observation through the numpy MLP with no torch call on the way (the sampler's
        every step): `discrete_action` over the numpy Q-values, whose argmax is torch's (the first largest
        value, the first NaN if any), so the same action, explorer schedule and explorer RNG."""
        row = np.asarray(obs, dtype=np.float32).reshape(1, -1)
        return discrete_action(self.explorer, self._train, self.n_actions, lambda: forward(row)[0]).reshape(1)

    def opt(self, buffer: ReplayBuffer[TransitionBatch]) -> Record | None:
        """One gradient step on a sampled batch; ``None`` while the buffer is smaller than a batch.

        Returns:
            ``train/loss``, ``train/q_mean``, ``train/grad_norm`` and, for epsilon-greedy, ``train/epsilon``.
        """
        c = self._config
        if len(buffer) < c.batch_size:
            return None
        batch = buffer.batch(c.batch_size).to(self.device)
        loss, priority, q_mean = self._loss(batch)
        grad_norm = gradient_step(self.optimizer, loss, self._online_params, c.max_grad_norm)
        self.opt_steps += 1
        if self.opt_steps % c.target_update_interval == 0:
            update_target(self._tgt_params, self._online_params, c.tau)
        if batch.weight is not None:
            buffer.update_priority(batch.ix_sample, priority.detach().cpu().numpy())
        return Record(
            {
                "train/loss": float(loss.detach()),
                "train/q_mean": float(q_mean),
                "train/grad_norm": grad_norm,
                **explorer_record(self.explorer),
            }
        )

    def acting_state(self) -> dict[str, Any]:
        """The online network's weights as numpy arrays (`SyncModel`)."""
        return {"net": state_arrays(self.net)}

    def load_acting_state(self, state: Mapping[str, Any], env_steps: int) -> None:
        """Loads `acting_state`'s weights into the online network; epsilon-greedy's schedule moves to
        ``env_steps`` (the run's, over all actors), so every actor explores as one sampler would."""
        load_state_arrays(self.net, state["net"], self.name)
        if isinstance(self.explorer, EpsilonGreedy):
            self.explorer.n_steps = env_steps

    def _modules(self) -> dict[str, nn.Module]:
        return {self._files[0]: self.net, self._files[1]: self.net_tgt}

    def _optimizers(self) -> dict[str, torch.optim.Optimizer]:
        return {"optimizer": self.optimizer}

    def _state(self) -> dict[str, Any]:
        # The explorer's schedule and RNG: exploration resumes exactly.
        return {"opt_steps": self.opt_steps, "explorer": self.explorer.state_dict()}

    def _load_state(self, state: dict[str, Any]) -> None:
        self.opt_steps = int(state["opt_steps"])
        self.explorer.load_state_dict(state["explorer"])
