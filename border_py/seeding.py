"""The one place that seeds python, numpy and torch."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch


def seed_everything(seed: int) -> None:
    """Seeds python's ``random``, numpy's global RNG and torch (CPU and any GPU).

    Components of border_py take their own seeds (env, replay buffer, explorer); this covers what they do
    not own, such as network initialisation.
    """
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def global_rng_states() -> dict[str, Any]:
    """The states of python's ``random``, numpy's global RNG and torch's CPU RNG, for a checkpoint.

    Example:
        >>> state = global_rng_states(); a = random.random()
        >>> set_global_rng_states(state); random.random() == a
        True
    """
    return {
        "python": random.getstate(),
        "numpy": np.random.get_state(legacy=False),
        "torch": torch.random.get_rng_state(),
    }


def set_global_rng_states(state: Mapping[str, Any]) -> None:
    """Restores what :func:`global_rng_states` returned."""
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.random.set_rng_state(state["torch"])
