"""The one place that seeds python, numpy and torch."""

from __future__ import annotations

import random

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
