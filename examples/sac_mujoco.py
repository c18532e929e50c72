"""SAC on a MuJoCo task (HalfCheetah-v5 by default) through ``gymnasium[mujoco]``.

Needs the ``mujoco`` extra (``pip install -e '.[mujoco]'``; ``make install`` includes it). Train, then
evaluate the best model saved during training::

    python examples/sac_mujoco.py --train --model-dir runs/sac_halfcheetah
    python examples/sac_mujoco.py --eval --model-dir runs/sac_halfcheetah

The default is the long run of the SAC paper and RL-Zoo (1,000,000 env steps: 10,000 warm-up steps with no
updates, then one update per env step; learning rate 3e-4, 256x256 networks, batch 256, tau 0.005,
gamma 0.99, automatic entropy coefficient). At the ~90 updates per second SAC reaches on one CPU core of
a 2-core machine it takes about three hours; ``--max-opts`` shortens it. Another MuJoCo task is a config
change: ``env: {name: Hopper-v5}``. Evaluation uses 5 episodes of up to 1,000 steps every 10,000 opt steps.
MuJoCo writes ``MUJOCO_LOG.TXT`` into the working directory (warnings of its own; ignored by git).
"""

from __future__ import annotations

import sys
from pathlib import Path

import attrs
import torch

from border_py import (
    DefaultEvaluator,
    DefaultEvaluatorConfig,
    GymEnvConfig,
    NStepStepProcessorConfig,
    SimpleReplayBufferConfig,
    Trainer,
    TrainerConfig,
    TrainResult,
)
from border_py.agents import Sac, SacConfig
from border_py.envs import Act, Obs
from border_py.experiment import evaluate_saved, prepare_run, run_example, train_with_tensorboard


@attrs.frozen(kw_only=True)
class Config:
    """Everything one run of this example needs."""

    env: GymEnvConfig = GymEnvConfig(name="HalfCheetah-v5")
    trainer: TrainerConfig = TrainerConfig(
        max_opts=990_000,
        opt_interval=1,
        warmup_period=10_000,
        eval_interval=10_000,
        record_interval=1_000,
        save_interval=50_000,
        model_dir="runs/sac_halfcheetah",
        seed=0,
    )
    step_processor: NStepStepProcessorConfig = NStepStepProcessorConfig(n_steps=1, gamma=0.99)
    replay_buffer: SimpleReplayBufferConfig = SimpleReplayBufferConfig(capacity=1_000_000)
    agent: SacConfig = SacConfig(
        actor_hidden=(256, 256),
        critic_hidden=(256, 256),
        actor_lr=3e-4,
        critic_lr=3e-4,
        alpha_lr=3e-4,
        batch_size=256,
        tau=0.005,
    )
    evaluator: DefaultEvaluatorConfig = DefaultEvaluatorConfig(n_episodes=5)
    torch_threads: int = attrs.field(default=1, validator=attrs.validators.gt(0))
    """Torch intra-op threads: 1 is fastest for networks this small on a 2-core machine."""


def make_agent_and_evaluator(config: Config) -> tuple[Sac, DefaultEvaluator[Obs, Act]]:
    """Builds the evaluation env once: the agent reads its sizes and action bounds from it."""
    eval_env = config.env.build(seed=config.trainer.seed + 1)
    low, high = eval_env.action_bounds
    agent = Sac(config.agent, eval_env.obs_dim, low, high, seed=config.trainer.seed)
    return agent, config.evaluator.build(eval_env)


def train(config: Config, progress: bool = True) -> TrainResult:
    """Trains, saving into ``config.trainer.model_dir``; returns the scores and step counts."""
    model_dir = prepare_run(config)
    agent, evaluator = make_agent_and_evaluator(config)
    trainer = Trainer(config.trainer, config.env, config.step_processor, config.replay_buffer)
    return train_with_tensorboard(
        model_dir, lambda recorder: trainer.train(agent, recorder, evaluator, progress=progress)
    )


def evaluate(config: Config, model_dir: Path) -> float:
    """Loads ``model_dir/best`` and returns its greedy mean return over the evaluator's episodes."""
    torch.set_num_threads(config.torch_threads)
    agent, evaluator = make_agent_and_evaluator(config)
    return evaluate_saved(agent, evaluator, model_dir / "best")


def main(argv: list[str] | None = None) -> int:
    """Parses the flags and runs training and/or evaluation."""
    return run_example(argv, __doc__, Config(), train, evaluate)


if __name__ == "__main__":
    sys.exit(main())
