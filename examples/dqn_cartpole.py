"""DQN on CartPole-v1.

Train, then evaluate the best model saved during training::

    python examples/dqn_cartpole.py --train --model-dir runs/dqn_cartpole
    python examples/dqn_cartpole.py --eval --model-dir runs/dqn_cartpole

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

import argparse
import sys
from pathlib import Path

import attrs
import torch

from border_py import (
    DefaultEvaluator,
    DefaultEvaluatorConfig,
    GymEnvConfig,
    SimpleReplayBufferConfig,
    SimpleStepProcessorConfig,
    TensorboardRecorder,
    Trainer,
    TrainerConfig,
    load_yaml,
    save_yaml,
    seed_everything,
)
from border_py.agents import Dqn, DqnConfig, EpsilonGreedyConfig
from border_py.envs import Act, Obs


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
    )
    replay_buffer: SimpleReplayBufferConfig = SimpleReplayBufferConfig(capacity=100_000)
    agent: DqnConfig = DqnConfig(
        hidden=(256, 256),
        lr=2.3e-3,
        batch_size=64,
        gamma=0.99,
        target_update_interval=128,
        loss="huber",
        max_grad_norm=10.0,
        explorer=EpsilonGreedyConfig(eps_start=1.0, eps_final=0.04, final_step=8_000),
    )
    evaluator: DefaultEvaluatorConfig = DefaultEvaluatorConfig(n_episodes=10)
    torch_threads: int = attrs.field(default=1, validator=attrs.validators.gt(0))
    """Torch intra-op threads: 1 is fastest for networks this small on a 2-core machine."""


def make_agent_and_evaluator(config: Config) -> tuple[Dqn, DefaultEvaluator[Obs, Act]]:
    """Builds the evaluation env once: the agent reads its sizes from it, the evaluator runs on it."""
    eval_env = config.env.build(seed=config.trainer.seed + 1)
    agent = Dqn(
        config.agent, obs_dim=eval_env.obs_dim, n_actions=eval_env.n_actions, seed=config.trainer.seed
    )
    return agent, config.evaluator.build(eval_env)


def train(config: Config, progress: bool = True) -> float:
    """Trains, saving into ``config.trainer.model_dir``; returns the best evaluation score."""
    assert config.trainer.model_dir is not None, "this example always saves its models"
    model_dir = Path(config.trainer.model_dir)
    seed_everything(config.trainer.seed)
    torch.set_num_threads(config.torch_threads)
    model_dir.mkdir(parents=True, exist_ok=True)
    save_yaml(config, model_dir / "config.yaml")

    agent, evaluator = make_agent_and_evaluator(config)
    trainer = Trainer(config.trainer, config.env, SimpleStepProcessorConfig(), config.replay_buffer)
    recorder = TensorboardRecorder(model_dir / "tensorboard")
    try:
        result = trainer.train(agent, recorder, evaluator, progress=progress)
    finally:
        recorder.close()
    print(f"trained {result.opt_steps} opt steps, {result.env_steps} env steps", end="; ")
    print(f"best eval {result.best_score:.1f}")
    return result.best_score


def evaluate(config: Config, model_dir: Path) -> float:
    """Loads ``model_dir/best`` and returns its greedy mean return over the evaluator's episodes."""
    torch.set_num_threads(config.torch_threads)
    agent, evaluator = make_agent_and_evaluator(config)
    agent.load_params(model_dir / "best")
    agent.eval()
    score, _ = evaluator.evaluate(agent)
    print(
        f"eval of {model_dir / 'best'}: mean return {score:.1f} over {config.evaluator.n_episodes} episodes"
    )
    return score


def main(argv: list[str] | None = None) -> int:
    """Parses the flags and runs training and/or evaluation."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--train", action="store_true", help="train and save models")
    parser.add_argument("--eval", action="store_true", help="evaluate model_dir/best")
    parser.add_argument("--model-dir", type=Path, help="where models, config and logs go")
    parser.add_argument("--config", type=Path, help="a YAML config (default: the built-in one)")
    parser.add_argument("--seed", type=int, help="seed of the run")
    parser.add_argument("--max-opts", type=int, help="opt steps to train")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    if not (args.train or args.eval):
        parser.error("give --train, --eval or both")

    config = Config()
    if args.config is not None:
        config = load_yaml(Config, args.config)
    elif (
        args.eval
        and not args.train
        and args.model_dir is not None
        and (args.model_dir / "config.yaml").is_file()
    ):
        config = load_yaml(Config, args.model_dir / "config.yaml")
    trainer = config.trainer
    if args.model_dir is not None:
        trainer = attrs.evolve(trainer, model_dir=str(args.model_dir))
    if args.seed is not None:
        trainer = attrs.evolve(trainer, seed=args.seed)
    if args.max_opts is not None:
        trainer = attrs.evolve(trainer, max_opts=args.max_opts)
    config = attrs.evolve(config, trainer=trainer)

    if args.train:
        train(config, progress=not args.no_progress)
    if args.eval:
        assert config.trainer.model_dir is not None
        evaluate(config, Path(config.trainer.model_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
