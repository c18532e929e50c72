"""TD3 learns Pendulum-v1: a short run in the default suite (smaller networks than the zoo's, a shorter
warm-up), and the zoo entry's full run behind ``-m slow``."""

from __future__ import annotations

from pathlib import Path

import pytest

from border_py.run import evaluate
from tests.zoo_runs import median_of_three_seeds, train_quietly, zoo_experiment


def test_short_td3_run_learns_far_beyond_random_play(tmp_path: Path) -> None:
    """8,000 env steps (1,000 random, then 7,000 updates of 64x64 networks; ~15 s): a random policy
    scores about -1,200, and the zoo's [400, 300] entry reaches -200 within 20,000."""
    config = zoo_experiment(
        "td3",
        "Pendulum-v1",
        tmp_path,
        agent={"actor_hidden": [64, 64], "critic_hidden": [64, 64], "batch_size": 128},
        trainer={"max_env_steps": 8_000, "warmup_period": 1_000, "save_interval": None},
        evaluator={"n_episodes": 5},
    )
    result = train_quietly(config)
    assert result.best_score >= -300.0, [e.score for e in result.evaluations]
    assert evaluate(config, tmp_path, quiet=True) == result.best_score


@pytest.mark.slow
@pytest.mark.parametrize("variant", [None, "ddpg"])
def test_td3_and_ddpg_reach_minus_200_on_pendulum_within_20k_env_steps(
    tmp_path: Path, variant: str | None
) -> None:
    """The zoo entry's full run (20,000 env steps, 10,000 of them random), seeds 0-2: median best greedy
    mean >= -200 over 10 episodes."""
    median_of_three_seeds(
        lambda seed, model_dir: zoo_experiment(
            "td3", "Pendulum-v1", model_dir, variant=variant, trainer={"seed": seed}
        ),
        tmp_path,
        -200.0,
        20_000,
    )
