"""``SimpleReplayBuffer``: numpy ring storage, seeded uniform or prioritized sampling."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
import numpy.typing as npt

from border_py.base.spaces import Spaces
from border_py.config import finite, positive_finite
from border_py.replay_buffer.image_columns import ImageColumns
from border_py.replay_buffer.npz import read_npz
from border_py.replay_buffer.storage import COLUMNS, TransitionStorage
from border_py.replay_buffer.sum_tree import SumTree
from border_py.replay_buffer.transition import Transition, TransitionBatch

if TYPE_CHECKING:
    import torch

_positive = attrs.validators.gt(0)

BUFFER_FILE = "replay_buffer.npz"


@attrs.frozen(kw_only=True)
class PerConfig:
    """Prioritized experience replay (Schaul et al., 2016), proportional variant.

    An item is sampled with probability ``p_i^alpha / sum_j p_j^alpha`` where ``p_i = |td_i| + eps``; new
    items get the largest priority seen so far. Importance weights ``(N P_i)^-beta`` are divided by their
    largest possible value, so they lie in ``(0, 1]``.
    """

    alpha: float = attrs.field(default=0.6, validator=[attrs.validators.ge(0.0), finite])
    """Unitless: how strongly priorities skew sampling (0 = uniform)."""
    beta_0: float = attrs.field(default=0.4, validator=[attrs.validators.gt(0.0), attrs.validators.le(1.0)])
    """Unitless: the importance-weight exponent at the first batch."""
    beta_final: float = attrs.field(
        default=1.0, validator=[attrs.validators.gt(0.0), attrs.validators.le(1.0)]
    )
    """Unitless: the exponent reached after ``n_opts_final`` batches and kept after."""
    n_opts_final: int = attrs.field(default=100_000, validator=_positive)
    """In opt steps (counted as ``batch()`` calls, one per opt step for DQN): length of the linear beta
    schedule."""
    eps: float = attrs.field(default=1e-6, validator=positive_finite)
    """In TD-error units: added to ``|td|`` so no item's priority is zero."""


@attrs.frozen(kw_only=True)
class SimpleReplayBufferConfig:
    """Config of `SimpleReplayBuffer`.

    Examples:
        >>> buffer = SimpleReplayBufferConfig(capacity=1000).build(seed=0)
    """

    capacity: int = attrs.field(default=100_000, validator=_positive)
    """In transitions: the most the ring holds; the oldest is overwritten past it."""
    per: PerConfig | None = None
    """Prioritized replay settings; ``None`` samples uniformly."""

    def build(self, seed: int) -> SimpleReplayBuffer:
        """Builds an empty buffer whose sampling is seeded with ``seed``."""
        return SimpleReplayBuffer(self, seed)

    def full_nbytes(self, spaces: Spaces) -> int:
        """The bytes the buffer holds once full of an env of ``spaces``'s transitions (the sum tree's too;
        a dict observation's image parts as uint8, see `SimpleReplayBuffer.observe_spaces`)."""
        tree = 0 if self.per is None else SumTree.nbytes_for(self.capacity)
        return self.capacity * TransitionStorage.row_bytes(spaces, images=True) + tree


class SimpleReplayBuffer:
    """A ring buffer of `Transition` s that samples `TransitionBatch` es.

    Storage is one numpy array per field, allocated at the first push from that transition's shapes (a
    dict observation's image parts apart, as uint8, once `observe_spaces` has named them);
    ``batch`` gathers rows and wraps them as torch tensors without another copy. Sampling uses its own
    ``numpy.random.Generator``, seeded at build, never the global RNG.

    Args:
        config: capacity and prioritized-replay settings.
        seed: the seed of the sampling RNG.

    Examples:
        >>> import numpy as np
        >>> buffer = SimpleReplayBufferConfig(capacity=2).build(seed=0)
        >>> o = np.zeros(3, np.float32)
        >>> buffer.push(Transition(obs=o, act=np.array(1), next_obs=o, reward=1.0,
        ...                        is_terminated=False, is_truncated=False, discount=0.99))
        >>> len(buffer), buffer.batch(4).obs.shape
        (1, torch.Size([4, 3]))
    """

    def __init__(self, config: SimpleReplayBufferConfig, seed: int) -> None:
        self.config = config
        self._rng = np.random.default_rng(seed)
        self._storage: TransitionStorage | None = None
        self._next = 0
        self._len = 0
        self._n_batches = 0
        self._tree = SumTree(config.capacity) if config.per is not None else None
        self._max_priority = 1.0
        self._images: ImageColumns | None = None

    def observe_spaces(self, spaces: Spaces) -> None:
        """Learns where a dict observation's image parts lie in the flat observation, to store them as
        uint8 (a quarter of their float32 bytes; batches are unchanged, float32). The trainers call it
        right after building the buffer, with the env's spaces; a buffer never told stores float32, and so
        does one that holds transitions already (a fine-tuning run's buffer, filled from its dataset when
        built): its storage is laid out, and keeps that layout.
        """
        if self._storage is None:
            self._images = ImageColumns.of(spaces)

    def __len__(self) -> int:
        return self._len

    @property
    def capacity(self) -> int:
        """In transitions: the most the ring holds."""
        return self.config.capacity

    def push(self, item: Transition) -> None:
        """Stores ``item``, overwriting the oldest transition when full.

        Raises:
            ValueError: the transition's observation or action shape differs from the first one pushed, or
                its reward is not finite as a float32 (1e39 is ``inf`` there).
        """
        storage, capacity = self._storage, self.config.capacity
        if storage is None:
            storage = self._storage = TransitionStorage.for_first(item, capacity, images=self._images)
        i = self._next
        storage.put(i, item)
        if self._tree is not None and self.config.per is not None:
            priority = self._max_priority**self.config.per.alpha
            self._tree.update(np.array([i]), np.array([priority]))
        self._next = i + 1 if i + 1 < capacity else 0
        if self._len < capacity:
            self._len += 1

    def batch(self, size: int) -> TransitionBatch:
        """Samples ``size`` transitions (with replacement).

        Raises:
            ValueError: ``size`` < 1 or the buffer is empty.
        """
        if size < 1:
            raise ValueError(f"batch size must be >= 1, got {size}")
        if self._storage is None or self._len == 0:
            raise ValueError("cannot sample from an empty replay buffer")
        weight: torch.Tensor | None = None
        if self._tree is None:
            ix = self._rng.integers(0, self._len, size=size, dtype=np.int64)
        else:
            ix, weight = self._sample_prioritized(size)
        self._n_batches += 1
        return self._storage.gather(ix, weight)

    def beta(self) -> float:
        """The current importance-weight exponent (linear in the number of batches drawn)."""
        per = self.config.per
        if per is None:
            return 0.0
        frac = min(1.0, self._n_batches / per.n_opts_final)
        return per.beta_0 + frac * (per.beta_final - per.beta_0)

    def _sample_prioritized(self, size: int) -> tuple[npt.NDArray[np.int64], torch.Tensor]:
        import torch  # on the first batch (see `border_py.replay_buffer`)

        assert self._tree is not None
        total = self._tree.total()
        # Stratified: one uniform draw in each of `size` equal segments of [0, total).
        prefix = (np.arange(size) + self._rng.random(size)) * (total / size)
        ix = self._tree.find(prefix)
        # Weights (N P_i)^-beta / max_j (N P_j)^-beta = (p_i / p_min)^-beta.
        weight = (self._tree.get(ix) / self._tree.min()) ** (-self.beta())
        return ix, torch.from_numpy(weight.astype(np.float32))

    def update_priority(self, indices: npt.NDArray[np.int64], td_errors: npt.NDArray[Any]) -> None:
        """Sets the priorities of ``indices`` to ``|td_errors| + eps`` (no-op without prioritized replay).

        Raises:
            ValueError: the lengths differ or a TD error is not finite.
        """
        if self._tree is None or self.config.per is None:
            return
        td = np.abs(np.asarray(td_errors, dtype=np.float64)).reshape(-1)
        if td.shape[0] != len(indices):
            raise ValueError(f"{len(indices)} indices but {td.shape[0]} TD errors")
        if td.shape[0] == 0:
            return
        largest = float(td.max())  # NaN when any is NaN
        if not math.isfinite(largest):
            raise ValueError("TD errors must be finite to update priorities")
        eps = self.config.per.eps
        priorities = td + eps
        # Rounding is monotonic, so this is the largest of ``priorities``.
        self._max_priority = max(self._max_priority, largest + eps)
        self._tree.update(np.asarray(indices, dtype=np.int64), priorities**self.config.per.alpha)

    def save(self, path: Path) -> list[Path]:
        """Writes the contents, priorities, sampling RNG and counters to ``path/replay_buffer.npz`` (no
        pickle); returns the file. Only the filled rows are written, observations as flat float32 even
        where image columns are kept as uint8 (the one file format, read by either storage; the write
        makes a float32 copy of the observations)."""
        arrays: dict[str, npt.NDArray[Any]] = {}
        if self._storage is not None:
            n = self._len
            arrays = self._storage.columns(n)
            if self._tree is not None:
                arrays["priority"] = self._tree.get(np.arange(n))
        counters = {
            "capacity": self.config.capacity,
            "prioritized": self._tree is not None,
            "next": self._next,
            "len": self._len,
            "n_batches": self._n_batches,
            "max_priority": self._max_priority,
            "rng": self._rng.bit_generator.state,
        }
        file = path / BUFFER_FILE
        arrays["state"] = np.array(json.dumps(counters))
        with file.open("wb") as f:
            # numpy's stub lets a ** mapping reach its allow_pickle flag; every value here is an array.
            np.savez(f, **arrays)  # type: ignore[arg-type]
        return [file]

    def load(self, path: Path) -> None:
        """Reads what `save` wrote into ``path``, replacing the contents.

        Everything is read and checked before the buffer changes.

        Raises:
            FileNotFoundError: ``path/replay_buffer.npz`` is missing.
            ValueError: the file is corrupt, or was saved by a buffer of another capacity or sampling
                (the message names the file and what differs).
        """
        file = path / BUFFER_FILE
        if not file.is_file():
            raise FileNotFoundError(f"{file} not found: the checkpoint holds no replay buffer")
        arrays = read_npz(file, "replay buffer")
        try:
            counters = json.loads(str(arrays.pop("state")))
        except (ValueError, KeyError) as exc:
            raise ValueError(f"{file} is not a readable replay buffer file: {exc}") from exc
        storage = self._check_saved(file, counters, arrays)
        rng = np.random.default_rng()
        try:
            rng.bit_generator.state = counters["rng"]
        except (TypeError, ValueError, KeyError) as exc:
            raise ValueError(f"{file}: invalid sampling RNG state: {exc}") from exc
        self._storage, self._rng = storage, rng
        self._next, self._len = int(counters["next"]), int(counters["len"])
        self._n_batches, self._max_priority = int(counters["n_batches"]), float(counters["max_priority"])
        if self.config.per is not None:
            self._tree = SumTree(self.config.capacity)
            if self._len > 0:
                self._tree.update(np.arange(self._len), arrays["priority"])

    def _check_saved(
        self, file: Path, counters: dict[str, Any], arrays: dict[str, npt.NDArray[Any]]
    ) -> TransitionStorage | None:
        """The storage ``file`` describes, after checking it matches this buffer's config."""
        if not isinstance(counters, dict):
            raise ValueError(f"{file}: the buffer state is not a mapping")
        missing = {
            "capacity",
            "prioritized",
            "next",
            "len",
            "n_batches",
            "max_priority",
            "rng",
        } - counters.keys()
        if missing:
            raise ValueError(f"{file}: the buffer state lacks {sorted(missing)}")
        capacity, n, head = self.config.capacity, counters["len"], counters["next"]
        if counters["capacity"] != capacity:
            raise ValueError(
                f"{file} holds a buffer of capacity {counters['capacity']}, this one has {capacity}"
            )
        if counters["prioritized"] != (self.config.per is not None):
            kinds = {True: "prioritized", False: "uniform"}
            raise ValueError(
                f"{file} holds a {kinds[counters['prioritized']]} buffer, "
                f"this one is {kinds[self.config.per is not None]}"
            )
        # Whole numbers as saved (JSON may hold "12" or 1e300): compared, then taken as int on load.
        counts = (n, head, counters["n_batches"])
        if not (all(type(c) is int for c in counts) and 0 <= n <= capacity and 0 <= head < capacity):
            raise ValueError(f"{file}: inconsistent counters len={n!r:.40}, next={head!r:.40}")
        if type(counters["max_priority"]) not in (int, float) or counters["n_batches"] < 0:
            raise ValueError(f"{file}: n_batches and max_priority must be numbers")
        if n == 0:
            return None
        expected = [*COLUMNS, "priority"] if self.config.per is not None else list(COLUMNS)
        if sorted(arrays) != sorted(expected):
            raise ValueError(f"{file}: expected the columns {sorted(expected)}, got {sorted(arrays)}")
        if len(arrays["obs"]) != n:
            raise ValueError(f"{file}: the columns hold {len(arrays['obs'])} rows, its state says {n}")
        priority = arrays.get("priority")
        if priority is not None and not (
            len(priority) == n and np.all(np.isfinite(priority)) and np.all(priority >= 0)
        ):
            raise ValueError(f"{file}: priorities must be {n} finite values >= 0")
        return TransitionStorage.from_columns(arrays, capacity, str(file), images=self._images)
