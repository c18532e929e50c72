"""Exact resume of the on-policy agents on a single env: N opt steps, a stop, ``resume`` and N more end
with the very parameters, optimiser states, normalisation statistics and evaluations of 2N uninterrupted
(PPO in the zoo's vector env: ``test_vector_resume.py``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

from border_py import (
    DefaultEvaluatorConfig,
    GymEnvConfig,
    RolloutBufferConfig,
    SimpleStepProcessorConfig,
    Trainer,
    TrainerConfig,
    TrainResult,
)
from border_py.agents import A2c, A2cConfig, OnPolicyAgent, Ppo, PpoConfig, RecurrentPpo, RecurrentPpoConfig
from border_py.model_dir import latest_checkpoint
from border_py.recorders import BufferedRecorder
from border_py.seeding import seed_everything
from border_py.trainer.state import read_trainer_state

ROLLOUT = 16
CASES: dict[str, tuple[str, Callable[[Any], OnPolicyAgent[Any]]]] = {
    "a2c-normalized": (
        "CartPole-v1",
        lambda spaces: A2c(
            A2cConfig(hidden=(16,), normalize_obs=True, normalize_reward=True), spaces, seed=3
        ),
    ),
    "a2c-gsde": (
        "Pendulum-v1",
        lambda spaces: A2c(
            A2cConfig(
                hidden=(16,), gsde=True, log_std_init=-2.0, lr_schedule="linear", schedule_env_steps=960
            ),
            spaces,
            seed=3,
        ),
    ),
    "ppo": (
        "CartPole-v1",
        lambda spaces: Ppo(PpoConfig(hidden=(16,), batch_size=8, n_epochs=2), spaces, seed=3),
    ),
    # Its LSTMs' memories (the acting lanes', the next rollout's) come back from state.pt.
    "recurrent_ppo": (
        "CartPole-v1",
        lambda spaces: RecurrentPpo(
            RecurrentPpoConfig(hidden=(16,), lstm_hidden=8, batch_size=8, n_epochs=2), spaces, seed=3
        ),
    ),
}


def _train(
    case: str, max_opts: int, model_dir: Path, resume_from: Path | None = None
) -> tuple[Any, TrainResult]:
    env_name, make_agent = CASES[case]
    config = TrainerConfig(
        max_opts=max_opts,
        opt_interval=ROLLOUT,
        warmup_period=0,
        eval_interval=10,
        record_interval=5,
        save_interval=30,
        model_dir=str(model_dir),
        seed=5,
        checkpoint_buffer=True,
    )
    buffer = RolloutBufferConfig(n_steps=ROLLOUT, num_envs=1)
    trainer = Trainer(config, GymEnvConfig(name=env_name), SimpleStepProcessorConfig(gamma=0.99), buffer)
    eval_env = GymEnvConfig(name=env_name).build(seed=6)
    agent = make_agent(eval_env.spaces)
    evaluator = DefaultEvaluatorConfig(n_episodes=2).build(eval_env)
    result = trainer.train(agent, BufferedRecorder(), evaluator, resume_from=resume_from)
    eval_env.close()
    return agent, result


def _state(agent: OnPolicyAgent[Any]) -> dict[str, Any]:
    """Every tensor of the network and the optimiser, and the normalisation statistics."""
    model = agent.parts.model
    optimizer = [v for s in model.optimizer.state.values() for v in s.values() if isinstance(v, torch.Tensor)]
    stats = [agent.obs_rms.mean, agent.obs_rms.var, agent.ret_rms.var]
    if isinstance(agent, RecurrentPpo):
        stats += [agent._state()["memory"], agent._state()["rollout_memory"]]
    return {"params": [p.detach().clone() for p in model.params], "optimizer": optimizer, "stats": stats}


@pytest.mark.functional
@pytest.mark.parametrize("case", sorted(CASES))
def test_n_plus_resume_plus_n_equals_2n_on_a_single_env(case: str, tmp_path: Path) -> None:
    torch.set_num_threads(1)
    seed_everything(0)
    whole, whole_result = _train(case, 60, tmp_path / "whole")
    seed_everything(0)
    _train(case, 30, tmp_path / "split")
    checkpoint = latest_checkpoint(tmp_path / "split")
    assert checkpoint == tmp_path / "split" / "30"
    assert len(read_trainer_state(checkpoint, "online")["source"]["sampler"]["actions"]) > 0  # mid-episode
    seed_everything(123)
    resumed, resumed_result = _train(case, 60, tmp_path / "split", resume_from=checkpoint)
    assert resumed_result == whole_result  # counters, best score and every evaluation
    mine, theirs = _state(resumed), _state(whole)
    for key in mine:
        assert len(mine[key]) == len(theirs[key])
        assert all(
            torch.equal(torch.as_tensor(a), torch.as_tensor(b))
            for a, b in zip(mine[key], theirs[key], strict=True)
        ), key
