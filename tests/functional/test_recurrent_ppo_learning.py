"""Memory is what solves CartPole without its velocities: the zoo's recurrent PPO entry reaches 500 where
PPO with the same settings and no memory stays near 40 (``docs/algorithms/recurrent_ppo.md``'s results)."""

from __future__ import annotations

from pathlib import Path

from border_py.run import evaluate
from tests.zoo_runs import train_quietly, zoo_experiment

ENV = "border_py/CartPoleNoVel-v1"
BUDGET = 30_720
"""In env steps: 120 rollouts of 8 x 32 (~1 min for recurrent PPO here); seed 0 first reaches 500 at about
14,000."""


def test_recurrent_ppo_learns_what_ppo_without_memory_cannot(tmp_path: Path) -> None:
    changes = {"max_env_steps": BUDGET}
    recurrent = zoo_experiment("recurrent_ppo", ENV, tmp_path / "recurrent", trainer=changes)
    result = train_quietly(recurrent)
    assert result.env_steps == BUDGET
    assert evaluate(recurrent, tmp_path / "recurrent", quiet=True) == result.best_score
    assert result.best_score >= 450
    plain = train_quietly(zoo_experiment("ppo", ENV, tmp_path / "plain", trainer=changes))
    assert plain.best_score < 150
