"""SAC on a MuJoCo task (HalfCheetah-v5 by default) through ``gymnasium[mujoco]``.

Needs the ``mujoco`` extra (``pip install -e '.[mujoco]'``; ``make install`` includes it). Train, then
evaluate the best model saved during training::

    python -m examples.sac_mujoco --train --model-dir runs/sac_halfcheetah
    python -m examples.sac_mujoco --eval --model-dir runs/sac_halfcheetah

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

from border_py import (
    DefaultEvaluatorConfig,
    GymEnvConfig,
    NStepStepProcessorConfig,
    SimpleReplayBufferConfig,
    TrainerConfig,
    TrainResult,
)
from border_py.agents import Sac, SacConfig
from border_py.envs import GymEnv
from examples.harness import EvalOptions, RunOptions, evaluate_saved, run_example, train_online


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
        checkpoint_buffer=True,
        keep_checkpoints=2,
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
    """Torch intra-op threads. 1 keeps the other cores for the env and anything else running; 2 trains
    256x256 networks faster on an otherwise idle 2-core machine (``benchmarks/RESULTS.md``)."""

    @property
    def eval_env(self) -> GymEnvConfig:
        """The evaluation env: the training env's config (seeded apart by the harness)."""
        return self.env


def make_agent(config: Config, env: GymEnv) -> Sac:
    """The agent, sized by ``env`` and bounded by its Box action space."""
    return Sac(config.agent, env.obs_dim, *env.action_bounds, seed=config.trainer.seed)


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
