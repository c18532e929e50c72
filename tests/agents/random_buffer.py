"""Replay buffers of random transitions for the agent tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from border_py import PerConfig, SimpleReplayBuffer, SimpleReplayBufferConfig, Transition

SampleAct = Callable[[np.random.Generator], npt.NDArray[Any]]


def two_actions(rng: np.random.Generator) -> npt.NDArray[Any]:
    """A discrete action in {0, 1}."""
    return np.array(rng.integers(2))


def four_normals(rng: np.random.Generator) -> npt.NDArray[Any]:
    """An observation of size 4 drawn from N(0, 1)."""
    return rng.normal(size=4).astype(np.float32)


def random_buffer(
    n: int,
    sample_act: SampleAct = two_actions,
    *,
    per: PerConfig | None = None,
    seed: int = 0,
    discount: float = 0.99,
    sample_obs: SampleAct = four_normals,
    **fields: Any,
) -> SimpleReplayBuffer:
    """A full buffer of ``n`` transitions: observations drawn by ``sample_obs`` (of size 4 from N(0, 1) by
    default), rewards from N(0, 1), one in ten terminated, none truncated. ``fields`` replace the drawn
    values (the draws still happen, so the rest stays the same)."""
    rng = np.random.default_rng(seed)
    buffer = SimpleReplayBufferConfig(capacity=max(n, 1), per=per).build(seed)
    for _ in range(n):
        values: dict[str, Any] = {
            "obs": sample_obs(rng),
            "act": sample_act(rng),
            "next_obs": sample_obs(rng),
            "reward": float(rng.normal()),
            "is_terminated": bool(rng.random() < 0.1),
            "is_truncated": False,
            "discount": discount,
        }
        buffer.push(Transition(**(values | fields)))
    return buffer
