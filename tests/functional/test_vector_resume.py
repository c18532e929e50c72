"""Exact resume of PPO in the zoo's CartPole vector env (8 sub-envs, ``mode: sync``, rollouts of 32 steps),
and of recurrent PPO in its CartPole without velocities (the same shape; each lane's LSTM memory too):
a run of 4 rollouts ends with the very checkpoint (agent tensors, optimiser, trainer state with its
counters, evaluations, RNG states and every sub-env's episode, buffer) as one stopped at a rollout's end
or in the middle of one and resumed. Each sub-env's unfinished episode is replayed from its saved start,
and the rollout stopped half way is completed with the transitions it would have had."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from border_py.run import TrainOptions, train
from border_py.trainer.state import read_trainer_state
from tests.checkpoint_diff import checkpoint_differences
from tests.zoo_runs import train_quietly, zoo_experiment

ROLLOUT = 32 * 8
"""In env steps: one rollout of the zoo's CartPole entry."""


ENTRIES = {"ppo": "CartPole-v1", "recurrent_ppo": "border_py/CartPoleNoVel-v1"}


def _run(algo: str, model_dir: Path, resume: bool = False, **trainer: Any) -> None:
    budget = {"max_opts": 4, "max_env_steps": None, **trainer}
    schedule = {"eval_interval": 2, "record_interval": 1, "save_interval": 3, **budget}
    experiment = zoo_experiment(algo, ENTRIES[algo], model_dir, trainer=schedule, evaluator={"n_episodes": 2})
    if resume:
        train(experiment, TrainOptions(progress=False, quiet=True, resume=True))
    else:
        train_quietly(experiment)


@pytest.mark.functional
@pytest.mark.parametrize("algo", sorted(ENTRIES))
@pytest.mark.parametrize(
    ("stop", "env_steps"),
    [
        ({"max_opts": 2}, 2 * ROLLOUT),
        ({"max_opts": None, "max_env_steps": 2 * ROLLOUT + 8 * 13}, 2 * ROLLOUT + 8 * 13),
    ],
    ids=["at-a-rollouts-end", "inside-a-rollout"],
)
def test_ppo_in_a_vector_env_resumes_exactly(
    algo: str, stop: dict[str, Any], env_steps: int, tmp_path: Path
) -> None:
    _run(algo, tmp_path / "whole")
    _run(algo, tmp_path / "split", **stop)
    state = read_trainer_state(tmp_path / "split" / "2", "online")
    assert state["books"]["env_steps"] == env_steps
    actions = state["source"]["sampler"]["actions"]
    assert len(actions) == 8
    assert any(len(a) > 0 for a in actions)
    _run(algo, tmp_path / "split", resume=True)
    assert checkpoint_differences(tmp_path / "whole" / "4", tmp_path / "split" / "4") == []
