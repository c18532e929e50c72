"""What tests use in place of the former examples: the zoo's experiment for an algorithm and env id, with
its model directory and fields changed, trained quietly through the run layer."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym

from border_py.envs.gymnasium import make_gym
from border_py.run import AnyExperiment, Policy, TrainOptions, evaluate, train, zoo
from border_py.trainer.result import TrainResult

QUIET = TrainOptions(progress=False, quiet=True)
"""Train with no progress bar and no summary line."""


def zoo_experiment(
    algo: str, env_id: str, model_dir: Path | str, *, variant: str | None = None, **changes: Any
) -> AnyExperiment:
    """`border_py.run.zoo.experiment`, saving into ``model_dir``."""
    return zoo.experiment(algo, env_id, str(model_dir), variant=variant, **changes)


def train_quietly(experiment: AnyExperiment) -> TrainResult:
    """Trains ``experiment`` with no progress bar or summary."""
    return train(experiment, QUIET)


def median_of_three_seeds(
    make: Callable[[int, Path], AnyExperiment], root: Path, threshold: float, max_env_steps: int
) -> list[TrainResult]:
    """Trains ``make(seed, root / f"seed{seed}")`` for seeds 0, 1 and 2, and checks what every learning
    target here checks: each run stays within ``max_env_steps``, each ``best/`` reloaded scores its best,
    and the median best reaches ``threshold``. Returns the three results."""
    results = []
    for seed in (0, 1, 2):
        experiment = make(seed, root / f"seed{seed}")
        result = train_quietly(experiment)
        assert result.env_steps <= max_env_steps
        assert evaluate(experiment, root / f"seed{seed}", quiet=True) == result.best_score
        results.append(result)
    bests = [r.best_score for r in results]
    assert statistics.median(bests) >= threshold, bests
    return results


def success_rate(policy: Policy, env_id: str, episodes: int = 50, **kwargs: Any) -> float:
    """The share of ``episodes`` greedy episodes of a goal env (reset seeds 10,000 + i) whose last step
    reports ``info["is_success"]``; ``kwargs`` make the env, as the zoo entry's ``env.kwargs`` do."""
    env: Any = make_gym(env_id, kwargs, gym.make)
    successes = 0
    for i in range(episodes):
        obs, _ = env.reset(seed=10_000 + i)
        done, info = False, {}
        while not done:
            obs, _, terminated, truncated, info = env.step(policy.predict(obs))
            done = terminated or truncated
        successes += bool(info["is_success"])
    env.close()
    return successes / episodes
