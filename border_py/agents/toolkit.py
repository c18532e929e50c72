"""The toolkit a new agent's arithmetic is built from: train/eval mode, networks, optimiser steps, target
updates and checkpoint files. Every agent of border_py uses it, under `border_py.agents.torch_agent`'s
base, which saves, loads and acts for them from the parts the agent declares once
(`border_py.agents.parts`: a `Trained` part's ``step`` is `descend` over its parameters, a `Tracked`
part's ``update_target`` is `update_target`). The functions take any sequence of tensors, so
``list(net.parameters())`` or a part's ``params`` both fit:

    loss = td_loss(q_taken, target)
    grad_norm = gradient_step(optimizer, loss, params, max_grad_norm=10.0)
    update_target(target_params, params, tau=0.005)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import cast

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

# The checkpoint files, the device validator (torch-free, for the configs) and the critic ensemble are
# their own modules; the toolkit offers them with the rest.
from border_py.agents.checkpoint_files import load_modules as load_modules
from border_py.agents.checkpoint_files import load_optimizer as load_optimizer
from border_py.agents.checkpoint_files import load_state_arrays as load_state_arrays
from border_py.agents.checkpoint_files import save_modules as save_modules
from border_py.agents.checkpoint_files import saved_count as saved_count
from border_py.agents.checkpoint_files import state_arrays as state_arrays
from border_py.agents.devices import DEVICE_TYPES
from border_py.agents.devices import device_name as device_name
from border_py.agents.ensemble import CriticEnsemble as CriticEnsemble
from border_py.numpy_mlp import Mlp

__all__ = [
    "CriticEnsemble",
    "NumpyMlp",
    "TrainEvalMode",
    "adam",
    "clip_grad_norm",
    "descend",
    "device_name",
    "frozen",
    "gradient_step",
    "load_modules",
    "load_optimizer",
    "load_state_arrays",
    "mlp",
    "save_modules",
    "saved_count",
    "state_arrays",
    "torch_device",
    "update_target",
    "zero_grad",
]


class TrainEvalMode:
    """``train()``, ``eval()`` and ``is_train()`` of the `Agent` protocol.

    An agent starts in train mode; its ``sample`` reads ``self._train`` to explore or act greedily.
    """

    _train: bool = True

    def train(self) -> None:
        """Train mode: ``sample`` explores."""
        self._train = True

    def eval(self) -> None:
        """Eval mode: ``sample`` is greedy and deterministic."""
        self._train = False

    def is_train(self) -> bool:
        """Whether the agent is in train mode."""
        return self._train


def torch_device(name: str) -> torch.device:
    """The torch device ``name`` (``cpu``, ``cuda``, ``cuda:1``), checked to exist on this machine.

    Raises:
        ValueError: ``name`` is not a device, or names a CUDA device this machine does not have.

    Examples:
        >>> torch_device("cpu")
        device(type='cpu')
    """
    try:
        device = torch.device(name)
    except RuntimeError as exc:
        raise ValueError(f"device {name!r} is not a torch device: {exc}") from exc
    if device.type not in DEVICE_TYPES:
        raise ValueError(f"device {name!r}: border_py's agents run on 'cpu' and 'cuda' (or 'cuda:N') only")
    if device.type == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if count == 0:
            raise ValueError(f"device {name!r}: CUDA is not available on this machine (use 'cpu')")
        if device.index is not None and device.index >= count:
            raise ValueError(f"device {name!r}: this machine has {count} CUDA device(s), 0 to {count - 1}")
    return device


def mlp(
    in_dim: int, out_dim: int, hidden: Sequence[int], norm: Callable[[int], nn.Module] | None = None
) -> nn.Sequential:
    """A ReLU MLP ``in_dim -> hidden[0] -> ... -> out_dim`` with a linear output layer; with ``norm``, a
    normalisation ``norm(width)`` of its input and after each hidden activation (CrossQ's batch
    renormalisation, SBX's placement), with the same draws of the linear layers.

    Examples:
        >>> mlp(4, 2, (64, 64))[0]
        Linear(in_features=4, out_features=64, bias=True)
        >>> [type(m).__name__ for m in mlp(4, 2, (8,), norm=nn.LayerNorm)]
        ['LayerNorm', 'Linear', 'ReLU', 'LayerNorm', 'Linear']
    """
    if in_dim < 1 or out_dim < 1 or any(h < 1 for h in hidden):
        raise ValueError(f"mlp sizes must be >= 1, got in {in_dim}, hidden {tuple(hidden)}, out {out_dim}")
    layers: list[nn.Module] = [] if norm is None else [norm(in_dim)]
    last = in_dim
    for width in hidden:
        layers += [nn.Linear(last, width), nn.ReLU()]
        if norm is not None:
            layers.append(norm(width))
        last = width
    layers.append(nn.Linear(last, out_dim))
    return nn.Sequential(*layers)


class NumpyMlp:
    """The forward pass of a ReLU `mlp` in numpy, over views of its torch parameters.

    The views share the parameters' memory, so every in-place change (the optimiser's step,
    ``load_state_dict``) is seen at once: an action always comes from the current parameters, with no
    refresh to forget. A parameter whose storage was replaced (``module.to(...)``) is noticed at the next
    call and the views are taken again. A batch-1 forward of a small MLP on the CPU is mostly torch's
    per-call overhead, which this skips (see benchmarks/RESULTS.md, issue 38).

    Args:
        module: an `mlp` (``Linear``, ``ReLU``, ..., ``Linear``) with float32 parameters on the CPU.

    Raises:
        ValueError: ``module`` is not such an MLP.

    Examples:
        >>> net = mlp(4, 2, (8,))
        >>> with torch.no_grad():
        ...     expected = net(torch.ones(1, 4)).numpy()
        >>> bool(np.allclose(NumpyMlp(net)(np.ones((1, 4), np.float32)), expected, atol=1e-6))
        True
    """

    def __init__(self, module: nn.Sequential) -> None:
        kinds = [type(layer) for layer in module]
        expected = [nn.Linear if i % 2 == 0 else nn.ReLU for i in range(len(kinds))]
        params = list(module.parameters())
        if kinds != expected or len(kinds) % 2 == 0 or any(p.device.type != "cpu" for p in params):
            raise ValueError(f"NumpyMlp needs an mlp (Linear, ReLU, ..., Linear) on the CPU, got {kinds}")
        if any(p.dtype != torch.float32 for p in params):
            raise ValueError("NumpyMlp needs float32 parameters")
        self._linears = [layer for layer in module if isinstance(layer, nn.Linear)]
        # Each layer's own parameter dict, read on every call instead of ``layer.weight`` (nn.Module's
        # __getattr__, several times slower): a parameter replaced in the module, not only one whose
        # storage was replaced, shows as a new pointer. cast: torch types the dict's values as optional;
        # an mlp's Linear layers have both.
        self._slots = [
            (cast("dict[str, torch.Tensor]", layer._parameters), name)
            for layer in self._linears
            for name in ("weight", "bias")
        ]
        self._take_views()

    def _take_views(self) -> None:
        self._pointers = self._storage()
        views = [(layer.weight.detach().numpy().T, layer.bias.detach().numpy()) for layer in self._linears]
        self._forward = Mlp(views, relu_out=False)  # the exporter's numpy MLP, over shared memory

    def _storage(self) -> list[int]:
        return [params[name].data_ptr() for params, name in self._slots]

    def __call__(self, x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """The outputs ``(n, out_dim)`` for the inputs ``x`` ``(n, in_dim)``."""
        if self._storage() != self._pointers:
            self._take_views()
        return self._forward(x)


@contextmanager
def frozen(parameters: Sequence[torch.Tensor]) -> Iterator[None]:
    """Holds ``parameters`` fixed for the block (no gradient is computed for them), as an actor's step does
    with the critics it climbs; they take gradients again after it.

    Examples:
        >>> w = torch.ones(1, requires_grad=True)
        >>> with frozen([w]):
        ...     w.requires_grad
        False
        >>> w.requires_grad
        True
    """
    for p in parameters:
        p.requires_grad_(False)
    try:
        yield
    finally:
        for p in parameters:
            p.requires_grad_(True)


@torch.no_grad()
def update_target(target: Sequence[torch.Tensor], online: Sequence[torch.Tensor], tau: float) -> None:
    """``target <- tau * online + (1 - tau) * target`` tensor by tensor; ``tau = 1`` is a hard copy.

    Takes parameter lists made once (``list(module.parameters())``): walking the modules and looping over
    the parameters cost more than the arithmetic for small networks, so this is one multi-tensor
    (``_foreach``) kernel.

    Examples:
        >>> a, b = nn.Linear(1, 1), nn.Linear(1, 1)
        >>> update_target(list(a.parameters()), list(b.parameters()), 1.0)
        >>> bool(torch.equal(a.weight, b.weight))
        True
    """
    if len(target) != len(online):
        raise ValueError(f"the target has {len(target)} tensors, the online network {len(online)}")
    if tau == 1.0:
        torch._foreach_copy_(_tensor_list(target), _tensor_list(online))
    else:
        torch._foreach_lerp_(_tensor_list(target), _tensor_list(online), tau)


def _tensor_list(tensors: Sequence[torch.Tensor]) -> list[torch.Tensor] | tuple[torch.Tensor, ...]:
    """``tensors`` as the ``_foreach`` kernels take them: a list or tuple as it is (a part's parameter
    list, on every update: no copy), any other sequence as a new list."""
    return tensors if isinstance(tensors, list | tuple) else list(tensors)


def adam(
    parameters: Iterable[torch.Tensor],
    lr: float,
    eps: float = 1e-8,
    betas: tuple[float, float] = (0.9, 0.999),
) -> torch.optim.Adam:
    """Adam with the fused kernel: the same update as the default implementation, in one kernel over all
    parameters instead of about ten small ops per parameter (``benchmarks/RESULTS.md`` has the speed-up).
    ``betas`` are torch's and Adam's defaults (CrossQ's are ``(0.5, 0.999)``)."""
    return torch.optim.Adam(parameters, lr=lr, eps=eps, betas=betas, fused=True)


def zero_grad(parameters: Sequence[torch.Tensor]) -> None:
    """``optimizer.zero_grad(set_to_none=True)`` for the optimiser of ``parameters``, without its wrapper
    (a dynamo guard that costs more than the loop on a small network)."""
    for p in parameters:
        p.grad = None


@torch.no_grad()
def clip_grad_norm(parameters: Sequence[torch.Tensor], max_norm: float | None) -> torch.Tensor:
    """The global L2 norm of the gradients of ``parameters``; scales them to at most ``max_norm`` (``None``:
    no clipping).

    The arithmetic of ``torch.nn.utils.clip_grad_norm_`` (per-tensor norms, their norm, the coefficient
    ``max_norm / (norm + 1e-6)`` clamped at 1) without its device grouping and wrappers, which cost more
    than the kernels for a small MLP.

    Examples:
        >>> w = torch.zeros(2, requires_grad=True); w.grad = torch.tensor([3.0, 4.0])
        >>> float(clip_grad_norm([w], 1.0)), [round(g, 3) for g in w.grad.tolist()]
        (5.0, [0.6, 0.8])
    """
    grads = [p.grad for p in parameters if p.grad is not None]
    norm: torch.Tensor = torch.linalg.vector_norm(torch.stack(torch._foreach_norm(grads)))
    if max_norm is not None:
        torch._foreach_mul_(grads, torch.clamp(max_norm / (norm + 1e-6), max=1.0))
    return norm


def gradient_step(
    optimizer: torch.optim.Optimizer,
    loss: torch.Tensor,
    parameters: Sequence[torch.Tensor],
    max_grad_norm: float | None,
) -> float:
    """One optimiser step on ``loss``: zero the gradients, backpropagate, clip their global L2 norm to
    ``max_grad_norm`` (``None``: no clipping) and step. Returns the norm before clipping, for the record.

    ``parameters`` are the optimiser's parameters, as a list made once (``module.parameters()`` walks the
    module tree on every call). The norm is computed even without clipping; an agent that does not record
    it uses `descend`.
    """
    zero_grad(parameters)
    loss.backward()
    grad_norm = clip_grad_norm(parameters, max_grad_norm)
    optimizer.step()
    return float(grad_norm)


def descend(
    optimizer: torch.optim.Optimizer,
    loss: torch.Tensor,
    parameters: Sequence[torch.Tensor],
    max_grad_norm: float | None = None,
) -> None:
    """`gradient_step` for an agent that records no gradient norm: the norm is computed only to clip
    (``benchmarks/RESULTS.md`` has what the norm costs).

    Examples:
        >>> w = torch.ones(1, requires_grad=True)
        >>> descend(torch.optim.SGD([w], lr=0.5), (2.0 * w).sum(), [w]); w.tolist()
        [0.0]
    """
    zero_grad(parameters)
    loss.backward()
    if max_grad_norm is not None:
        clip_grad_norm(parameters, max_grad_norm)
    optimizer.step()
