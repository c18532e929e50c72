"""PPO with gSDE on Pendulum-v1, 4 envs, RL-Zoo settings.

Train, then evaluate the best model saved during training::

    python -m examples.ppo_pendulum --train --model-dir runs/ppo_pendulum
    python -m examples.ppo_pendulum --eval --model-dir runs/ppo_pendulum

The defaults are RL Zoo's (rl-baselines3-zoo, hyperparams/ppo.yml, Pendulum-v1): 4 envs, rollouts of 1024
steps (4,096 transitions), 10 epochs of minibatches of 64, GAE lambda 0.95, gamma 0.9, learning rate 1e-3,
clip range 0.2, generalized state-dependent exploration with new noise weights every 4 steps, within 100,000
env steps. Actions are Gaussian around the mean, clipped to [-2, 2] by the env adapter
(``clip_actions``); the buffer keeps the unclipped action, whose log-probability is exact.
"""

from __future__ import annotations

import sys
from pathlib import Path

import attrs

from border_py import (
    DefaultEvaluatorConfig,
    GymEnvConfig,
    GymVecEnvConfig,
    RolloutBufferConfig,
    SimpleStepProcessorConfig,
    TrainerConfig,
    TrainResult,
)
from border_py.agents import Ppo, PpoConfig
from border_py.envs import GymEnv
from examples.harness import EvalOptions, RunOptions, evaluate_saved, run_example, train_online


@attrs.frozen(kw_only=True)
class Config:
    """Everything one run of this example needs."""

    env: GymVecEnvConfig = GymVecEnvConfig(name="Pendulum-v1", num_envs=4, clip_actions=True)
    trainer: TrainerConfig = TrainerConfig(
        max_env_steps=100_000,
        opt_interval=4_096,
        eval_interval=1,
        record_interval=1,
        save_interval=5,
        model_dir="runs/ppo_pendulum",
        seed=0,
        checkpoint_buffer=True,
    )
    step_processor: SimpleStepProcessorConfig = SimpleStepProcessorConfig(gamma=0.9)
    replay_buffer: RolloutBufferConfig = RolloutBufferConfig(n_steps=1_024, num_envs=4)
    agent: PpoConfig = PpoConfig(
        n_epochs=10,
        batch_size=64,
        gae_lambda=0.95,
        ent_coef=0.0,
        lr=1e-3,
        clip_range=0.2,
        gsde=True,
        sde_sample_freq=4,
    )
    evaluator: DefaultEvaluatorConfig = DefaultEvaluatorConfig(n_episodes=10)
    torch_threads: int = attrs.field(default=1, validator=attrs.validators.gt(0))
    """Torch intra-op threads."""

    @property
    def eval_env(self) -> GymEnvConfig:
        """The evaluation env: one sub-env of the training env (seeded apart by the harness)."""
        return self.env.single()


def make_agent(config: Config, env: GymEnv) -> Ppo:
    """The agent, sized by ``env`` (its actions are clipped by the env, not by the agent)."""
    return Ppo(config.agent, env.obs_dim, seed=config.trainer.seed, action_dim=len(env.action_bounds[0]))


def train(config: Config, options: RunOptions | None = None) -> TrainResult:
    """Trains, saving into ``config.trainer.model_dir`` (continuing from its newest checkpoint with
    ``options.resume``); returns the scores and step counts."""
    return train_online(config, lambda env: make_agent(config, env), options or RunOptions())


def evaluate(config: Config, model_dir: Path, options: EvalOptions | None = None) -> float:
    """Loads ``model_dir/best`` and returns its greedy mean return over the evaluator's episodes (and
    records a video or exports the policy when ``options`` say)."""
    return evaluate_saved(config, lambda env: make_agent(config, env), model_dir, options)


def main(argv: list[str] | None = None) -> int:
    """Parses the flags and runs training and/or evaluation."""
    return run_example(argv, __doc__, Config(), train, evaluate)


if __name__ == "__main__":
    sys.exit(main())
