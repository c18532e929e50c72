"""Train/eval mode, shared by every agent."""

from __future__ import annotations


class TrainEvalMode:
    """``train()``, ``eval()`` and ``is_train()`` of the :class:`~border_py.base.Agent` protocol.

    An agent starts in train mode; its ``sample`` reads ``self._train`` to explore or act greedily.
    """

    _train: bool = True

    def train(self) -> None:
        """Train mode: ``sample`` explores."""
        self._train = True

    def eval(self) -> None:
        """Eval mode: ``sample`` is greedy and deterministic."""
        self._train = False

    def is_train(self) -> bool:
        """Whether the agent is in train mode."""
        return self._train
