"""The items step processors emit (`Transition`, `FrameTransition` for frame stacks) and the
batch the replay buffers return (`TransitionBatch`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:  # the fields are tensors; this module imports no torch (see `border_py.replay_buffer`)
    import torch


# slots=False: built faster (one per env step; see `Step`), and a buffer copies it into its columns.
@attrs.frozen(kw_only=True, eq=False, slots=False)
class Transition:
    """One (possibly n-step) transition ``(obs, act) -> (next_obs, reward)``, pushed into a replay buffer.

    An agent's TD target is ``reward + (1 - is_terminated) * discount * V(next_obs)``: the step processor,
    which knows how many rewards it summed, decides the discount, so agents have no ``gamma`` of their own.

    Attributes:
        obs: the observation the action was taken in.
        act: the action (an integer array of shape ``()`` for a discrete action space).
        next_obs: the observation the target bootstraps from: ``n`` steps later, or, at an episode end,
            the final observation of the episode, never the next episode's first one.
        reward: the discounted sum of the rewards from ``obs`` to ``next_obs``
            (``r_0 + gamma r_1 + ... + gamma^(k-1) r_(k-1)``; just ``r_0`` for one step).
        is_terminated: the episode reached a terminal state at ``next_obs``: no bootstrap.
        is_truncated: the episode was cut (e.g. time limit) at ``next_obs``: bootstrap from it.
        discount: the bootstrap discount ``gamma^k`` for the ``k`` rewards summed in ``reward``.
    """

    obs: npt.NDArray[Any]
    act: npt.NDArray[Any]
    next_obs: npt.NDArray[Any]
    reward: float
    is_terminated: bool
    is_truncated: bool
    discount: float


@attrs.frozen(kw_only=True, eq=False)
class TransitionBatch:
    """A batch of transitions as torch tensors (leading dimension: batch).

    ``eq=False``: attrs' generated ``__eq__`` would compare tensors with ``and``.

    Attributes:
        obs: observations, float32 (uint8 for frames, which the agent's network scales).
        act: actions (int64 for discrete spaces).
        next_obs: next observations, of ``obs``'s dtype.
        reward: rewards, float32, shape ``(batch,)``.
        is_terminated: 1.0 where the episode terminated, float32, shape ``(batch,)``.
        is_truncated: 1.0 where the episode was truncated, float32, shape ``(batch,)``.
        discount: the bootstrap discount of each transition (``gamma^k``), float32, shape ``(batch,)``.
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
    discount: torch.Tensor
    ix_sample: npt.NDArray[np.int64]
    weight: torch.Tensor | None = None

    def __len__(self) -> int:
        return int(self.reward.shape[0])

    def to(self, device: torch.device) -> TransitionBatch:
        """The same batch with every tensor on ``device`` (itself when it is there already)."""
        if self.obs.device == device:  # a buffer puts all of a batch's tensors on one device
            return self
        return TransitionBatch(
            obs=self.obs.to(device),
            act=self.act.to(device),
            next_obs=self.next_obs.to(device),
            reward=self.reward.to(device),
            is_terminated=self.is_terminated.to(device),
            is_truncated=self.is_truncated.to(device),
            discount=self.discount.to(device),
            ix_sample=self.ix_sample,
            weight=None if self.weight is None else self.weight.to(device),
        )


@attrs.frozen(kw_only=True, eq=False)
class FrameTransition:
    """One (possibly n-step) transition of a frame-stacked observation, as a
    `FrameStackStepProcessor` emits it: only the newest frame of ``obs``,
    so that a `FrameReplayBuffer` stores each frame once and rebuilds the
    stacks ``obs`` and ``next_obs`` when it samples.

    The items of one episode arrive in order, one per env step, and ``next_obs`` is located by offset: the
    observation ``next_offset`` items later in the same episode, or, for the last ``next_offset`` items of an
    ended episode, its final observation, whose newest frame the episode's last item carries
    (``final_frame``). Frames before an episode's first observation are zeros in a stack.

    Attributes:
        frame: the newest frame of ``obs``, uint8 ``(height, width)``.
        act: the action taken in ``obs``.
        reward: the discounted sum of the rewards up to ``next_obs``.
        is_terminated: the episode terminated at ``next_obs``: no bootstrap.
        is_truncated: the episode was cut at ``next_obs``: bootstrap from it.
        discount: the bootstrap discount ``gamma^k`` for the ``k`` rewards summed.
        episode_start: ``obs`` is the first observation of an episode.
        next_offset: ``k >= 1``, how many observations after ``obs`` ``next_obs`` is.
        final_frame: on the last item of an ended episode, the newest frame of the episode's final
            observation; ``None`` otherwise.
        stream: the sub-env of a vector env the item comes from (its lane in the buffer); 0 for one env.
    """

    frame: npt.NDArray[np.uint8]
    act: npt.NDArray[Any]
    reward: float
    is_terminated: bool
    is_truncated: bool
    discount: float
    episode_start: bool
    next_offset: int
    final_frame: npt.NDArray[np.uint8] | None = None
    stream: int = 0
