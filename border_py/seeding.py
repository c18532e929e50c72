"""Process-wide state, in one place: the seeds of python, numpy and torch, their RNG states for
checkpoints, and torch's thread count and denormal mode (`configure_torch`).

torch is imported by the first function that needs it: the run layer imports this module before it
takes a model directory's lock, and a run refused there (the directory is busy) needs no torch.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import torch


def seed_everything(seed: int) -> None:
    """Seeds python's ``random``, numpy's global RNG and torch (CPU and any GPU).

    Components of border_py take their own seeds (env, replay buffer, explorer); this covers what they do
    not own, such as network initialisation.
    """
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def configure_torch(threads: int) -> None:
    """Sets torch's thread count and flushes denormal floats to zero on the CPU.

    Denormals (magnitudes below 1.2e-38 in float32) appear in training, in Adam's moment estimates and the
    gradients of units that rarely fire, and every operation on one is many times slower. No value that
    small carries information for learning. The thread count is process-wide. The flush applies to the
    calling thread, which runs every kernel at 1 thread; with more threads, torch's worker threads may
    still compute with denormals. The library never calls this itself: call it when you drive a trainer.

    Raises:
        ValueError: ``threads`` < 1.
    """
    if threads < 1:
        raise ValueError(f"threads must be >= 1, got {threads}")
    import torch

    torch.set_num_threads(threads)
    torch.set_flush_denormal(True)


def global_rng_states() -> dict[str, Any]:
    """The states of python's ``random``, numpy's global RNG and torch's CPU RNG, as plain data and numpy
    arrays (what a checkpoint's JSON trainer state holds).

    Examples:
        >>> state = global_rng_states(); a = random.random()
        >>> set_global_rng_states(state); random.random() == a
        True
    """
    import torch

    version, internal, gauss = random.getstate()
    return {
        "python": [version, list(internal), gauss],
        "numpy": np.random.get_state(legacy=False),
        "torch": torch.random.get_rng_state().numpy(),
    }


def set_global_rng_states(state: Mapping[str, Any]) -> None:
    """Restores what `global_rng_states` returned.

    Raises:
        ValueError: ``state`` is not such a state (checked before anything changes).
    """
    import torch

    python, numpy_state, torch_state = _checked_rng_states(state)
    random.setstate(python)
    np.random.set_state(numpy_state)
    torch.random.set_rng_state(torch_state)


def check_rng_states(state: Mapping[str, Any]) -> None:
    """Checks that ``state`` is what `global_rng_states` returns, setting nothing (a resume checks its
    checkpoint's states before it writes anything, and sets them last).

    Raises:
        ValueError: it is not; the message says which part.
    """
    _checked_rng_states(state)


MT19937_WORDS = 624
"""The words of a Mersenne Twister's state: its position lies in [0, 624]."""


def _check_mt19937(state: Mapping[str, Any]) -> None:
    """numpy takes any position and key length it is given, and the next draw reads outside its state (a
    position of 10**9 is a segmentation fault): both are checked first."""
    inner = state.get("state")
    if state.get("bit_generator") != "MT19937" or not isinstance(inner, Mapping):
        raise ValueError(f"numpy's RNG state is not an MT19937 state: {sorted(state)}")
    key, pos = np.asarray(inner.get("key")), inner.get("pos")
    if key.shape != (MT19937_WORDS,) or key.dtype.kind not in "iu":
        raise ValueError(f"numpy's RNG key must be {MT19937_WORDS} whole numbers, got shape {key.shape}")
    if isinstance(pos, bool) or not isinstance(pos, int | np.integer) or not 0 <= pos <= MT19937_WORDS:
        raise ValueError(f"numpy's RNG position must be in [0, {MT19937_WORDS}], got {pos!r}")


def _checked_rng_states(state: Mapping[str, Any]) -> tuple[Any, dict[str, Any], torch.Tensor]:
    """Each RNG's state, validated on a fresh generator of its kind (the global ones untouched)."""
    import torch

    try:
        version, internal, gauss = state["python"]
        python = (int(version), tuple(int(v) for v in internal), gauss)
        torch_state = torch.from_numpy(np.asarray(state["torch"], dtype=np.uint8).copy())
        if torch_state.shape != torch.random.get_rng_state().shape:
            raise ValueError(f"torch's RNG state has shape {tuple(torch_state.shape)}")
        torch.Generator().set_state(torch_state)
        numpy_state = dict(state["numpy"])
        _check_mt19937(numpy_state)
        np.random.RandomState().set_state(numpy_state)
        random.Random().setstate(python)
    except (KeyError, TypeError, ValueError, OverflowError, RuntimeError) as exc:
        raise ValueError(f"not a saved set of RNG states: {exc!r}") from exc
    return python, numpy_state, torch_state
