"""What every example script shares: its flags, config resolution, run directory and the two commands.

An example defines an attrs ``Config`` (see :class:`GymExampleConfig`), how to make its agent from the
evaluation env, ``train(config, progress) -> TrainResult`` (:func:`train_gym_example`) and
``evaluate(config, model_dir) -> float`` (:func:`evaluate_gym_example`); its ``main`` is
:func:`run_example`. The flags are the same for every example::

    python examples/<algo>_<env>.py --train --model-dir runs/x [--config FILE] [--seed N] [--max-opts N]
    python examples/<algo>_<env>.py --resume --model-dir runs/x   # continues from the newest checkpoint
    python examples/<algo>_<env>.py --eval --model-dir runs/x     # reads runs/x/config.yaml

Ctrl-C (SIGINT) or SIGTERM during training saves a checkpoint and exits with status 128 + the signal number;
``--resume`` continues from it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, Protocol, TypeVar

import attrs
import torch

from border_py.base.agent import Agent
from border_py.base.evaluator import Evaluator
from border_py.base.recorder import Recorder
from border_py.base.typevars import A, O
from border_py.checkpoint import ensure_writable_dir, latest_checkpoint, load_meta, resolve_saved
from border_py.config import load_yaml, save_yaml
from border_py.envs.gymnasium import Act, GymEnv, GymEnvConfig, Obs
from border_py.evaluator import DefaultEvaluatorConfig
from border_py.recorders.tensorboard import TensorboardRecorder
from border_py.replay_buffer.simple import SimpleReplayBufferConfig
from border_py.replay_buffer.transition import TransitionBatch
from border_py.seeding import seed_everything
from border_py.step_processor import NStepStepProcessorConfig
from border_py.trainer import Trainer, TrainerConfig, TrainingInterrupted, TrainResult


class ExampleConfig(Protocol):
    """What :func:`run_example` reads of an example's config (an attrs class)."""

    @property
    def trainer(self) -> TrainerConfig: ...

    @property
    def torch_threads(self) -> int: ...


C = TypeVar("C", bound=ExampleConfig)


class GymExampleConfig(ExampleConfig, Protocol):
    """An example on a Gymnasium env with transitions in a :class:`SimpleReplayBuffer`."""

    @property
    def env(self) -> GymEnvConfig: ...

    @property
    def step_processor(self) -> NStepStepProcessorConfig: ...

    @property
    def replay_buffer(self) -> SimpleReplayBufferConfig: ...

    @property
    def evaluator(self) -> DefaultEvaluatorConfig: ...


def with_trainer(config: C, **changes: Any) -> C:
    """``config`` with its ``trainer`` fields changed (``attrs.evolve`` one level down).

    Example:
        >>> @attrs.frozen
        ... class Run:
        ...     trainer: TrainerConfig
        >>> with_trainer(Run(TrainerConfig(max_opts=10, opt_interval=1)), seed=7).trainer.seed
        7
    """
    # mypy cannot see that C, bound to a protocol, is an attrs class.
    return attrs.evolve(config, trainer=attrs.evolve(config.trainer, **changes))  # type: ignore[misc]


MakeAgent = Callable[[GymEnv], Agent[Obs, Act, TransitionBatch]]
"""Makes an example's agent; it reads sizes and action bounds from the (evaluation) env it is given."""


def train_gym_example(
    config: GymExampleConfig, make_agent: MakeAgent, progress: bool, resume: bool = False
) -> TrainResult:
    """Trains the agent ``make_agent`` makes, saving into ``config.trainer.model_dir``.

    The evaluation env is built once (seed ``trainer.seed + 1``): the agent reads its sizes from it and
    the evaluator runs on it. TensorBoard files go to ``model_dir/tensorboard``. With ``resume``, training
    continues from the newest complete checkpoint in ``model_dir`` (from scratch when there is none).
    """
    model_dir = prepare_run(config)
    resume_from = find_resume_point(model_dir) if resume else None
    trainer = Trainer(config.trainer, config.env, config.step_processor, config.replay_buffer)
    with _eval_env(config) as eval_env:
        agent, evaluator = make_agent(eval_env), config.evaluator.build(eval_env)
        return train_with_tensorboard(
            model_dir,
            lambda recorder: trainer.train(
                agent, recorder, evaluator, progress=progress, resume_from=resume_from
            ),
            resume_from,
        )


def find_resume_point(model_dir: Path) -> Path | None:
    """The newest complete checkpoint in ``model_dir``, saying which (or that there is none) on stdout."""
    path = latest_checkpoint(model_dir)
    if path is None:
        print(f"no complete checkpoint in {model_dir}: training from scratch")
    else:
        print(f"resuming from {path}")
    return path


def evaluate_gym_example(config: GymExampleConfig, make_agent: MakeAgent, model_dir: Path) -> float:
    """Loads ``model_dir/best`` into the agent ``make_agent`` makes and returns its greedy mean return."""
    configure_torch(config.torch_threads)
    with _eval_env(config) as eval_env:
        return evaluate_saved(make_agent(eval_env), config.evaluator.build(eval_env), model_dir / "best")


@contextmanager
def _eval_env(config: GymExampleConfig) -> Iterator[GymEnv]:
    """The evaluation env (seed ``trainer.seed + 1``, apart from the training env's), closed after use."""
    with closing(config.env.build(seed=config.trainer.seed + 1)) as env:
        yield env


def configure_torch(threads: int) -> None:
    """Sets torch's thread count and flushes denormal floats to zero on the CPU.

    Denormals (magnitudes below 1.2e-38 in float32) appear in training, in Adam's moment estimates and the
    gradients of units that rarely fire, and every operation on one is many times slower: flushing them
    made a 256x256 DQN opt step 1.3x faster here. No value that small carries information for learning.
    The thread count is process-wide. The flush applies to the calling thread, which runs every kernel at
    1 thread; with more threads, torch's worker threads may still compute with denormals.
    """
    torch.set_num_threads(threads)
    torch.set_flush_denormal(True)


def prepare_run(config: ExampleConfig) -> Path:
    """Seeds python, numpy and torch, sets torch's thread count and denormal flushing
    (:func:`configure_torch`), creates ``model_dir`` and writes the
    config it runs with to ``model_dir/config.yaml``; returns ``model_dir``.

    Raises:
        ValueError: the config has no ``model_dir`` (an example always saves its models).
    """
    if config.trainer.model_dir is None:
        raise ValueError("trainer.model_dir is None: an example always saves its models")
    model_dir = Path(config.trainer.model_dir)
    seed_everything(config.trainer.seed)
    configure_torch(config.torch_threads)
    ensure_writable_dir(model_dir)
    save_yaml(config, model_dir / "config.yaml")
    return model_dir


def train_with_tensorboard(
    model_dir: Path, train: Callable[[Recorder], TrainResult], resume_from: Path | None = None
) -> TrainResult:
    """Runs ``train`` with a TensorBoard recorder writing to ``model_dir/tensorboard`` (closed even when
    training fails) and prints a one-line summary. When resuming from a checkpoint, what the interrupted
    run wrote after it is hidden, so the curves continue from the checkpoint's opt step."""
    purge_step = None if resume_from is None else int(load_meta(resume_from)["opt_steps"]) + 1
    recorder = TensorboardRecorder(model_dir / "tensorboard", purge_step=purge_step)
    try:
        result = train(recorder)
    finally:
        recorder.close()
    print(f"trained {result.opt_steps} opt steps, {result.env_steps} env steps", end="; ")
    print(f"best eval {result.best_score:.1f}")
    return result


def evaluate_saved(agent: Agent[O, A, Any], evaluator: Evaluator[O, A], path: Path) -> float:
    """Loads ``agent`` from ``path``, evaluates it greedily, prints and returns the score.

    A ``best`` that a crash mid-replace left aside is found (:func:`~border_py.checkpoint.resolve_saved`).
    """
    path = resolve_saved(path)
    agent.load_params(path)
    agent.eval()
    score, _ = evaluator.evaluate(agent)
    print(f"eval of {path}: mean return {score:.1f}")
    return score


def run_example(
    argv: list[str] | None,
    doc: str | None,
    default: C,
    train: Callable[[C, bool, bool], TrainResult],
    evaluate: Callable[[C, Path], float],
) -> int:
    """Parses the common flags, resolves the config and runs training and/or evaluation.

    The config is ``--config FILE`` if given; else, for ``--eval`` alone or ``--resume``,
    ``model_dir/config.yaml`` when it exists; else ``default``. ``--model-dir``, ``--seed`` and
    ``--max-opts`` then override its trainer (``--max-opts`` extends a resumed run).

    Returns:
        The exit status: 0, or 128 + the signal number when SIGINT or SIGTERM stopped training (after
        saving a checkpoint).
    """
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train", action="store_true", help="train and save models")
    parser.add_argument(
        "--resume", action="store_true", help="train, continuing from the newest checkpoint in model_dir"
    )
    parser.add_argument("--eval", action="store_true", help="evaluate model_dir/best")
    parser.add_argument("--model-dir", type=Path, help="where models, config and logs go")
    parser.add_argument("--config", type=Path, help="a YAML config (default: the built-in one)")
    parser.add_argument("--seed", type=int, help="seed of the run")
    parser.add_argument("--max-opts", type=int, help="opt steps to train")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    if not (args.train or args.eval or args.resume):
        parser.error("give --train, --resume, --eval or a combination")
    if args.resume and args.model_dir is None:
        parser.error("--resume needs --model-dir")

    saved = None if args.model_dir is None else args.model_dir / "config.yaml"
    config = default
    if args.config is not None:
        config = load_yaml(type(default), args.config)
    elif (args.resume or (args.eval and not args.train)) and saved is not None and saved.is_file():
        config = load_yaml(type(default), saved)
    overrides = {
        "model_dir": None if args.model_dir is None else str(args.model_dir),
        "seed": args.seed,
        "max_opts": args.max_opts,
    }
    config = with_trainer(config, **{k: v for k, v in overrides.items() if v is not None})

    if args.train or args.resume:
        try:
            train(config, not args.no_progress, args.resume)
        except TrainingInterrupted as exc:
            print(f"{exc}", file=sys.stderr)
            if exc.checkpoint is not None:
                print(f"continue with: --resume --model-dir {config.trainer.model_dir}", file=sys.stderr)
            return 128 + exc.signum
    if args.eval:
        if config.trainer.model_dir is None:
            parser.error("--eval needs --model-dir (or a config with trainer.model_dir)")
        evaluate(config, Path(config.trainer.model_dir))
    return 0
