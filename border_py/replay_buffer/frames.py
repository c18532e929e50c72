"""``FrameReplayBuffer``: a replay buffer of frame-stacked pixel observations that stores each frame once.

A stack of 4 frames stored as its own ``obs`` and ``next_obs`` costs 8 frames per transition (border's
layout: 56 GB for 1e6 Atari transitions). Here a transition is one slot: the newest frame of its ``obs``,
its action, reward, discount and flags, how far back its episode started (up to ``stack - 1`` frames) and
how many slots ahead its ``next_obs`` is. An ended episode adds one slot for its final frame. So a
transition costs one frame plus a few bytes, plus one frame per episode; the stacks are rebuilt by
`FrameReplayBuffer.batch` with one gather.
"""

from __future__ import annotations

import math
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
import numpy.typing as npt

from border_py.base.spaces import Spaces
from border_py.replay_buffer.frame_file import load_frame_buffer, save_frame_buffer
from border_py.replay_buffer.simple import BUFFER_FILE, PerConfig
from border_py.replay_buffer.sum_tree import SumTree
from border_py.replay_buffer.transition import FrameTransition, TransitionBatch

if TYPE_CHECKING:
    import torch

_FLOAT32_MAX = float(np.finfo(np.float32).max)


@attrs.frozen(kw_only=True)
class FrameReplayBufferConfig:
    """Config of `FrameReplayBuffer`.

    Examples:
        >>> FrameReplayBufferConfig(capacity=1000, stack=4).build(seed=0).capacity
        1000
    """

    capacity: int = attrs.field(default=1_000_000, validator=attrs.validators.gt(0))
    """In slots (about one per transition, one more per ended episode): the most the ring holds."""
    stack: int = attrs.field(default=4, validator=[attrs.validators.ge(1), attrs.validators.le(255)])
    """In frames: how many frames make one observation (the env's frame stack)."""
    per: PerConfig | None = None
    """Prioritized replay settings; ``None`` samples uniformly."""
    streams: int = attrs.field(default=1, validator=attrs.validators.gt(0))
    """How many sub-envs push (a vector env's ``num_envs``): each gets a lane of ``capacity / streams``
    slots, since their items interleave; an item names its lane (``FrameTransition.stream``)."""

    def __attrs_post_init__(self) -> None:
        if self.capacity % self.streams:
            raise ValueError(f"'capacity' ({self.capacity}) must be a multiple of 'streams' ({self.streams})")

    def build(self, seed: int) -> FrameReplayBuffer:
        """Builds an empty buffer whose sampling is seeded with ``seed``."""
        return FrameReplayBuffer(self, seed)

    def full_nbytes(self, spaces: Spaces) -> int:
        """The bytes the buffer holds once full for an env of ``spaces`` (observations of ``stack``
        frames): a uint8 frame a slot (and the padding one), and each slot's action, four scalars and three
        bytes of bookkeeping (the sum tree's too)."""
        cap, tree = self.capacity, 0 if self.per is None else SumTree.nbytes_for(self.capacity)
        act = 8 if spaces.n_actions is not None else 4 * spaces.action_dim
        return (cap + 1) * (math.prod(spaces.obs_shape) // self.stack) + cap * (act + 4 * 4 + 3) + tree


class FrameReplayBuffer:
    """A ring of frames that samples `TransitionBatch` es of uint8 stacks
    ``(batch, stack, height, width)``.

    With ``streams`` > 1 (a vector env), each sub-env's items go to a lane of their own, where they are in
    order, as one env's are. A slot becomes sampleable once the frame of its ``next_obs`` is stored (n-step
    items wait for the observation ``n`` steps ahead; an ended episode's last items for its final frame) and
    stops being so when the ring overwrites a frame its stacks need. ``len`` counts the sampleable
    transitions; sampling (uniform, or prioritized over the sampleable slots only) draws from them with the
    buffer's own seeded generator. A stack never holds a frame of another episode: the frames before an
    episode's first observation are zeros, as the `FrameStackStepProcessor`
    checked the env shows them.

    Args:
        config: capacity, stack size and prioritized-replay settings.
        seed: the seed of the sampling RNG.

    Examples:
        >>> from border_py.replay_buffer.transition import FrameTransition
        >>> buffer = FrameReplayBufferConfig(capacity=8, stack=2).build(seed=0)
        >>> f = np.ones((3, 3), np.uint8)
        >>> buffer.push(FrameTransition(frame=f, act=np.array(1), reward=1.0, is_terminated=True,
        ...     is_truncated=False, discount=0.99, episode_start=True, next_offset=1, final_frame=2 * f))
        >>> batch = buffer.batch(1)
        >>> batch.obs[0, :, 0, 0].tolist(), batch.next_obs[0, :, 0, 0].tolist()
        ([0, 1], [1, 2])
    """

    def __init__(self, config: FrameReplayBufferConfig, seed: int) -> None:
        self.config = config
        self._rng = np.random.default_rng(seed)
        self._tree = SumTree(config.capacity) if config.per is not None else None
        self._max_priority = 1.0
        self._n_batches = 0
        self._lane = config.capacity // config.streams
        # Per lane: slots written so far (slot ``a`` of lane ``s`` is row ``s * lane + a % lane``), the
        # slot of the current episode's first observation, and (slot, slot of its next_obs) of the items
        # waiting for their next observation's frame, oldest first.
        self._heads = [0] * config.streams
        self._episode_starts = [0] * config.streams
        self._pending: list[deque[tuple[int, int]]] = [deque() for _ in range(config.streams)]
        self._n_valid = 0
        # Allocated from the first item: frames has one more row, all zeros, that padding reads from.
        self._frames: npt.NDArray[np.uint8] | None = None
        self._act: npt.NDArray[Any] | None = None
        cap = config.capacity
        self._scalars = np.zeros((cap, 4), np.float32)
        self._back = np.zeros(cap, np.uint8)  # frames back to the episode start, at most stack - 1
        self._offset = np.zeros(cap, np.uint8)  # slots ahead to next_obs; 0 for a final frame's slot
        self._valid = np.zeros(cap, bool)

    def __len__(self) -> int:
        return self._n_valid

    @property
    def capacity(self) -> int:
        """In slots: the most the ring holds."""
        return self.config.capacity

    def _columns(self) -> dict[str, npt.NDArray[Any]]:
        """Every per-slot array by name (frames and actions once allocated), as a checkpoint holds them."""
        arrays = {"frames": self._frames, "act": self._act, "scalars": self._scalars, "back": self._back}
        arrays |= {"offset": self._offset, "valid": self._valid}
        return {name: a for name, a in arrays.items() if a is not None}

    def nbytes(self) -> int:
        """The bytes held by the buffer's arrays (the frames and every per-slot column)."""
        return sum(a.nbytes for a in self._columns().values())

    def _allocate(self, item: FrameTransition) -> None:
        frame, act = np.asarray(item.frame), np.asarray(item.act)
        cap = self.config.capacity
        self._frames = np.zeros((cap + 1, *frame.shape), np.uint8)
        self._act = np.zeros(
            (cap, *act.shape), np.int64 if np.issubdtype(act.dtype, np.integer) else np.float32
        )

    def _set_valid(self, rows: npt.NDArray[np.int64], valid: bool) -> None:
        changed = rows[self._valid[rows] != valid]
        if len(changed) == 0:
            return
        self._valid[changed] = valid
        self._n_valid += len(changed) if valid else -len(changed)
        if self._tree is not None and self.config.per is not None:
            priority = self._max_priority**self.config.per.alpha if valid else 0.0
            self._tree.update(changed, np.full(len(changed), priority))

    def _row(self, stream: int, slot: int) -> int:
        return stream * self._lane + slot % self._lane

    def _write(self, stream: int, frame: npt.NDArray[np.uint8]) -> int:
        """Writes ``frame`` at lane ``stream``'s next slot; returns its row. The slot it overwrites, and the
        next slots whose stacks reach back to it, stop being sampleable."""
        assert self._frames is not None
        lane, slot = self._lane, self._heads[stream]
        row = self._row(stream, slot)
        if slot >= lane:
            lost = slot - lane
            # Slot lost + i reads lost when its episode started at or before it.
            later = [
                self._row(stream, lost + i)
                for i in range(1, self.config.stack)
                if lost + i < slot and self._back[self._row(stream, lost + i)] >= i
            ]
            self._set_valid(np.array([row, *later], dtype=np.int64), False)
        self._frames[row] = frame
        self._heads[stream] += 1
        return row

    def push(self, item: FrameTransition) -> None:
        """Stores ``item`` (and its episode's final frame, when it carries one).

        Raises:
            ValueError: the frame's or action's shape differs from the first item's, the frame is not uint8,
                the reward is not finite as a float32, or ``next_offset`` is not in ``[1, 255]``.
        """
        if self._frames is None:
            self._allocate(item)
        assert self._frames is not None
        assert self._act is not None
        self._check(item)
        k, pending = item.stream, self._pending[item.stream]
        if item.episode_start:
            # Items of an unfinished episode never get their next observation: they stay unsampleable.
            self._episode_starts[k] = self._heads[k]
            pending.clear()
        slot, start, last = self._heads[k], self._episode_starts[k], self.config.stack - 1
        row = self._write(k, item.frame)
        self._act[row] = item.act
        self._scalars[row] = (item.reward, item.is_terminated, item.is_truncated, item.discount)
        self._back[row] = min(slot - start, last)
        self._offset[row] = item.next_offset
        pending.append((slot, slot + item.next_offset))
        if item.final_frame is not None:
            final_row = self._write(k, item.final_frame)
            self._back[final_row] = min(slot + 1 - start, last)
            self._offset[final_row] = 0  # a final frame's slot holds no transition
        head, ready = self._heads[k], []
        while pending and pending[0][1] < head:
            ready_slot = pending.popleft()[0]
            # Only with its whole stack still in the lane (a lane shorter than n_steps + stack loses it).
            if ready_slot - int(self._back[self._row(k, ready_slot)]) >= head - self._lane:
                ready.append(self._row(k, ready_slot))
        if ready:
            self._set_valid(np.array(ready, dtype=np.int64), True)

    def _check(self, item: FrameTransition) -> None:
        assert self._frames is not None
        assert self._act is not None
        frame = np.asarray(item.frame)
        frames = [frame] if item.final_frame is None else [frame, np.asarray(item.final_frame)]
        for f in frames:
            if f.dtype != np.uint8 or f.shape != self._frames.shape[1:]:
                raise ValueError(
                    f"frame {f.dtype} {f.shape} does not match the buffer's uint8 {self._frames.shape[1:]} "
                    "(set by the first item pushed)"
                )
        if np.shape(item.act) != self._act.shape[1:]:
            raise ValueError(f"action shape {np.shape(item.act)} != the buffer's {self._act.shape[1:]}")
        if not -_FLOAT32_MAX <= item.reward <= _FLOAT32_MAX:  # False for NaN too
            raise ValueError(f"transition reward {item.reward!r} is not finite as a float32")
        if not 1 <= item.next_offset <= 255:
            raise ValueError(f"next_offset must be in [1, 255], got {item.next_offset}")
        if not 0 <= item.stream < self.config.streams:
            raise ValueError(
                f"item of stream {item.stream}, but the buffer has {self.config.streams} (set 'streams' "
                "to the vector env's num_envs)"
            )

    def _stacks(self, rows: npt.NDArray[np.int64], ahead: npt.NDArray[np.int64]) -> torch.Tensor:
        """The stacks ``(n, stack, h, w)`` of the observations ``ahead`` slots after ``rows``; frames
        before the episode start read the zero row."""
        import torch  # on the first batch (see `border_py.replay_buffer`)

        assert self._frames is not None
        lane, stack = self._lane, self.config.stack
        back = np.minimum(self._back[rows].astype(np.int64) + ahead, stack - 1)
        steps_back = np.arange(stack - 1, -1, -1, dtype=np.int64)  # oldest frame first
        base = rows - rows % lane
        src = base[:, None] + ((rows - base + ahead)[:, None] - steps_back) % lane
        src = np.where(steps_back <= back[:, None], src, self.config.capacity)
        frames = torch.from_numpy(self._frames).index_select(0, torch.from_numpy(src.reshape(-1)))
        return frames.view(*src.shape, *self._frames.shape[1:])

    def batch(self, size: int) -> TransitionBatch:
        """Samples ``size`` sampleable transitions (with replacement), their stacks rebuilt.

        Raises:
            ValueError: ``size`` < 1 or no transition is sampleable yet.
        """
        if size < 1:
            raise ValueError(f"batch size must be >= 1, got {size}")
        if self._n_valid == 0:
            raise ValueError("cannot sample from a frame replay buffer with no complete transition")
        weight: torch.Tensor | None = None
        if self._tree is None:
            rows = self._uniform(size)
        else:
            rows, weight = self._prioritized(size)
        self._n_batches += 1
        return self.gather(rows, weight)

    def sampleable_rows(self) -> npt.NDArray[np.int64]:
        """The rows `batch` may sample (for inspection and tests)."""
        return np.flatnonzero(self._valid)

    def gather(self, rows: npt.NDArray[np.int64], weight: torch.Tensor | None = None) -> TransitionBatch:
        """The transitions at ``rows`` (sampleable ones, from `sampleable_rows`), stacks rebuilt.

        Raises:
            ValueError: a row is not sampleable.
        """
        import torch  # on the first batch (see `border_py.replay_buffer`)

        assert self._act is not None
        if not self._valid[rows].all():
            raise ValueError(f"rows {rows[~self._valid[rows]]} hold no sampleable transition")
        reward, is_terminated, is_truncated, discount = torch.from_numpy(
            self._scalars.take(rows, axis=0)
        ).unbind(1)
        return TransitionBatch(
            obs=self._stacks(rows, np.zeros(len(rows), np.int64)),
            act=torch.from_numpy(self._act.take(rows, axis=0)),
            next_obs=self._stacks(rows, self._offset[rows].astype(np.int64)),
            reward=reward,
            is_terminated=is_terminated,
            is_truncated=is_truncated,
            discount=discount,
            ix_sample=rows,
            weight=weight,
        )

    def _draw_filled(self, size: int) -> npt.NDArray[np.int64]:
        """``size`` rows drawn uniformly from the written ones of every lane."""
        filled = np.minimum(self._heads, self._lane)
        ends = np.cumsum(filled)
        u = self._rng.integers(0, int(ends[-1]), size=size, dtype=np.int64)
        if len(filled) == 1:
            return u
        lane = np.searchsorted(ends, u, side="right")
        rows: npt.NDArray[np.int64] = lane * self._lane + u - (ends[lane] - filled[lane])
        return rows

    def _uniform(self, size: int) -> npt.NDArray[np.int64]:
        filled = int(np.minimum(self._heads, self._lane).sum())
        if self._n_valid * 2 < filled:  # mostly unsampleable (a small buffer): draw among the valid rows
            return np.flatnonzero(self._valid)[self._rng.integers(0, self._n_valid, size)]
        # Rejection: redraw the few rows that are not sampleable (final frames, pending, overwritten).
        rows = self._draw_filled(size)
        bad = ~self._valid[rows]
        while bad.any():
            rows[bad] = self._draw_filled(int(bad.sum()))
            bad = ~self._valid[rows]
        return rows

    def _prioritized(self, size: int) -> tuple[npt.NDArray[np.int64], torch.Tensor]:
        import torch  # on the first batch (see `border_py.replay_buffer`)

        assert self._tree is not None
        assert self.config.per is not None
        total = self._tree.total()
        prefix = (np.arange(size) + self._rng.random(size)) * (total / size)
        rows = self._tree.find(prefix)
        per = self.config.per
        beta = per.beta_0 + min(1.0, self._n_batches / per.n_opts_final) * (per.beta_final - per.beta_0)
        weight = (self._tree.get(rows) / self._tree.min()) ** (-beta)
        return rows, torch.from_numpy(weight.astype(np.float32))

    def update_priority(self, indices: npt.NDArray[np.int64], td_errors: npt.NDArray[Any]) -> None:
        """Sets the priorities of the sampled rows ``indices`` that are still sampleable to
        ``|td_errors| + eps`` (no-op without prioritized replay).

        Raises:
            ValueError: the lengths differ or a TD error is not finite.
        """
        if self._tree is None or self.config.per is None:
            return
        td = np.abs(np.asarray(td_errors, dtype=np.float64)).reshape(-1)
        indices = np.asarray(indices, dtype=np.int64)
        if td.shape[0] != len(indices):
            raise ValueError(f"{len(indices)} indices but {td.shape[0]} TD errors")
        if td.shape[0] == 0:
            return
        if not math.isfinite(float(td.max())):
            raise ValueError("TD errors must be finite to update priorities")
        keep = self._valid[indices]
        priorities = td[keep] + self.config.per.eps
        if len(priorities):
            self._max_priority = max(self._max_priority, float(priorities.max()))
            self._tree.update(indices[keep], priorities**self.config.per.alpha)

    def save(self, path: Path) -> list[Path]:
        """Writes the frames, columns, priorities, sampling RNG and counters to ``path/replay_buffer.npz``
        (no pickle); returns the file."""
        return [save_frame_buffer(self, path / BUFFER_FILE)]

    def load(self, path: Path) -> None:
        """Reads what `save` wrote into ``path``, replacing the contents; everything is read and
        checked before the buffer changes.

        Raises:
            FileNotFoundError: ``path/replay_buffer.npz`` is missing.
            ValueError: the file is corrupt, or was saved by a buffer of another kind, capacity, stack,
                streams or sampling (the message names the file and what differs).
        """
        load_frame_buffer(self, path / BUFFER_FILE)
