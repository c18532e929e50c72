"""DQN on CartPole-v1.

Train, then evaluate the best model saved during training::

    python -m examples.dqn_cartpole --train --model-dir runs/dqn_cartpole
    python -m examples.dqn_cartpole --eval --model-dir runs/dqn_cartpole

Training writes ``model_dir/config.yaml`` (the config it ran with), ``model_dir/best/`` (the best greedy
evaluation so far), ``model_dir/<opt_steps>/`` every ``save_interval`` opt steps and TensorBoard event files
in ``model_dir/tensorboard`` (``tensorboard --logdir runs``). ``--config FILE`` reads the config from YAML;
``--eval`` reads ``model_dir/config.yaml`` unless ``--config`` is given.

The defaults follow RL-Zoo's DQN CartPole-v1 hyperparameters (lr 2.3e-3, batch 64, 256x256, buffer 1e5,
warm-up 1000 env steps, epsilon to 0.04 over 8000 env steps), with one opt step every 2 env steps in place
of SB3's 128 gradient steps every 256 env steps. SB3's ``target_update_interval=10`` counts env steps and
fires only between gradient blocks, so its target changes once per 128 gradient steps: here the target is
copied every 128 opt steps. (Copying it every 5 opt steps makes Q diverge at gamma 0.99.)
"""

from __future__ import annotations

import sys
from pathlib import Path

import attrs

from border_py import (
    DefaultEvaluatorConfig,
    GymEnvConfig,
    NStepStepProcessorConfig,
    SimpleReplayBufferConfig,
    TrainerConfig,
    TrainResult,
)
from border_py.agents import Dqn, DqnConfig, EpsilonGreedyConfig
from border_py.envs import GymEnv
from examples.harness import EvalOptions, RunOptions, evaluate_saved, run_example, train_online


@attrs.frozen(kw_only=True)
class Config:
    """Everything one run of this example needs."""

    env: GymEnvConfig = GymEnvConfig(name="CartPole-v1")
    trainer: TrainerConfig = TrainerConfig(
        max_opts=25_000,
        opt_interval=2,
        warmup_period=1_000,
        eval_interval=1_000,
        record_interval=500,
        save_interval=5_000,
        model_dir="runs/dqn_cartpole",
        seed=0,
        checkpoint_buffer=True,
    )
    step_processor: NStepStepProcessorConfig = NStepStepProcessorConfig(n_steps=1, gamma=0.99)
    """One-step transitions; ``n_steps: 3`` gives 3-step returns."""
    replay_buffer: SimpleReplayBufferConfig = SimpleReplayBufferConfig(capacity=100_000)
    agent: DqnConfig = DqnConfig(
        hidden=(256, 256),
        lr=2.3e-3,
        batch_size=64,
        target_update_interval=128,
        loss="huber",
        max_grad_norm=10.0,
        explorer=EpsilonGreedyConfig(eps_start=1.0, eps_final=0.04, final_step=8_000),
    )
    evaluator: DefaultEvaluatorConfig = DefaultEvaluatorConfig(n_episodes=10)
    torch_threads: int = attrs.field(default=1, validator=attrs.validators.gt(0))
    """Torch intra-op threads. 1 keeps the other cores for the env and anything else running; 2 trains
    256x256 networks faster on an otherwise idle 2-core machine (``benchmarks/RESULTS.md``)."""

    @property
    def eval_env(self) -> GymEnvConfig:
        """The evaluation env: the training env's config (seeded apart by the harness)."""
        return self.env


def make_agent(config: Config, env: GymEnv) -> Dqn:
    """The agent, sized by ``env``."""
    return Dqn(config.agent, obs_dim=env.obs_dim, n_actions=env.n_actions, seed=config.trainer.seed)


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
