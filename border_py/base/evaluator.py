"""``Evaluator``: scores a policy."""

from __future__ import annotations

from typing import Protocol

from border_py.base.policy import Policy
from border_py.base.typevars import A_contra, O_co
from border_py.record import Record


class Evaluator(Protocol[O_co, A_contra]):
    """Runs evaluation episodes with a policy; the trainer keeps the best score:

    agent.eval()
    score, record = evaluator.evaluate(agent)
    agent.train()
    if score > best_score: save model_dir/best
    """

    def evaluate(self, policy: Policy[O_co, A_contra]) -> tuple[float, Record]:
        """Returns the score (higher is better) and a record with ``eval/...`` keys."""
        ...
