"""PPO on Hopper-v5 (MuJoCo), RL-Zoo's tuned Hopper settings, 1,000,000 env steps (slow: hours on 2 cores).

Train, then evaluate the best model saved during training::

    python -m examples.ppo_mujoco --train --model-dir runs/ppo_mujoco
    python -m examples.ppo_mujoco --eval --model-dir runs/ppo_mujoco

The defaults are RL Zoo's for Hopper (rl-baselines3-zoo, hyperparams/ppo.yml, Hopper-v3, here on v5): one
env, rollouts of 512 steps, 5 epochs of minibatches of 32, GAE lambda 0.99, gamma 0.999, learning rate
9.8e-5, clip range 0.2, entropy 0.0023, value weight 0.836, gradient clip 0.7, 256x256 ReLU networks without
orthogonal initialisation, initial log-std -2, and observation and reward normalisation (their statistics
are saved in every checkpoint, so ``--resume`` and ``--eval`` use them). Needs the ``mujoco`` extra.
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

    env: GymVecEnvConfig = GymVecEnvConfig(name="Hopper-v5", num_envs=1, clip_actions=True)
    trainer: TrainerConfig = TrainerConfig(
        max_env_steps=1_000_000,
        opt_interval=512,
        eval_interval=20,
        record_interval=10,
        save_interval=200,
        model_dir="runs/ppo_mujoco",
        seed=0,
        checkpoint_buffer=True,
        keep_checkpoints=2,
    )
    step_processor: SimpleStepProcessorConfig = SimpleStepProcessorConfig(gamma=0.999)
    replay_buffer: RolloutBufferConfig = RolloutBufferConfig(n_steps=512, num_envs=1)
    agent: PpoConfig = PpoConfig(
        hidden=(256, 256),
        activation="relu",
        ortho_init=False,
        log_std_init=-2.0,
        n_epochs=5,
        batch_size=32,
        gae_lambda=0.99,
        ent_coef=0.00229519,
        vf_coef=0.835671,
        max_grad_norm=0.7,
        lr=9.80828e-05,
        clip_range=0.2,
        normalize_obs=True,
        normalize_reward=True,
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
