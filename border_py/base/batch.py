"""``TransitionBatchLike``: the fields of a batch of transitions, for agents typed against a role."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:  # the contract imports no torch; the fields are tensors when a buffer samples them
    import torch


class TransitionBatchLike(Protocol):
    """A batch of (possibly n-step) transitions as tensors, leading dimension the batch.

    An agent typed against it (``opt(self, buffer: ReplayBuffer[TransitionBatchLike])``) accepts any
    buffer whose batch has these fields: `TransitionBatch` (what ``SimpleReplayBuffer`` and
    ``FrameReplayBuffer`` sample), a subclass of it, or a class of your own. mypy checks that pairing
    structurally, and the run layer checks it in the same way for an experiment read from YAML
    (`border_py.run.pairing`). The members are read-only, so a frozen attrs class satisfies them:

        batch = buffer.batch(batch_size).to(device)
        target = batch.reward + batch.discount * (1 - batch.is_terminated) * v(batch.next_obs)
        loss = (q(batch.obs, batch.act) - target) ** 2          # times batch.weight when prioritized
        buffer.update_priority(batch.ix_sample, td_errors)
    """

    @property
    def obs(self) -> torch.Tensor:
        """Observations."""
        ...

    @property
    def act(self) -> torch.Tensor:
        """Actions (int64 for discrete spaces)."""
        ...

    @property
    def next_obs(self) -> torch.Tensor:
        """The observations the targets bootstrap from."""
        ...

    @property
    def reward(self) -> torch.Tensor:
        """The discounted sums of rewards up to ``next_obs``, shape ``(batch,)``."""
        ...

    @property
    def is_terminated(self) -> torch.Tensor:
        """1.0 where the episode terminated at ``next_obs`` (no bootstrap), shape ``(batch,)``."""
        ...

    @property
    def is_truncated(self) -> torch.Tensor:
        """1.0 where the episode was cut at ``next_obs`` (bootstrap), shape ``(batch,)``."""
        ...

    @property
    def discount(self) -> torch.Tensor:
        """The bootstrap discount of each transition (``gamma^k``), shape ``(batch,)``."""
        ...

    @property
    def ix_sample(self) -> npt.NDArray[np.int64]:
        """The buffer indices sampled, for ``update_priority``."""
        ...

    @property
    def weight(self) -> torch.Tensor | None:
        """Importance-sampling weights (prioritized replay); ``None`` for uniform sampling."""
        ...

    def to(self, device: torch.device) -> TransitionBatchLike:
        """The same batch with every tensor on ``device``."""
        ...
