"""An agent's parts, each declared once: what it is, where it is saved, what trains it.

An agent puts its parts in one frozen attrs record of its own (``self.parts``), built in its constructor:

    @attrs.frozen
    class SacParts:
        actor: Trained[GaussianActor]
        critic: Tracked[CriticEnsemble]
        log_alpha: Scalar

    with seeded(seed):                     # network initialisation from the agent's seed
        actor, critic = GaussianActor(...), CriticEnsemble(...)
    self.parts = SacParts(
        actor=Trained.adam(actor, "actor.pt", "actor_optimizer", config.actor_lr, device),
        critic=Tracked.adam_with_target(
            critic, "critic.pt", "critic_optimizer", config.critic_lr, device, "critic_tgt.pt"
        ),
        log_alpha=Scalar.adam("log_alpha", init, "alpha_optimizer", config.alpha_lr, device),
    )

`border_py.agents.torch_agent.TorchAgent` derives the rest from the record, once: the checkpoint files and
their names, the optimisers' and scalars' entries in ``state.pt``, the completeness check on loading. Each
part keeps its parameter list, made once (``module.parameters()`` walks the module tree on every call), and
a `Tracked` part its target network (a copy that takes no gradient, saved as itself) and the update that
moves it.

The kinds:

- `Trained`: a network and the optimiser that trains it.
- `Tracked`: a `Trained` network with a target copy, moved by Polyak averaging or copied (``tau = 1``).
- `Scalar`: a trained number (SAC's log-alpha) with its optimiser, kept in ``state.pt`` under its name, or
  in a `Saved` module's file when it is one of that module's parameters (``state_key=None``).
- `Saved`: a module that is saved and loaded but not trained by gradient (observation statistics).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

import attrs
import torch
from torch import nn

from border_py.agents.toolkit import adam, descend, gradient_step, update_target

__all__ = ["Part", "Saved", "Scalar", "Tracked", "Trained", "parts_of", "seeded"]

M = TypeVar("M", bound=nn.Module)
"""The network type of a part."""

MakeOptimizer = Callable[[Sequence[torch.Tensor], float], torch.optim.Optimizer]
"""An optimiser factory: ``(parameters, lr) -> optimiser`` (the default is the toolkit's fused `adam`)."""


@contextmanager
def seeded(seed: int) -> Iterator[None]:
    """Seeds torch's global generator for the block and puts it back after: networks built inside are
    initialised from ``seed`` alone, and the caller's random stream is left as it was.

    Examples:
        >>> with seeded(0):
        ...     a = torch.rand(1)
        >>> with seeded(0):
        ...     b = torch.rand(1)
        >>> bool(torch.equal(a, b))
        True
    """
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


@attrs.frozen(eq=False)
class Trained(Generic[M]):
    """A network trained by its own optimiser.

    Attributes:
        net: the network, on the agent's device.
        file: its file in a checkpoint (``actor.pt``).
        optimizer_key: its optimiser's key in ``state.pt`` (``actor_optimizer``).
        optimizer: the optimiser over `params`.
        params: ``list(net.parameters())``, made once.
    """

    net: M
    file: str
    optimizer_key: str
    optimizer: torch.optim.Optimizer
    params: list[torch.Tensor]

    @classmethod
    def adam(
        cls,
        net: M,
        file: str,
        optimizer_key: str,
        lr: float,
        device: torch.device,
        *,
        eps: float = 1e-8,
    ) -> Trained[M]:
        """``net`` moved to ``device`` and trained by the toolkit's fused Adam at ``lr``."""
        return cls.of(net, file, optimizer_key, device, lambda params: adam(params, lr, eps))

    @classmethod
    def of(
        cls,
        net: M,
        file: str,
        optimizer_key: str,
        device: torch.device,
        make: Callable[[list[torch.Tensor]], torch.optim.Optimizer],
    ) -> Trained[M]:
        """``net`` moved to ``device`` and trained by the optimiser ``make`` builds over its parameters
        (A2C's RMSprop)."""
        net = net.to(device)
        params: list[torch.Tensor] = list(net.parameters())
        return cls(net, file, optimizer_key, make(params), params)

    def step(self, loss: torch.Tensor, max_grad_norm: float | None = None) -> None:
        """One optimiser step on ``loss`` (gradients clipped to ``max_grad_norm``; ``None``: not clipped)."""
        descend(self.optimizer, loss, self.params, max_grad_norm)

    def step_with_norm(self, loss: torch.Tensor, max_grad_norm: float | None = None) -> float:
        """`step`, returning the gradients' global norm before clipping (for the record)."""
        return gradient_step(self.optimizer, loss, self.params, max_grad_norm)

    def set_lr(self, lr: float) -> None:
        """Sets the optimiser's learning rate (a schedule's value now)."""
        for group in self.optimizer.param_groups:
            group["lr"] = lr


@attrs.frozen(eq=False)
class Tracked(Trained[M]):
    """A `Trained` network with a target network: a copy made when the part is declared, which takes no
    gradient and is saved as itself (not as a copy of the online network).

    Attributes:
        target: the target network.
        target_file: its file in a checkpoint (``critic_tgt.pt``).
        target_params: ``list(target.parameters())``, made once.
    """

    target: M
    target_file: str
    target_params: list[torch.Tensor]

    @classmethod
    def adam_with_target(
        cls,
        net: M,
        file: str,
        optimizer_key: str,
        lr: float,
        device: torch.device,
        target_file: str,
        *,
        eps: float = 1e-8,
    ) -> Tracked[M]:
        """``net`` moved to ``device``, trained by the toolkit's fused Adam at ``lr``, and its target (a
        copy of it now) saved to ``target_file``."""
        t = Trained.adam(net, file, optimizer_key, lr, device, eps=eps)
        target = copy.deepcopy(t.net).requires_grad_(False)
        target_params: list[torch.Tensor] = list(target.parameters())
        return cls(t.net, file, optimizer_key, t.optimizer, t.params, target, target_file, target_params)

    def update_target(self, tau: float) -> None:
        """``target <- tau * net + (1 - tau) * target``; ``tau = 1`` copies. Call it after the optimiser's
        step, so the target follows the freshly updated network."""
        update_target(self.target_params, self.params, tau)


@attrs.frozen(eq=False)
class Scalar:
    """A trained number (a 0-d tensor) and its optimiser.

    Attributes:
        value: the tensor (``requires_grad`` when it is trained).
        state_key: its key in ``state.pt``; ``None`` when a `Saved` module's file holds it.
        optimizer_key: its optimiser's key in ``state.pt``.
        optimizer: the optimiser over ``[value]``.
    """

    value: torch.Tensor
    state_key: str | None
    optimizer_key: str
    optimizer: torch.optim.Optimizer

    @classmethod
    def adam(
        cls,
        state_key: str,
        init: float,
        optimizer_key: str,
        lr: float,
        device: torch.device,
        *,
        trained: bool = True,
    ) -> Scalar:
        """A new 0-d float32 tensor ``init`` on ``device`` (taking gradients when ``trained``), with the
        toolkit's fused Adam at ``lr``."""
        value = torch.tensor(init, device=device, requires_grad=trained)
        return cls(value, state_key, optimizer_key, adam([value], lr))

    @classmethod
    def adam_of(cls, value: torch.Tensor, optimizer_key: str, lr: float) -> Scalar:
        """A parameter of a `Saved` module (saved in its file), with the toolkit's fused Adam at ``lr``."""
        return cls(value, None, optimizer_key, adam([value], lr))

    def step(self, loss: torch.Tensor) -> None:
        """One optimiser step on ``loss``."""
        descend(self.optimizer, loss, [self.value])

    def exp(self) -> float:
        """``exp(value)``, as a number (an entropy coefficient from its log)."""
        return float(self.value.detach().exp())


@attrs.frozen(eq=False)
class Saved(Generic[M]):
    """A module saved and loaded with the agent, not trained by gradient (statistics, coefficients that
    `Scalar` parts train).

    Attributes:
        net: the module, on the agent's device.
        file: its file in a checkpoint (``normalizer.pt``).
    """

    net: M
    file: str

    @classmethod
    def on(cls, net: M, file: str, device: torch.device) -> Saved[M]:
        """``net`` moved to ``device``, saved to ``file``."""
        return cls(net.to(device), file)


Part = Trained[Any] | Scalar | Saved[Any]
"""What a parts record holds (a `Tracked` part is a `Trained` one)."""


def parts_of(record: object) -> list[Part]:
    """The parts of an agent's parts record, in its fields' order.

    Raises:
        TypeError: ``record`` is not an attrs record, or one of its fields is not a part.
    """
    cls = type(record)
    if not attrs.has(cls):
        raise TypeError(f"an agent's parts are an attrs record, not {cls.__name__}")
    found: list[Part] = []
    for field in attrs.fields(cls):
        value = getattr(record, field.name)
        if not isinstance(value, Trained | Scalar | Saved):
            raise TypeError(
                f"part {field.name!r} of {type(record).__name__} is a {type(value).__name__}, not a part"
            )
        found.append(value)
    return found
