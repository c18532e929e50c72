"""Checkpoint files of an agent's networks and optimisers: writing them, and reading them back with every
failure named (a missing file, a corrupt or hostile one, a network that does not match). Part of
`border_py.agents.toolkit`, which re-exports these functions."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from border_py.checkpoint import CheckpointError, open_saved

MAX_COUNT = 2**63 - 1
"""The largest counter ``state.pt`` may hold (what an int64 counter holds)."""


def saved_count(value: Any, key: str) -> int:
    """``value``, a counter read from ``state.pt`` under ``key`` (``opt_steps``, ``explorer.n_steps``).

    Raises:
        ValueError: it is not a whole number in [0, 2**63 - 1] (naming ``key``).
    """
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
        raise ValueError(f"{key} must be a whole number in [0, 2**63 - 1], got {value!r:.60}")
    return value


def check_generator_state(generator: torch.Generator, state: Any, key: str) -> None:
    """Refuses a saved state ``restore_generator`` would fail on, ``generator`` untouched: a state of
    ``generator``'s own size is tried on a fresh generator of its device (torch validates it there);
    another device's state (a CUDA one is 16 bytes) is kept out of it anyway.

    Raises:
        ValueError: ``state`` is not a 1-d uint8 tensor, or torch refuses it (naming ``key``).
    """
    expected = f"{key} must be a generator state (a 1-d uint8 tensor)"
    if not isinstance(state, torch.Tensor):
        raise ValueError(f"{expected}, got {state!r:.60}")
    if state.dtype != torch.uint8 or state.dim() != 1:
        raise ValueError(f"{expected}, got {state.dtype} of shape {tuple(state.shape)}")
    if state.numel() == generator.get_state().numel():
        try:
            torch.Generator(generator.device).set_state(state.cpu())
        except RuntimeError as exc:
            raise ValueError(f"{key} is not a state torch's generator takes: {exc}") from exc


def load_optimizer(optimizer: torch.optim.Optimizer, state: dict[str, Any]) -> None:
    """``optimizer.load_state_dict(state)``, keeping the optimiser's own ``fused``/``foreach`` choice:
    ``load_state_dict`` takes them from the saved state, so a state saved by a default Adam would
    silently switch the fused kernel off. Only the keys the optimiser has are kept (RMSprop has no
    ``fused``)."""
    kernels: list[dict[str, Any]] = [
        {k: g[k] for k in ("fused", "foreach") if k in g} for g in optimizer.param_groups
    ]
    optimizer.load_state_dict(state)
    for group, kernel in zip(optimizer.param_groups, kernels, strict=True):
        group.update(kernel)


def save_modules(path: Path, modules: Mapping[str, nn.Module], extra: Mapping[str, Any]) -> list[Path]:
    """Writes each module's state dict to ``path/<name>`` and ``extra`` (optimiser states, counters) to
    ``path/state.pt``; returns the files written."""
    files = []
    for name, module in modules.items():
        torch.save(module.state_dict(), path / name)
        files.append(path / name)
    torch.save(dict(extra), path / "state.pt")
    files.append(path / "state.pt")
    return files


def load_modules(
    path: Path,
    modules: Mapping[str, nn.Module],
    agent: str,
    device: torch.device,
    extra_keys: Iterable[str] = (),
    check_extra: Callable[[dict[str, Any]], None] = lambda extra: None,
) -> dict[str, Any]:
    """Reads what `save_modules` wrote into ``modules``; returns the ``extra`` mapping.

    Every file is read and checked (keys and shapes, that ``state.pt`` holds ``extra_keys``, and
    ``check_extra`` of its values, which raises a `ValueError` naming the key) before any module is
    changed, so a bad file leaves the modules as they were.

    Raises:
        FileNotFoundError: a file is missing (the message names it).
        ValueError: a file is unreadable or does not match the module it is loaded into (the message names
            the file).
        CheckpointError: a file holds a NaN or an infinity in a floating tensor (the message names the file
            and the tensor), or ``check_extra`` refused a value of ``state.pt`` (the file and the key).
    """
    for name in [*modules, "state.pt"]:
        if not (path / name).is_file():
            raise FileNotFoundError(f"{path / name} not found: not a saved {agent} model directory")

    def read(file: Path) -> Any:
        try:
            with open_saved(file) as handle, warnings.catch_warnings():
                warnings.simplefilter(
                    "ignore"
                )  # torch's asides on an odd file; what is wrong is raised below
                return torch.load(handle, map_location=device, weights_only=True)
        except CheckpointError:
            raise
        except Exception as exc:  # torch raises several types for a corrupt or truncated file
            raise ValueError(f"{file} is not a readable checkpoint file: {_load_error(file, exc)}") from exc

    states = {name: upgraded(module, read(path / name)) for name, module in modules.items()}
    extra = read(path / "state.pt")
    if not isinstance(extra, dict):
        raise ValueError(f"{path / 'state.pt'} does not hold a {agent} training state")
    missing = sorted(set(extra_keys) - extra.keys())
    if missing:
        raise ValueError(f"{path / 'state.pt'} does not match this {agent}: it lacks {missing}")
    for name, module in modules.items():
        _check_matches(path / name, states[name], module, agent)
    for file, state in [*((path / name, states[name]) for name in modules), (path / "state.pt", extra)]:
        _check_finite(file, state)
    try:
        check_extra(extra)
    except ValueError as exc:
        raise CheckpointError(f"{path / 'state.pt'}: {exc}") from exc
    for name, module in modules.items():
        module.load_state_dict(states[name])
    return extra


def upgraded(module: nn.Module, state: Any) -> Any:
    """``state`` in ``module``'s layout: a module whose layout changed (`CriticEnsemble`) maps a state dict
    of its former layout onto its own with ``upgrade_state_dict``; any other state is returned as read."""
    upgrade = getattr(module, "upgrade_state_dict", None)
    return upgrade(state) if callable(upgrade) and isinstance(state, dict) else state


def state_arrays(module: nn.Module) -> dict[str, np.ndarray]:
    """A module's state dict as numpy arrays (copies on the CPU): plain data that pickles anywhere, for an
    agent's `acting_state`."""
    return {k: v.detach().cpu().numpy().copy() for k, v in module.state_dict().items()}


def load_state_arrays(module: nn.Module, arrays: Mapping[str, Any], agent: str) -> None:
    """Loads `state_arrays`' output into ``module`` (on its device), after checking every key and
    shape.

    Raises:
        ValueError: the arrays are not this module's (the message names the first key that differs).
    """
    device = next(module.parameters()).device
    state = {k: torch.as_tensor(np.array(v), device=device) for k, v in arrays.items()}  # a writable copy
    _check_matches(Path("the acting state"), state, module, agent)
    module.load_state_dict(state)


def _check_matches(file: Path, state: Any, module: nn.Module, agent: str) -> None:
    expected = module.state_dict()
    if not isinstance(state, dict):
        raise ValueError(f"{file} does not hold a state dict")
    if state.keys() != expected.keys():
        missing, unexpected = sorted(expected.keys() - state.keys()), sorted(state.keys() - expected.keys())
        raise ValueError(
            f"{file} does not match this {agent}'s network: missing {missing}, unexpected {unexpected}"
        )
    for key, value in expected.items():
        if not isinstance(state[key], torch.Tensor) or state[key].shape != value.shape:
            shape = tuple(state[key].shape) if hasattr(state[key], "shape") else type(state[key]).__name__
            raise ValueError(
                f"{file} does not match this {agent}'s network: {key} has shape {shape}, "
                f"the network's is {tuple(value.shape)}"
            )


def _check_finite(file: Path, state: Any) -> None:
    """Refuses a file holding a floating tensor with a NaN or an infinity (weights, optimiser moments):
    torch loads such a file without a word, and the agent would then act and learn on NaN. Walked with a
    stack and a set of containers seen, not recursion: a hostile pickle may nest its containers deeper
    than Python's recursion limit, or put a list inside itself."""
    pending: list[tuple[str, Any]] = [("", state)]
    seen: set[int] = set()
    while pending:
        key, value = pending.pop()
        if isinstance(value, torch.Tensor):
            finite = torch.isfinite(value) if value.is_floating_point() else None
            if finite is not None and not bool(finite.all()):
                raise CheckpointError(
                    f"{file}: the tensor {key or '(the whole file)'} holds {int((~finite).sum())} non-finite "
                    f"values (NaN or infinity) of {value.numel()}: the run diverged before this save; load "
                    "an earlier one"
                )
        elif isinstance(value, Mapping | list | tuple) and id(value) not in seen:
            seen.add(id(value))
            items = list(value.items() if isinstance(value, Mapping) else enumerate(value))
            pending.extend(
                (f"{key}.{k}" if key else str(k), v) for k, v in reversed(items)
            )  # first named first


def _load_error(file: Path, exc: Exception) -> str:
    """What was found in a file ``torch.load`` refused, said plainly. torch's own message for a file that
    is not plain tensors advises loading it with ``weights_only=False``, which would run whatever code the
    file holds: that advice is never passed on."""
    text = str(exc)
    blocked = re.search(r"unsupported GLOBAL (\S+)", text)
    if blocked:
        return f"it holds a Python object ({blocked[1]}) besides tensors, never loaded: it could run code"
    try:
        with file.open("rb") as f:
            head = f.read(4)
    except OSError as read_error:
        return f"it cannot be read: {read_error}"
    if not head:
        return "the file is empty (0 bytes)"
    if head == b"PK\x03\x04":
        first = text.split(". ")[0].strip() or type(exc).__name__
        return f"it is a damaged torch archive (truncated or corrupt: {first})"
    if head[:1] != b"\x80":
        return f"it is not a torch file (neither a zip archive nor a pickle: it starts with {head!r})"
    operand = re.search(r"Unsupported operand \d+", text)
    detail = operand[0] if operand else (text.splitlines()[0] if text else type(exc).__name__)
    return f"it is a pickle of something other than plain tensors ({detail}), never loaded"
