"""IQL on the pendulum-medium dataset (Pendulum-v1), the paper's and CORL's settings.

Build the dataset (``make datasets``), train, then evaluate the best model::

    python -m examples.iql_pendulum --train --model-dir runs/iql_pendulum
    python -m examples.iql_pendulum --eval --model-dir runs/iql_pendulum

Expectile 0.7, temperature 3, advantage weights clipped at 100, twin 256x256 critics and value network,
a Gaussian actor, Adam at 3e-4, batch 256, Polyak 0.005, 20,000 gradient steps, a greedy evaluation over 10
episodes every 1,000.
"""

from __future__ import annotations

import sys
from pathlib import Path

import attrs

from border_py import DefaultEvaluatorConfig, GymEnvConfig, TrainerConfig, TrainResult
from border_py.agents import Iql, IqlConfig
from border_py.agents.offline_base import ObsStats
from border_py.datasets import MinariDatasetConfig
from border_py.envs import GymEnv
from examples.harness import EvalOptions, RunOptions, evaluate_saved, run_example, train_offline


@attrs.frozen(kw_only=True)
class Config:
    """Everything one run of this example needs."""

    env: GymEnvConfig = GymEnvConfig(name="Pendulum-v1")
    """The evaluation env (offline training takes no env steps)."""
    dataset: MinariDatasetConfig = MinariDatasetConfig(
        dataset_id="pendulum-medium-v0", gamma=0.99, data_path="runs/datasets"
    )
    trainer: TrainerConfig = TrainerConfig(
        max_opts=20_000,
        eval_interval=1_000,
        record_interval=500,
        save_interval=5_000,
        model_dir="runs/iql_pendulum",
        seed=0,
    )
    agent: IqlConfig = IqlConfig()
    evaluator: DefaultEvaluatorConfig = DefaultEvaluatorConfig(n_episodes=10)
    torch_threads: int = attrs.field(default=1, validator=attrs.validators.gt(0))
    """Torch intra-op threads."""

    @property
    def eval_env(self) -> GymEnvConfig:
        """The evaluation env (seeded apart by the harness)."""
        return self.env


def make_agent(config: Config, env: GymEnv, stats: ObsStats | None) -> Iql:
    """The agent, sized and bounded by ``env`` (``stats``: the dataset's observation statistics)."""
    return Iql(config.agent, env.obs_dim, env.action_bounds, seed=config.trainer.seed, obs_stats=stats)


def train(config: Config, options: RunOptions | None = None) -> TrainResult:
    """Trains on the dataset, saving into ``config.trainer.model_dir`` (continuing from its newest
    checkpoint with ``options.resume``); returns the scores and step counts."""
    return train_offline(config, lambda env, stats: make_agent(config, env, stats), options or RunOptions())


def evaluate(config: Config, model_dir: Path, options: EvalOptions | None = None) -> float:
    """Loads ``model_dir/best`` and returns its greedy mean return over the evaluator's episodes (and
    records a video or exports the policy when ``options`` say)."""
    return evaluate_saved(config, lambda env: make_agent(config, env, None), model_dir, options)


def main(argv: list[str] | None = None) -> int:
    """Parses the flags and runs training and/or evaluation."""
    return run_example(argv, __doc__, Config(), train, evaluate)


if __name__ == "__main__":
    sys.exit(main())
