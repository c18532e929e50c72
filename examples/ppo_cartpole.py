"""PPO on CartPole-v1, 8 envs, RL-Zoo settings.

Train, then evaluate the best model saved during training::

    python -m examples.ppo_cartpole --train --model-dir runs/ppo_cartpole
    python -m examples.ppo_cartpole --eval --model-dir runs/ppo_cartpole

The defaults are RL Zoo's (rl-baselines3-zoo, hyperparams/ppo.yml, CartPole-v1): 8 envs, rollouts of 32
steps (256 transitions), 20 epochs of one minibatch of 256, GAE lambda 0.8, gamma 0.98, no entropy bonus,
learning rate 1e-3 and clip range 0.2 both falling linearly to 0 over 100,000 env steps; SB3's policy (64x64
tanh MLPs for the policy and the value, orthogonal initialisation). One opt step per rollout
(``opt_interval`` = 256 env steps).
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

    env: GymVecEnvConfig = GymVecEnvConfig(name="CartPole-v1", num_envs=8)
    trainer: TrainerConfig = TrainerConfig(
        max_env_steps=100_000,
        opt_interval=256,
        eval_interval=8,
        record_interval=8,
        save_interval=100,
        model_dir="runs/ppo_cartpole",
        seed=0,
        checkpoint_buffer=True,
    )
    step_processor: SimpleStepProcessorConfig = SimpleStepProcessorConfig(gamma=0.98)
    replay_buffer: RolloutBufferConfig = RolloutBufferConfig(n_steps=32, num_envs=8)
    agent: PpoConfig = PpoConfig(
        n_epochs=20,
        batch_size=256,
        gae_lambda=0.8,
        ent_coef=0.0,
        lr=1e-3,
        lr_schedule="linear",
        clip_range=0.2,
        clip_schedule="linear",
        schedule_env_steps=100_000,
    )
    evaluator: DefaultEvaluatorConfig = DefaultEvaluatorConfig(n_episodes=5)
    torch_threads: int = attrs.field(default=1, validator=attrs.validators.gt(0))
    """Torch intra-op threads."""

    @property
    def eval_env(self) -> GymEnvConfig:
        """The evaluation env: one sub-env of the training env (seeded apart by the harness)."""
        return self.env.single()


def make_agent(config: Config, env: GymEnv) -> Ppo:
    """The agent, sized by ``env``."""
    return Ppo(config.agent, env.obs_dim, seed=config.trainer.seed, n_actions=env.n_actions)


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
