"""The item a :class:`~border_py.step_processor.SimpleStepProcessor` emits and the batch a
:class:`~border_py.replay_buffer.SimpleReplayBuffer` returns."""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import numpy.typing as npt
import torch


@attrs.frozen(kw_only=True, eq=False)
class Transition:
    """One transition ``(obs, act) -> (next_obs, reward)``, pushed into a replay buffer.

    Attributes:
        obs: the observation the action was taken in.
        act: the action (an integer array of shape ``()`` for a discrete action space).
        next_obs: the observation after the action; at a truncated episode end, the final observation of
            the episode (which a Q-target bootstraps from), never the next episode's first one.
        reward: the reward.
        is_terminated: the episode reached a terminal state: no bootstrap.
        is_truncated: the episode was cut (e.g. time limit): bootstrap from ``next_obs``.
    """

    obs: npt.NDArray[Any]
    act: npt.NDArray[Any]
    next_obs: npt.NDArray[Any]
    reward: float
    is_terminated: bool
    is_truncated: bool


@attrs.frozen(kw_only=True, eq=False)
class TransitionBatch:
    """A batch of transitions as torch tensors (leading dimension: batch).

    ``eq=False``: attrs' generated ``__eq__`` would compare tensors with ``and``.

    Attributes:
        obs: observations, float32.
        act: actions (int64 for discrete spaces).
        next_obs: next observations, float32.
        reward: rewards, float32, shape ``(batch,)``.
        is_terminated: 1.0 where the episode terminated, float32, shape ``(batch,)``.
        is_truncated: 1.0 where the episode was truncated, float32, shape ``(batch,)``.
        ix_sample: the buffer indices sampled, for ``update_priority``.
        weight: importance-sampling weights (prioritized replay), float32 ``(batch,)``; ``None`` for
            uniform sampling.
    """

    obs: torch.Tensor
    act: torch.Tensor
    next_obs: torch.Tensor
    reward: torch.Tensor
    is_terminated: torch.Tensor
    is_truncated: torch.Tensor
    ix_sample: npt.NDArray[np.int64]
    weight: torch.Tensor | None = None

    def __len__(self) -> int:
        return int(self.reward.shape[0])
