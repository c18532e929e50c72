"""IQL on the hopper-medium dataset (MuJoCo Hopper-v5; slow), CORL's locomotion settings.

Build the dataset (``python -m examples.make_datasets --only hopper``, slow), train, then evaluate::

    python -m examples.iql_hopper --train --model-dir runs/iql_hopper
    python -m examples.iql_hopper --eval --model-dir runs/iql_hopper

As ``iql_pendulum``, with observations normalised by the dataset's statistics and rewards scaled by
``1000 / (max - min episode return)``, 1,000,000 gradient steps and an evaluation every 5,000. Needs the
``mujoco`` extra.
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

    env: GymEnvConfig = GymEnvConfig(name="Hopper-v5")
    """The evaluation env (offline training takes no env steps)."""
    dataset: MinariDatasetConfig = MinariDatasetConfig(
        dataset_id="hopper-medium-v0",
        gamma=0.99,
        data_path="runs/datasets",
        reward_normalization="return_range",
    )
    trainer: TrainerConfig = TrainerConfig(
        max_opts=1_000_000,
        eval_interval=5_000,
        record_interval=500,
        save_interval=5_000,
        model_dir="runs/iql_hopper",
        seed=0,
    )
    agent: IqlConfig = IqlConfig(normalize_obs=True)
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
