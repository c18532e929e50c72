"""AWAC on the pendulum-medium dataset (Pendulum-v1), then online fine-tuning from the same checkpoint.

Build the dataset (``make datasets``), train offline, fine-tune online, then evaluate::

    python -m examples.awac_pendulum --train --model-dir runs/awac_pendulum
    python -m examples.awac_pendulum --train --model-dir runs/awac_pendulum_ft --finetune-env-steps 5000
    python -m examples.awac_pendulum --eval --model-dir runs/awac_pendulum

Offline: twin 256x256 critics, a Gaussian actor, lambda 10, advantage weights clipped at 100, Adam at 3e-4,
batch 256, Polyak 0.005, 20,000 gradient steps, a greedy evaluation over 10 episodes every 1,000 (CORL's
settings, but lambda: see ``Config.agent``). With ``--finetune-env-steps N``, the offline run is followed
by N env steps of online training of the same agent (loaded from the offline ``best/``, acting by
sampling) with one update per env step, in ``model_dir/finetune``, its replay buffer starting with the
dataset (AWAC's reason to exist).
"""

from __future__ import annotations

import sys
from pathlib import Path

import attrs

from border_py import (
    DefaultEvaluatorConfig,
    GymEnvConfig,
    SimpleStepProcessorConfig,
    TrainerConfig,
    TrainResult,
)
from border_py.agents import Awac, AwacConfig
from border_py.agents.offline_base import ObsStats
from border_py.datasets import MinariDatasetConfig, PrefilledReplayBufferConfig
from border_py.envs import GymEnv
from examples.harness import (
    EvalOptions,
    Flag,
    RunOptions,
    evaluate_saved,
    run_example,
    train_offline,
    train_online,
)


@attrs.frozen(kw_only=True)
class Config:
    """Everything one run of this example needs."""

    env: GymEnvConfig = GymEnvConfig(name="Pendulum-v1")
    """The evaluation env (and the fine-tuning env)."""
    dataset: MinariDatasetConfig = MinariDatasetConfig(
        dataset_id="pendulum-medium-v0", gamma=0.99, data_path="runs/datasets"
    )
    trainer: TrainerConfig = TrainerConfig(
        max_opts=20_000,
        eval_interval=1_000,
        record_interval=500,
        save_interval=5_000,
        model_dir="runs/awac_pendulum",
        seed=0,
    )
    agent: AwacConfig = AwacConfig(lam=10.0)
    """CORL's settings but the temperature: with ``lam`` 1 the critics diverged on pendulum-medium within
    4,000 steps (greedy return below -1,400, worse than random); 10 keeps the policy near the data."""
    evaluator: DefaultEvaluatorConfig = DefaultEvaluatorConfig(n_episodes=10)
    torch_threads: int = attrs.field(default=1, validator=attrs.validators.gt(0))
    """Torch intra-op threads."""

    @property
    def eval_env(self) -> GymEnvConfig:
        """The evaluation env (seeded apart by the harness)."""
        return self.env


@attrs.frozen(kw_only=True)
class FinetuneConfig:
    """The online fine-tuning run: the offline config's env, evaluator and agent, one update per env step,
    a replay buffer that starts with the dataset."""

    env: GymEnvConfig
    trainer: TrainerConfig
    step_processor: SimpleStepProcessorConfig
    replay_buffer: PrefilledReplayBufferConfig
    evaluator: DefaultEvaluatorConfig
    torch_threads: int

    @property
    def eval_env(self) -> GymEnvConfig:
        """The evaluation env (seeded apart by the harness)."""
        return self.env


def make_agent(config: Config, env: GymEnv, stats: ObsStats | None) -> Awac:
    """The agent, sized and bounded by ``env`` (``stats``: the dataset's observation statistics)."""
    return Awac(config.agent, env.obs_dim, env.action_bounds, seed=config.trainer.seed, obs_stats=stats)


def finetune(config: Config, env_steps: int, options: RunOptions) -> TrainResult:
    """``env_steps`` of online training of the offline run's ``best/``, in ``model_dir/finetune``."""
    offline_best = Path(str(config.trainer.model_dir)) / "best"
    online = FinetuneConfig(
        env=config.env,
        trainer=TrainerConfig(
            max_env_steps=env_steps,
            save_interval=env_steps,  # one update per env step: the fine-tuned policy at the end is kept
            eval_interval=config.trainer.eval_interval,
            record_interval=config.trainer.record_interval,
            model_dir=str(Path(str(config.trainer.model_dir)) / "finetune"),
            seed=config.trainer.seed,
        ),
        step_processor=SimpleStepProcessorConfig(gamma=config.dataset.gamma),
        replay_buffer=PrefilledReplayBufferConfig(capacity=1_000_000, dataset=config.dataset),
        evaluator=config.evaluator,
        torch_threads=config.torch_threads,
    )

    def loaded(env: GymEnv) -> Awac:
        agent = make_agent(config, env, None)
        agent.load_params(offline_best)
        return agent

    return train_online(online, loaded, attrs.evolve(options, resume=False))


def train(config: Config, options: RunOptions | None = None) -> TrainResult:
    """Trains on the dataset, then fine-tunes online when ``--finetune-env-steps`` is given; returns the
    last run's scores and step counts."""
    options = options or RunOptions()
    result = train_offline(config, lambda env, stats: make_agent(config, env, stats), options)
    steps = options.extra.get("finetune_env_steps")
    if steps:
        online = finetune(config, int(steps), options)
        print(f"offline best {result.best_score:.1f}; online fine-tuning best {online.best_score:.1f}")
        return online
    return result


def evaluate(config: Config, model_dir: Path, options: EvalOptions | None = None) -> float:
    """Loads ``model_dir/best`` and returns its greedy mean return over the evaluator's episodes (and
    records a video or exports the policy when ``options`` say)."""
    return evaluate_saved(config, lambda env: make_agent(config, env, None), model_dir, options)


def main(argv: list[str] | None = None) -> int:
    """Parses the flags and runs training and/or evaluation."""
    flag = Flag("finetune-env-steps", int, "after offline training, this many env steps of online training")
    return run_example(argv, __doc__, Config(), train, evaluate, extra_flags=[flag])


if __name__ == "__main__":
    sys.exit(main())
