"""What a training run reports: ``TrainResult`` and its ``Evaluation`` s."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Literal, TypeAlias

import attrs

StopReason: TypeAlias = Literal["max_opts", "max_env_steps", "stop_score", "observer"]
"""Why training ended: the opt-step or env-step budget ran out, an evaluation reached ``stop_score``, or an
evaluation observer asked to stop (early stopping, a pruned tuning trial)."""


@attrs.frozen
class Evaluation:
    """One evaluation during training: when (in opt and env steps) and its score."""

    opt_steps: int
    env_steps: int
    score: float


def parse_evaluations(rows: Iterable[Any]) -> list[Evaluation]:
    """Evaluations from a checkpoint's ``[opt_steps, env_steps, score]`` rows.

    Raises:
        ValueError, TypeError: a row is not three numbers.

    Examples:
        >>> parse_evaluations([[1, 10, 0.5]])
        [Evaluation(opt_steps=1, env_steps=10, score=0.5)]
    """
    return [Evaluation(int(o), int(e), float(s)) for o, e, s in rows]


EvaluationObserver: TypeAlias = Callable[[Evaluation], bool]
"""Hears each evaluation as it happens (``trainer.observers``); returns ``True`` to stop training there.

The one hook the trainers offer: what tuning (a pruner) and early stopping need, and nothing more. An
observer runs after ``best/`` is saved; it must not touch the agent.

Examples:
    >>> stop_below_zero: EvaluationObserver = lambda evaluation: evaluation.score < 0
"""


@attrs.frozen(kw_only=True)
class TrainResult:
    """What a finished training run reports."""

    opt_steps: int
    env_steps: int
    best_score: float
    """The best evaluation score (``-inf`` when no evaluation ran)."""
    last_score: float | None
    """The last evaluation score, ``None`` when no evaluation ran."""
    evaluations: tuple[Evaluation, ...] = ()
    """Every evaluation, in order."""
    stop_reason: StopReason = "max_opts"
    """Why training ended."""

    def env_steps_to_reach(self, score: float) -> int | None:
        """In env steps: when an evaluation first scored ``>= score``; ``None`` if none did.

        Examples:
            >>> r = TrainResult(opt_steps=2, env_steps=20, best_score=5.0, last_score=5.0,
            ...                 evaluations=(Evaluation(1, 10, 1.0), Evaluation(2, 20, 5.0)))
            >>> r.env_steps_to_reach(5.0), r.env_steps_to_reach(9.0)
            (20, None)
        """
        return next((e.env_steps for e in self.evaluations if e.score >= score), None)
