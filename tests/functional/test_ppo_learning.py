"""PPO learns CartPole-v1 and Pendulum-v1 (the zoo's entries): a short run in the default suite, the
issue's targets behind ``-m slow``; and resumes exactly."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from border_py import (
    AtariVecEnvConfig,
    BufferedRecorder,
    DefaultEvaluatorConfig,
    GymEnvConfig,
    GymVecEnvConfig,
    RolloutBufferConfig,
    SimpleStepProcessorConfig,
    Trainer,
    TrainerConfig,
    seed_everything,
)
from border_py.agents import Ppo, PpoConfig
from border_py.base import Spaces
from border_py.model_dir import latest_checkpoint
from border_py.run import AnyExperiment, Experiment, evaluate, zoo
from tests.zoo_runs import median_of_three_seeds, train_quietly, zoo_experiment


@pytest.mark.functional
def test_short_ppo_run_learns_cartpole_far_beyond_random_play(tmp_path: Path) -> None:
    """20,480 env steps (80 rollouts, about 10 s): a random policy scores about 22."""
    trainer = {"max_env_steps": 20_480, "save_interval": None}
    config = zoo_experiment("ppo", "CartPole-v1", tmp_path, trainer=trainer)
    result = train_quietly(config)
    assert result.best_score >= 150.0
    assert evaluate(config, tmp_path, quiet=True) == result.best_score


@pytest.mark.slow
def test_ppo_reaches_475_on_cartpole_within_1e5_env_steps(tmp_path: Path) -> None:
    """The zoo entry's full run (100,000 env steps), seeds 0-2: median best >= 475, reached within budget."""
    results = median_of_three_seeds(_zoo_seed("CartPole-v1"), tmp_path, 475.0, 100_000)
    assert [r.env_steps for r in results] == [100_000] * 3
    reached = [r.env_steps_to_reach(475.0) for r in results]
    assert sum(r is not None for r in reached) >= 2, reached


@pytest.mark.slow
def test_ppo_reaches_minus_200_on_pendulum_within_1e5_env_steps(tmp_path: Path) -> None:
    """The zoo entry's full run with gSDE (100,000 env steps), seeds 0-2: median best >= -200."""
    median_of_three_seeds(_zoo_seed("Pendulum-v1"), tmp_path, -200.0, 100_000)


def _zoo_seed(env_id: str) -> Callable[[int, Path], AnyExperiment]:
    return lambda seed, model_dir: zoo_experiment("ppo", env_id, model_dir, trainer={"seed": seed})


def _train(max_opts: int, model_dir: Path, resume_from: Path | None = None) -> tuple[Ppo, list[float]]:
    config = TrainerConfig(
        max_opts=max_opts,
        opt_interval=64,
        eval_interval=3,
        save_interval=6,
        model_dir=str(model_dir),
        seed=4,
        checkpoint_buffer=True,
    )
    trainer = Trainer(
        config,
        GymEnvConfig(name="CartPole-v1"),
        SimpleStepProcessorConfig(gamma=0.98),
        RolloutBufferConfig(n_steps=64),
    )
    agent = Ppo(
        PpoConfig(batch_size=16, n_epochs=2, normalize_obs=True, normalize_reward=True),
        Spaces(obs_shape=(4,), n_actions=2),
        seed=4,
    )
    eval_env = GymEnvConfig(name="CartPole-v1").build(seed=5)
    result = trainer.train(
        agent,
        BufferedRecorder(),
        DefaultEvaluatorConfig(n_episodes=2).build(eval_env),
        resume_from=resume_from,
    )
    eval_env.close()
    return agent, [e.score for e in result.evaluations]


@pytest.mark.functional
def test_ppo_n_plus_resume_plus_n_equals_2n(tmp_path: Path) -> None:
    """A single env (the zoo's vector env: ``test_vector_resume.py``); the checkpoint falls mid-episode, so
    the rollout's start, the normalisation statistics and the return accumulator must all come back."""
    torch.set_num_threads(1)
    seed_everything(0)
    whole, whole_scores = _train(12, tmp_path / "whole")
    seed_everything(0)
    _, first_scores = _train(6, tmp_path / "split")
    checkpoint = latest_checkpoint(tmp_path / "split")
    assert checkpoint == tmp_path / "split" / "6"
    seed_everything(123)
    resumed, resumed_scores = _train(12, tmp_path / "split", resume_from=checkpoint)
    assert resumed_scores == whole_scores
    assert first_scores == whole_scores[:2]
    whole_net, resumed_net = whole.parts.model.net, resumed.parts.model.net
    for a, b in zip(whole_net.state_dict().values(), resumed_net.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    assert (resumed.obs_rms.mean == whole.obs_rms.mean).all()
    assert (resumed._returns == whole._returns).all()


@pytest.mark.parametrize("env_id", zoo.env_ids("ppo"))
def test_every_ppo_zoo_entry_pairs_its_rollouts_with_the_schedule(env_id: str, tmp_path: Path) -> None:
    config = zoo_experiment("ppo", env_id, tmp_path)
    assert isinstance(config, Experiment)
    buffer, env = config.replay_buffer, config.env
    assert isinstance(buffer, RolloutBufferConfig)
    assert isinstance(env, GymVecEnvConfig | AtariVecEnvConfig)
    assert config.trainer.opt_interval == buffer.rollout_size
    assert buffer.num_envs == env.num_envs
    single = env.single() if isinstance(env, GymVecEnvConfig) else env.env.evaluation()
    assert single == config.eval_env()
