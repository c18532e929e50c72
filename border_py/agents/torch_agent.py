"""`TorchAgent`: the one base of border_py's torch agents. It owns what an agent saves and how, and how it
acts; an agent declares its parts and writes its arithmetic.

    class MyAgent(TorchAgent):
        name = "MyAgent"

        def _modules(self):      return {"actor.pt": self.actor, "critic.pt": self.critic}
        def _optimizers(self):   return {"actor_optimizer": self.actor_opt, "critic_optimizer": self.q_opt}
        def _state(self):        return {"opt_steps": self.opt_steps, "rng": self.generator.get_state()}
        def _load_state(self, state):
            self.opt_steps = int(state["opt_steps"])
            restore_generator(self.generator, state["rng"])
        def _act(self, obs, n):  ...   # n stacked observations -> n actions (numpy)
        def opt(self, buffer):   ...

``save_params`` writes each module's state dict to its file and ``state.pt`` (the optimisers' states, then
`_state`); ``load_params`` reads every file and checks it against the agent before changing anything
(`border_py.agents.checkpoint_files`); ``sample`` and ``sample_batch`` are `_act` for one observation and
for a vector env's.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from border_py.agents.checkpoint_files import load_modules, load_optimizer, save_modules
from border_py.agents.toolkit import TrainEvalMode

__all__ = ["TorchAgent", "restore_generator"]


def restore_generator(generator: torch.Generator, state: torch.Tensor) -> None:
    """Sets ``generator`` to a saved ``state`` (on any device). A state saved by a generator of another
    device type (a model trained on ``cuda``, loaded on the CPU) fits no generator here, and ``generator``
    keeps its seeded state: greedy acting draws nothing, and a run resumed on another device is not bit for
    bit the run it continues in any case (the resume says so)."""
    state = state.cpu()
    if state.numel() == generator.get_state().numel():
        generator.set_state(state)


class TorchAgent(TrainEvalMode, ABC):
    """Saving, loading and acting, written once for every torch agent (see the module doc).

    Attributes:
        name: the agent's name in error messages (``SAC``).
        device: where its networks live.
    """

    name: str
    device: torch.device
    optimizers_key: ClassVar[str | None] = None
    """Where ``state.pt`` keeps the optimisers' states: at its top level, each under its name (``None``),
    or all in one mapping under this key (the offline agents' ``optimizers``)."""

    @abstractmethod
    def _modules(self) -> dict[str, nn.Module]:
        """The networks to save, by file name (``actor.pt``)."""

    @abstractmethod
    def _optimizers(self) -> dict[str, torch.optim.Optimizer]:
        """The optimisers to save, by the key of their state in ``state.pt``."""

    @abstractmethod
    def _state(self) -> dict[str, Any]:
        """The rest of ``state.pt``: counters, generator states, statistics (plain data and tensors)."""

    @abstractmethod
    def _load_state(self, state: dict[str, Any]) -> None:
        """Restores what `_state` returned (``state`` holds every key it had)."""

    @abstractmethod
    def _act(self, obs: npt.NDArray[Any], n: int) -> npt.NDArray[Any]:
        """The actions for ``n`` observations (``obs``: one observation when ``n`` is 1, else ``n``
        stacked), as an array whose leading dimension is ``n``: explored in train mode, greedy in eval
        mode."""

    def sample(self, obs: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """The action for ``obs`` (an int64 array of shape ``()`` for discrete actions, a float32 array for
        a box): explored in train mode, greedy in eval mode."""
        act: npt.NDArray[Any] = self._act(obs, 1)[0, ...]  # [0, ...]: a 0-d array, not a numpy scalar
        return act

    def sample_batch(self, obs: Sequence[npt.NDArray[Any]]) -> Sequence[npt.NDArray[Any]]:
        """`sample` for the observations of a vector env, with one forward pass for all."""
        acts = self._act(np.stack(obs), len(obs))
        return [acts[i, ...] for i in range(len(obs))]

    def _optimizer_states(self) -> dict[str, Any]:
        states = {key: optimizer.state_dict() for key, optimizer in self._optimizers().items()}
        return states if self.optimizers_key is None else {self.optimizers_key: states}

    def save_params(self, path: Path) -> list[Path]:
        """Writes each network to its file and ``state.pt`` (the optimisers' states and `_state`) to
        ``path``; returns the files written."""
        return save_modules(path, self._modules(), {**self._optimizer_states(), **self._state()})

    def load_params(self, path: Path) -> None:
        """Reads what `save_params` wrote, every file checked before anything changes.

        Raises:
            FileNotFoundError: a file is missing (the message names it).
            ValueError: a file is corrupt or does not match this agent (the message names it).
        """
        optimizers = [self.optimizers_key] if self.optimizers_key is not None else list(self._optimizers())
        keys = [*optimizers, *self._state()]
        state = load_modules(path, self._modules(), self.name, self.device, keys)
        saved = state if self.optimizers_key is None else state[self.optimizers_key]
        for key, optimizer in self._optimizers().items():
            load_optimizer(optimizer, saved[key])
        self._load_state(state)
