"""Goal relabelling: SAC with HER reaches the goals of ``border_py/PointGoal-v0``'s sparse reward where the
same SAC without it does not, at the same budget, and a HER run interrupted mid-episode resumes to the
checkpoint of an uninterrupted one."""

from __future__ import annotations

from pathlib import Path

import torch

from border_py import (
    DefaultEvaluatorConfig,
    GymEnvConfig,
    HerStepProcessorConfig,
    SimpleReplayBufferConfig,
    Trainer,
    TrainerConfig,
    TrainResult,
)
from border_py.agents import Sac, SacConfig
from border_py.recorders import BufferedRecorder
from border_py.run import load_policy
from border_py.seeding import seed_everything
from border_py.trainer.state import read_trainer_state
from tests.checkpoint_diff import checkpoint_differences
from tests.zoo_runs import success_rate, train_quietly, zoo_experiment

ENV = "border_py/PointGoal-v0"
THRESHOLD = -20.0
"""A greedy return of the sparse reward: going straight to the goal scores about -9 (one -1 per step before
reaching it), never reaching it -50."""


def test_her_reaches_the_goals_that_sac_without_it_does_not(tmp_path: Path) -> None:
    """The zoo entry's variants ``her`` and ``sparse``: 5,000 env steps each (~2 min each here), seed 0."""
    results = {}
    for variant in ("her", "sparse"):
        results[variant] = train_quietly(zoo_experiment("sac", ENV, tmp_path / variant, variant=variant))
    assert results["her"].best_score >= THRESHOLD > results["sparse"].best_score
    assert success_rate(load_policy(tmp_path / "her"), ENV, reward_type="sparse") >= 0.9
    assert success_rate(load_policy(tmp_path / "sparse"), ENV, reward_type="sparse") <= 0.2


def _train(max_opts: int, model_dir: Path, resume_from: Path | None = None) -> TrainResult:
    config = TrainerConfig(
        max_opts=max_opts,
        warmup_period=70,
        eval_interval=40,
        record_interval=30,
        save_interval=120,
        model_dir=str(model_dir),
        seed=5,
        checkpoint_buffer=True,
    )
    env = GymEnvConfig(name=ENV, kwargs={"reward_type": "sparse"})
    # 5 transitions an env step: the ring of 1,000 wraps before the end.
    trainer = Trainer(config, env, HerStepProcessorConfig(), SimpleReplayBufferConfig(capacity=1000))
    eval_env = env.build(seed=6)
    agent = Sac(
        SacConfig(actor_hidden=(32, 32), critic_hidden=(32, 32), batch_size=32), eval_env.spaces, seed=3
    )
    evaluator = DefaultEvaluatorConfig(n_episodes=2).build(eval_env)
    result = trainer.train(agent, BufferedRecorder(), evaluator, resume_from=resume_from)
    eval_env.close()
    return result


def test_a_her_run_interrupted_mid_episode_resumes_to_the_uninterrupted_checkpoint(tmp_path: Path) -> None:
    torch.set_num_threads(1)
    seed_everything(0)
    whole = _train(240, tmp_path / "whole")
    seed_everything(0)
    assert _train(120, tmp_path / "split").opt_steps == 120
    checkpoint = tmp_path / "split" / "120"
    sampler = read_trainer_state(checkpoint, "online")["source"]["sampler"]
    assert 0 < len(sampler["actions"]) < 49  # mid-episode: the episode HER holds is replayed into it
    seed_everything(123)  # a fresh process would not share the first run's global RNG states
    resumed = _train(240, tmp_path / "split", resume_from=checkpoint)
    assert resumed == whole
    assert checkpoint_differences(tmp_path / "whole" / "240", tmp_path / "split" / "240") == []
