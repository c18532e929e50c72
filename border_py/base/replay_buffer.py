"""The two sides of a replay buffer: ``ExperienceBuffer`` (push) and ``ReplayBuffer`` (sample)."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from border_py.base.spaces import Spaces
from border_py.base.typevars import B_co, I_contra


class ExperienceBuffer(Protocol[I_contra]):
    """The push side, fed by the sampler:

    for item in step_processor.process(step):
        buffer.push(item)
    """

    def push(self, item: I_contra) -> None:
        """Stores one item (the oldest is dropped when the buffer is full)."""
        ...

    def __len__(self) -> int:
        """The number of items stored."""
        ...


class ReplayBuffer(Protocol[B_co]):
    """The sample side, read by an agent inside ``opt``:

    batch = buffer.batch(batch_size)
    td_errors = ...
    buffer.update_priority(batch.ix_sample, td_errors)
    """

    def batch(self, size: int) -> B_co:
        """Samples ``size`` items into one batch."""
        ...

    def update_priority(self, indices: npt.NDArray[np.int64], td_errors: npt.NDArray[np.float32]) -> None:
        """Updates the priorities of sampled items (a no-op for uniform sampling)."""
        ...

    def __len__(self) -> int:
        """The number of items stored."""
        ...


class TrainingBuffer(ExperienceBuffer[I_contra], ReplayBuffer[B_co], Protocol[I_contra, B_co]):
    """A buffer the trainer pushes items ``I`` into and an agent samples batches ``B`` from.

    The trainer saves it into a checkpoint directory when ``TrainerConfig.checkpoint_buffer`` asks, and
    loads it back on resume: contents, priorities and sampling RNG, so that resumed training samples the
    batches the uninterrupted run would have.
    """

    def save(self, path: Path) -> list[Path]:
        """Writes the buffer's whole state into the existing directory ``path``; returns the files."""
        ...

    def load(self, path: Path) -> None:
        """Reads what ``save`` wrote into ``path``, replacing the contents (unchanged on an error)."""
        ...


class DatasetBuffer(ReplayBuffer[B_co], Protocol[B_co]):
    """The sample side alone, over a fixed dataset (border's ``ReplayBufferBase`` without the push side):
    what an `OfflineTrainer` learns from.

    The trainer saves its sampling state (RNG, counters; not the data, which never changes) into each
    checkpoint and loads it back on resume, so that resumed training samples the batches the uninterrupted
    run would have.
    """

    def save(self, path: Path) -> list[Path]:
        """Writes the sampling state into the existing directory ``path``; returns the files."""
        ...

    def load(self, path: Path) -> None:
        """Reads what ``save`` wrote into ``path`` (unchanged on an error)."""
        ...


@runtime_checkable
class ObservesSpaces(Protocol):
    """A buffer that wants the training env's spaces before its first item (optional: the trainers tell
    a buffer that has the method, right after building it; `SimpleReplayBuffer` learns where a dict
    observation's image parts lie, to store them as uint8):

    buffer = replay_buffer_config.build(seed)
    if isinstance(buffer, ObservesSpaces):
        buffer.observe_spaces(env.spaces)
    """

    def observe_spaces(self, spaces: Spaces) -> None:
        """Takes the env's spaces (before any push or load)."""
        ...
