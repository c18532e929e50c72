"""``SimpleReplayBuffer``: numpy ring storage, seeded uniform or prioritized sampling."""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import numpy.typing as npt
import torch

from border_py.replay_buffer.sum_tree import SumTree
from border_py.replay_buffer.transition import Transition, TransitionBatch

_positive = attrs.validators.gt(0)


@attrs.frozen(kw_only=True)
class PerConfig:
    """Prioritized experience replay (Schaul et al., 2016), proportional variant.

    An item is sampled with probability ``p_i^alpha / sum_j p_j^alpha`` where ``p_i = |td_i| + eps``; new
    items get the largest priority seen so far. Importance weights ``(N P_i)^-beta`` are divided by their
    largest possible value, so they lie in ``(0, 1]``.
    """

    alpha: float = attrs.field(default=0.6, validator=attrs.validators.ge(0.0))
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
    eps: float = attrs.field(default=1e-6, validator=attrs.validators.gt(0.0))
    """In TD-error units: added to ``|td|`` so no item's priority is zero."""


@attrs.frozen(kw_only=True)
class SimpleReplayBufferConfig:
    """Config of :class:`SimpleReplayBuffer`.

    Example:
        >>> buffer = SimpleReplayBufferConfig(capacity=1000).build(seed=0)
    """

    capacity: int = attrs.field(default=100_000, validator=_positive)
    """In transitions: the most the ring holds; the oldest is overwritten past it."""
    per: PerConfig | None = None
    """Prioritized replay settings; ``None`` samples uniformly."""

    def build(self, seed: int) -> SimpleReplayBuffer:
        """Builds an empty buffer whose sampling is seeded with ``seed``."""
        return SimpleReplayBuffer(self, seed)


class _Storage:
    """Column arrays of a ring, allocated from the first transition's shapes and dtypes."""

    def __init__(self, first: Transition, capacity: int) -> None:
        obs, act = np.asarray(first.obs), np.asarray(first.act)
        self.obs = np.zeros((capacity, *obs.shape), dtype=np.float32)
        self.next_obs = np.zeros((capacity, *obs.shape), dtype=np.float32)
        act_dtype = np.int64 if np.issubdtype(act.dtype, np.integer) else np.float32
        self.act = np.zeros((capacity, *act.shape), dtype=act_dtype)
        self.reward = np.zeros(capacity, dtype=np.float32)
        self.is_terminated = np.zeros(capacity, dtype=np.float32)
        self.is_truncated = np.zeros(capacity, dtype=np.float32)
        self.discount = np.zeros(capacity, dtype=np.float32)


class SimpleReplayBuffer:
    """A ring buffer of :class:`Transition` s that samples :class:`TransitionBatch` es.

    Storage is one numpy array per field, allocated at the first push from that transition's shapes;
    ``batch`` gathers rows and wraps them as torch tensors without another copy. Sampling uses its own
    ``numpy.random.Generator``, seeded at build, never the global RNG.

    Args:
        config: capacity and prioritized-replay settings.
        seed: the seed of the sampling RNG.

    Example:
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
        self._storage: _Storage | None = None
        self._next = 0
        self._len = 0
        self._n_batches = 0
        self._tree = SumTree(config.capacity) if config.per is not None else None
        self._max_priority = 1.0

    def __len__(self) -> int:
        return self._len

    def push(self, item: Transition) -> None:
        """Stores ``item``, overwriting the oldest transition when full.

        Raises:
            ValueError: the transition's observation or action shape differs from the first one pushed.
        """
        if self._storage is None:
            self._storage = _Storage(item, self.config.capacity)
        s, i = self._storage, self._next
        try:
            s.obs[i] = item.obs
            s.next_obs[i] = item.next_obs
            s.act[i] = item.act
        except ValueError as exc:
            raise ValueError(
                f"transition shapes obs {np.shape(item.obs)}, act {np.shape(item.act)} do not match the "
                f"buffer's obs {s.obs.shape[1:]}, act {s.act.shape[1:]}"
            ) from exc
        s.reward[i] = item.reward
        s.is_terminated[i] = item.is_terminated
        s.is_truncated[i] = item.is_truncated
        s.discount[i] = item.discount
        if self._tree is not None and self.config.per is not None:
            priority = self._max_priority**self.config.per.alpha
            self._tree.update(np.array([i]), np.array([priority]))
        self._next = (i + 1) % self.config.capacity
        self._len = min(self._len + 1, self.config.capacity)

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
        s = self._storage
        return TransitionBatch(
            obs=torch.from_numpy(s.obs[ix]),
            act=torch.from_numpy(s.act[ix]),
            next_obs=torch.from_numpy(s.next_obs[ix]),
            reward=torch.from_numpy(s.reward[ix]),
            is_terminated=torch.from_numpy(s.is_terminated[ix]),
            is_truncated=torch.from_numpy(s.is_truncated[ix]),
            discount=torch.from_numpy(s.discount[ix]),
            ix_sample=ix,
            weight=weight,
        )

    def beta(self) -> float:
        """The current importance-weight exponent (linear in the number of batches drawn)."""
        per = self.config.per
        if per is None:
            return 0.0
        frac = min(1.0, self._n_batches / per.n_opts_final)
        return per.beta_0 + frac * (per.beta_final - per.beta_0)

    def _sample_prioritized(self, size: int) -> tuple[npt.NDArray[np.int64], torch.Tensor]:
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
        if not np.all(np.isfinite(td)):
            raise ValueError("TD errors must be finite to update priorities")
        priorities = td + self.config.per.eps
        self._max_priority = max(self._max_priority, float(priorities.max()))
        self._tree.update(np.asarray(indices, dtype=np.int64), priorities**self.config.per.alpha)
