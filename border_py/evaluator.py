"""``DefaultEvaluator``: the mean return of n deterministic evaluation episodes."""

from __future__ import annotations

from typing import Generic

import attrs
import numpy as np

from border_py.base.env import Env
from border_py.base.policy import Policy
from border_py.base.typevars import A, O
from border_py.record import Record


@attrs.frozen(kw_only=True)
class DefaultEvaluatorConfig:
    """Config of `DefaultEvaluator`."""

    n_episodes: int = attrs.field(default=10, validator=attrs.validators.gt(0))
    """In episodes: how many evaluation episodes make one score."""

    def build(self, env: Env[O, A]) -> DefaultEvaluator[O, A]:
        """Builds an evaluator over ``env`` (an env of its own, not the training env)."""
        return DefaultEvaluator(env, self.n_episodes)


class DefaultEvaluator(Generic[O, A]):
    """Runs episodes ``0 .. n_episodes - 1`` (episode ``i`` starts with ``env.reset_with_index(i)``) and
    scores the policy by the mean return, so the same greedy policy always gets the same score.

    The caller puts the agent in eval mode first (the trainer does).

    Args:
        env: the evaluation env.
        n_episodes: episodes per evaluation.

    Examples:
        >>> from border_py.testing import CountingEnv, ConstantPolicy
        >>> score, record = DefaultEvaluator(CountingEnv(episode_length=3), 2).evaluate(ConstantPolicy(0))
        >>> score, record["eval/episode_length"]
        (3.0, 3.0)
    """

    def __init__(self, env: Env[O, A], n_episodes: int) -> None:
        if n_episodes < 1:
            raise ValueError(f"n_episodes must be >= 1, got {n_episodes}")
        self.env = env
        self.n_episodes = n_episodes

    def evaluate(self, policy: Policy[O, A]) -> tuple[float, Record]:
        """Returns the mean return, and a record of ``eval/episode_return`` (mean, min, max) and length."""
        returns, lengths = [], []
        for ix in range(self.n_episodes):
            obs = self.env.reset_with_index(ix)
            total, length = 0.0, 0
            while True:
                step, _ = self.env.step(policy.sample(obs))
                total += step.reward
                length += 1
                if step.is_done:
                    break
                obs = step.obs
            returns.append(total)
            lengths.append(length)
        score = float(np.mean(returns))
        record = Record(
            {
                "eval/episode_return": score,
                "eval/episode_return_min": min(returns),
                "eval/episode_return_max": max(returns),
                "eval/episode_length": float(np.mean(lengths)),
            }
        )
        return score, record
