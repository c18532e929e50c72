"""The components of the pairing cases, which mypy (``tests/typing/batch_pairing.py``) and the run layer's
check (``tests/unit/test_pairing.py``) must judge alike: subclasses of the items and batches, buffers
storing or sampling them, and agents learning from a subclass, a base class or a ``Protocol``.

Each config is an attrs class with ``build``, so an experiment file can name it by import path
(``type: tests.pairing_cases:LikeAgentConfig``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import attrs
import numpy as np
import numpy.typing as npt
import torch

from border_py import (
    NStepStepProcessorConfig,
    Record,
    ReplayBuffer,
    SimpleReplayBuffer,
    SimpleReplayBufferConfig,
    Step,
    Transition,
    TransitionBatch,
    TransitionBatchLike,
)
from border_py.base import Spaces
from border_py.envs import Act, Obs

# --- items ----------------------------------------------------------------------------------------------


@attrs.frozen(kw_only=True, eq=False, slots=False)
class TaggedTransition(Transition):
    """A subclass of `Transition`."""

    tag: int = 0


class TaggedProcessor:
    """Emits `TaggedTransition` s (one-step transitions, tagged 1)."""

    def __init__(self) -> None:
        self.inner = NStepStepProcessorConfig(n_steps=1).build()

    def reset(self, init_obs: Obs) -> None:
        self.inner.reset(init_obs)

    def process(self, step: Step[Obs, Act]) -> list[TaggedTransition]:
        return [TaggedTransition(**attrs.asdict(t, recurse=False), tag=1) for t in self.inner.process(step)]


@attrs.frozen
class TaggedProcessorConfig:
    def build(self) -> TaggedProcessor:
        return TaggedProcessor()


class TaggedStore:
    """Stores `TaggedTransition` s only (samples plain `TransitionBatch` es)."""

    def __init__(self, seed: int) -> None:
        self.inner = SimpleReplayBufferConfig().build(seed)

    def push(self, item: TaggedTransition) -> None:
        self.inner.push(item)

    def batch(self, size: int) -> TransitionBatch:
        return self.inner.batch(size)

    def update_priority(self, indices: npt.NDArray[np.int64], td_errors: npt.NDArray[np.float32]) -> None:
        self.inner.update_priority(indices, td_errors)

    def __len__(self) -> int:
        return len(self.inner)

    def save(self, path: Path) -> list[Path]:
        return self.inner.save(path)

    def load(self, path: Path) -> None:
        self.inner.load(path)


@attrs.frozen
class TaggedStoreConfig:
    def build(self, seed: int) -> TaggedStore:
        return TaggedStore(seed)


# --- batches --------------------------------------------------------------------------------------------


@attrs.frozen(kw_only=True, eq=False)
class TaggedBatch(TransitionBatch):
    """A subclass of `TransitionBatch`."""

    tag: int = 0


class TaggedBuffer(SimpleReplayBuffer):
    """Samples `TaggedBatch` es."""

    def batch(self, size: int) -> TaggedBatch:
        return TaggedBatch(**attrs.asdict(super().batch(size), recurse=False), tag=1)


@attrs.frozen
class TaggedBufferConfig:
    def build(self, seed: int) -> TaggedBuffer:
        return TaggedBuffer(SimpleReplayBufferConfig(), seed)


@attrs.frozen(kw_only=True, eq=False)
class FloatRewardBatch:
    """`TransitionBatchLike`'s members, but ``reward`` is a float: not one."""

    obs: torch.Tensor
    act: torch.Tensor
    next_obs: torch.Tensor
    reward: float
    is_terminated: torch.Tensor
    is_truncated: torch.Tensor
    discount: torch.Tensor
    ix_sample: npt.NDArray[np.int64]
    weight: torch.Tensor | None = None

    def to(self, device: torch.device) -> FloatRewardBatch:
        return self


class HasReturns(Protocol):
    """A batch with Monte Carlo returns, which `TransitionBatch` lacks."""

    @property
    def obs(self) -> torch.Tensor: ...

    @property
    def returns(self) -> torch.Tensor: ...


class IntRewards(Protocol):
    """A batch whose rewards are one ``int`` (`TransitionBatch`'s are a tensor)."""

    @property
    def reward(self) -> int: ...


# --- agents ---------------------------------------------------------------------------------------------


class Greedy:
    """Everything of an agent but ``opt``: always action 0, nothing saved."""

    def train(self) -> None: ...

    def eval(self) -> None: ...

    def is_train(self) -> bool:
        return True

    def sample(self, obs: Obs) -> Act:
        return np.zeros((), dtype=np.int64)

    def save_params(self, path: Path) -> list[Path]:
        return []

    def load_params(self, path: Path) -> None: ...


class LikeAgent(Greedy):
    """Learns from any batch with `TransitionBatchLike`'s fields."""

    def opt(self, buffer: ReplayBuffer[TransitionBatchLike]) -> Record | None:
        batch = buffer.batch(2).to(torch.device("cpu"))
        return Record({"train/reward": float(batch.reward.mean())})


class BaseAgent(Greedy):
    """Learns from `TransitionBatch` es."""

    def opt(self, buffer: ReplayBuffer[TransitionBatch]) -> Record | None:
        return Record({"train/reward": float(buffer.batch(2).reward.mean())})


class TaggedAgent(Greedy):
    """Learns from `TaggedBatch` es only."""

    def opt(self, buffer: ReplayBuffer[TaggedBatch]) -> Record | None:
        return Record({"train/tag": buffer.batch(2).tag})


class ReturnsAgent(Greedy):
    """Learns from batches with returns (`HasReturns`)."""

    def opt(self, buffer: ReplayBuffer[HasReturns]) -> Record | None:
        return Record({"train/return": float(buffer.batch(2).returns.mean())})


class IntRewardsAgent(Greedy):
    """Learns from batches whose rewards are one ``int`` (`IntRewards`)."""

    def opt(self, buffer: ReplayBuffer[IntRewards]) -> Record | None:
        return Record({"train/reward": buffer.batch(2).reward})


@attrs.frozen
class LikeAgentConfig:
    def build(self, spaces: Spaces, seed: int) -> LikeAgent:
        return LikeAgent()


@attrs.frozen
class ReturnsAgentConfig:
    def build(self, spaces: Spaces, seed: int) -> ReturnsAgent:
        return ReturnsAgent()
