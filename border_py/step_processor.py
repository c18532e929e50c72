"""Step processors: env steps in, buffer items out."""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from border_py.base.step import Step
from border_py.replay_buffer.transition import Transition


class SimpleStepProcessor:
    """Emits one :class:`Transition` per step, keeping the previous observation.

    Trap: at an episode end, ``step.obs`` is the final observation of the ended episode (it becomes
    ``next_obs``, which a truncated transition bootstraps from) and ``step.init_obs`` is the first
    observation of the next episode (it becomes the next transition's ``obs``).

    Example:
        >>> p = SimpleStepProcessor()
        >>> p.reset(np.zeros(2, np.float32))
    """

    def __init__(self) -> None:
        self._prev_obs: npt.NDArray[Any] | None = None

    def reset(self, init_obs: npt.NDArray[Any]) -> None:
        """Starts an episode from ``init_obs``."""
        self._prev_obs = init_obs

    def process(self, step: Step[npt.NDArray[Any], npt.NDArray[Any]]) -> Transition:
        """Returns the transition from the previous observation through ``step``.

        Raises:
            RuntimeError: ``reset`` was never called, or an ended episode's step carries no ``init_obs``.
        """
        if self._prev_obs is None:
            raise RuntimeError("SimpleStepProcessor.process called before reset(init_obs)")
        transition = Transition(
            obs=self._prev_obs,
            act=np.asarray(step.act),
            next_obs=step.obs,
            reward=step.reward,
            is_terminated=step.is_terminated,
            is_truncated=step.is_truncated,
        )
        if step.is_terminated or step.is_truncated:
            if step.init_obs is None:
                raise RuntimeError("a step that ends an episode must carry init_obs (the env resets itself)")
            self._prev_obs = step.init_obs
        else:
            self._prev_obs = step.obs
        return transition


@attrs.frozen(kw_only=True)
class SimpleStepProcessorConfig:
    """Config of :class:`SimpleStepProcessor` (no fields yet; n-step returns will add some)."""

    def build(self) -> SimpleStepProcessor:
        """Builds the step processor."""
        return SimpleStepProcessor()
