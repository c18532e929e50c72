"""`TorchAgent`: the one base of border_py's torch agents. An agent declares its parts once, in a frozen
record (`border_py.agents.parts`), and writes its arithmetic; the base derives from the parts what is
saved and how, and acts through the agent's ``_act``:

    @attrs.frozen
    class MyParts:
        actor: Trained[Actor]
        critic: Tracked[Critic]

    class MyAgent(TorchAgent[MyParts]):
        name = "MyAgent"

        def __init__(self, config, spaces, seed):
            self.device = torch_device(config.device)
            with seeded(seed):
                actor, critic = Actor(...), Critic(...)
            self.parts = MyParts(
                actor=Trained.adam(actor, "actor.pt", "actor_optimizer", config.lr, self.device),
                critic=Tracked.adam_with_target(
                    critic, "critic.pt", "critic_optimizer", config.lr, self.device, "critic_tgt.pt"
                ),
            )
            self.generator = torch.Generator(self.device).manual_seed(seed)

        def _act(self, obs, n):  ...   # n stacked observations -> n actions (numpy)
        def opt(self, buffer):   ...   # self.parts.critic.step(loss); self.parts.critic.update_target(tau)

``save_params`` writes each part's network (and target) to its file and ``state.pt`` (the optimisers'
states, the scalars, ``opt_steps``, the generator's state, then what `_state` adds); ``load_params`` reads
every file and checks it against the agent before changing anything (`border_py.agents.checkpoint_files`);
``sample`` and ``sample_batch`` are `_act` for one observation and for a vector env's. An agent with more
to keep (an explorer, running statistics) extends `_state`, `_check_state` and `_load_state`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from border_py.agents.checkpoint_files import (
    check_generator_state,
    load_modules,
    load_optimizer,
    save_modules,
    saved_count,
)
from border_py.agents.parts import Saved, Scalar, Tracked, Trained, parts_of
from border_py.agents.toolkit import TrainEvalMode

__all__ = ["AgentConfig", "TorchAgent", "restore_generator"]


class AgentConfig(Protocol):
    """The config fields every torch agent's shared base reads (the bases' own config protocols extend
    it: `ValueBasedConfig`, `ActorCriticConfig`, `OfflineConfig`)."""

    @property
    def device(self) -> str:
        """Torch device of the networks (``cpu``, ``cuda``, ``cuda:1``)."""
        ...

    @property
    def batch_size(self) -> int:
        """In transitions per update; ``opt`` skips while the buffer holds fewer."""
        ...


P = TypeVar("P")
"""An agent's parts record (a frozen attrs class whose fields are parts)."""


def restore_generator(generator: torch.Generator, state: torch.Tensor) -> None:
    """Sets ``generator`` to a saved ``state`` (on any device). A state saved by a generator of another
    device type (a model trained on ``cuda``, loaded on the CPU) fits no generator here, and ``generator``
    keeps its seeded state: greedy acting draws nothing, and a run resumed on another device is not bit for
    bit the run it continues in any case (the resume says so)."""
    state = state.cpu()
    if state.numel() == generator.get_state().numel():
        generator.set_state(state)


class TorchAgent(TrainEvalMode, ABC, Generic[P]):
    """Saving, loading and acting, derived once from an agent's parts (see the module doc).

    Attributes:
        name: the agent's name in error messages (``SAC``).
        device: where its networks live.
        parts: the agent's parts record (a frozen attrs class whose fields are `border_py.agents.parts`).
        opt_steps: the opt steps done so far.
        generator: the agent's own random generator, if it draws (its state is saved).
    """

    name: str
    device: torch.device
    parts: P
    opt_steps: int = 0
    generator: torch.Generator | None = None
    optimizers_key: ClassVar[str | None] = None
    """Where ``state.pt`` keeps the optimisers' states: at its top level, each under its key (``None``),
    or all in one mapping under this key (the offline agents' ``optimizers``)."""

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

    def _modules(self) -> dict[str, nn.Module]:
        """The networks to save, by file name, in the parts' order (a target after its network)."""
        modules: dict[str, nn.Module] = {}
        for part in parts_of(self.parts):
            if isinstance(part, Trained | Saved):
                modules[part.file] = part.net
            if isinstance(part, Tracked):
                modules[part.target_file] = part.target
        return modules

    def _optimizers(self) -> dict[str, torch.optim.Optimizer]:
        """The optimisers to save, by their key in ``state.pt``."""
        return {
            part.optimizer_key: part.optimizer
            for part in parts_of(self.parts)
            if isinstance(part, Trained | Scalar)
        }

    def _scalars(self) -> dict[str, torch.Tensor]:
        """The trained scalars ``state.pt`` keeps, by key."""
        return {
            part.state_key: part.value
            for part in parts_of(self.parts)
            if isinstance(part, Scalar) and part.state_key is not None
        }

    def _state(self) -> dict[str, Any]:
        """The rest of ``state.pt``: ``opt_steps`` and the generator's state. An agent with more (counters,
        an explorer, statistics: plain data and tensors) extends it."""
        generator = {} if self.generator is None else {"generator": self.generator.get_state()}
        return {"opt_steps": self.opt_steps, **generator}

    def _check_state(self, state: dict[str, Any]) -> None:
        """Refuses, changing nothing, a value of ``state`` (every key `_state` had) that `_load_state`
        would fail on or take wrongly: a `ValueError` naming the key."""
        saved_count(state["opt_steps"], "opt_steps")
        if self.generator is not None:
            check_generator_state(self.generator, state["generator"], "generator")

    def _load_state(self, state: dict[str, Any]) -> None:
        """Restores what `_state` returned (``state`` holds every key it had, checked by `_check_state`)."""
        self.opt_steps = int(state["opt_steps"])
        if self.generator is not None:
            restore_generator(self.generator, state["generator"])

    def _upgraded_optimizer_state(self, key: str, state: Any) -> Any:
        """The saved state of optimiser ``key`` in its network's layout (see `checkpoint_files.upgraded`:
        a network whose layout changed maps its former optimiser state too)."""
        for part in parts_of(self.parts):
            if isinstance(part, Trained) and part.optimizer_key == key:
                upgrade = getattr(part.net, "upgrade_optimizer_state", None)
                return upgrade(state) if callable(upgrade) and isinstance(state, dict) else state
        return state

    def _optimizer_states(self) -> dict[str, Any]:
        states = {key: optimizer.state_dict() for key, optimizer in self._optimizers().items()}
        return states if self.optimizers_key is None else {self.optimizers_key: states}

    def save_params(self, path: Path) -> list[Path]:
        """Writes each network to its file and ``state.pt`` (the optimisers' states, the scalars and
        `_state`) to ``path``; returns the files written."""
        scalars = {key: value.detach().clone() for key, value in self._scalars().items()}
        return save_modules(path, self._modules(), {**self._optimizer_states(), **scalars, **self._state()})

    def load_params(self, path: Path) -> None:
        """Reads what `save_params` wrote, every file checked before anything changes.

        Raises:
            FileNotFoundError: a file is missing (the message names it).
            ValueError: a file is corrupt or does not match this agent (the message names it).
            CheckpointError: a value of ``state.pt`` is out of range (the file and the key named).
        """
        optimizers = [self.optimizers_key] if self.optimizers_key is not None else list(self._optimizers())
        keys = [*optimizers, *self._scalars(), *self._state()]
        state = load_modules(path, self._modules(), self.name, self.device, keys, self._check_state)
        saved = state if self.optimizers_key is None else state[self.optimizers_key]
        for key, optimizer in self._optimizers().items():
            load_optimizer(optimizer, self._upgraded_optimizer_state(key, saved[key]))
        with torch.no_grad():
            for key, value in self._scalars().items():
                value.copy_(state[key])
        self._load_state(state)
