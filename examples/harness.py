"""What every example script shares: its flags, config resolution, run directory and the two commands.

An example defines an attrs ``Config`` (see :class:`OnlineConfig`), how to make its agent from the
evaluation env, ``train(config, options) -> TrainResult`` (:func:`train_online`) and
``evaluate(config, model_dir) -> float`` (:func:`evaluate_online`); its ``main`` is :func:`run_example`.
The flags are the same for every example::

    python -m examples.<algo>_<env> --train --model-dir runs/x [--config FILE] [--seed N] [--max-opts N]
    python -m examples.<algo>_<env> --resume --model-dir runs/x   # continues from the newest checkpoint
    python -m examples.<algo>_<env> --eval --model-dir runs/x     # reads runs/x/config.yaml
    python -m examples.<algo>_<env> --eval --model-dir runs/x --video x.mp4 --export exported/x

Every check runs before anything is written: the config (its file and field named), the envs, the agent
(its device), the pairing of batch size and buffer, the resume point, the lock on ``model_dir`` and whether
``model_dir`` holds another run (``--overwrite`` to start over there). Errors end the script with status 2
and one line on stderr; Ctrl-C (SIGINT) or SIGTERM during training saves a checkpoint and exits with status
128 + the signal number; ``--resume`` continues from it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, Protocol, TypeVar

import attrs

from border_py import (
    Agent,
    AnyEnv,
    ArrayDataset,
    Builder,
    ConfigError,
    DefaultEvaluatorConfig,
    Evaluator,
    GymEnvConfig,
    MlflowRecorder,
    ModelDirBusyError,
    OfflineTrainer,
    Recorder,
    SeededBuilder,
    StepProcessor,
    Trainer,
    TrainerConfig,
    TrainingBuffer,
    TrainingInterrupted,
    TrainResult,
    TransitionBatch,
    VecEnv,
    configure_torch,
    load_yaml,
    save_yaml,
    seed_everything,
    to_dict,
)
from border_py.agents import Dqn, Iqn, Sac
from border_py.agents.offline_base import ObsStats
from border_py.base import ActingAgent, SyncAgent
from border_py.base.typevars import A, A_contra, B, B_co, I, O, O_co
from border_py.checkpoint import (
    latest_checkpoint,
    load_meta,
    prepare_model_dir,
    previous_run,
    resolve_saved,
    saved_model_problem,
    skipped_checkpoints,
)
from border_py.datasets import observation_stats
from border_py.distributed import AsyncConfig, AsyncTrainer
from border_py.recorders import TensorboardRecorder
from border_py.trainer.loop import check_agent_fits, check_rollout_fits
from border_py.video import check_video_path


class Closeable(Protocol):
    """Something with resources to release."""

    def close(self) -> None: ...


V = TypeVar("V", bound=Closeable)
"""The evaluation env's type (the agent reads its sizes from it)."""


class ExampleConfig(Protocol):
    """What :func:`run_example` reads of an example's config (an attrs class)."""

    @property
    def trainer(self) -> TrainerConfig: ...

    @property
    def torch_threads(self) -> int: ...


C = TypeVar("C", bound=ExampleConfig)


V_contra = TypeVar("V_contra", bound=Closeable, contravariant=True)
V_co = TypeVar("V_co", bound=Closeable, covariant=True)


class EvaluatorBuilder(Protocol[V_contra, O_co, A_contra]):
    """A config that builds an evaluator over an env of type ``V`` (``DefaultEvaluatorConfig``)."""

    def build(self, env: V_contra) -> Evaluator[O_co, A_contra]: ...


class EvaluatedConfig(ExampleConfig, Protocol[V_co]):
    """An example's config with an evaluation env."""

    @property
    def eval_env(self) -> SeededBuilder[V_co]: ...


class EvaluatorConfig(EvaluatedConfig[V], Protocol[V, O_co, A_contra]):
    """An example's config with an evaluation env and an evaluator over it."""

    @property
    def evaluator(self) -> EvaluatorBuilder[V, O_co, A_contra]: ...


class OnlineConfig(EvaluatorConfig[V, O, A], Protocol[V, O, A, I, B_co]):
    """An example trained online: its env (or vector env), evaluation env, step processor, replay buffer
    and evaluator, bound by one observation, action, item and batch type."""

    @property
    def env(self) -> SeededBuilder[AnyEnv[O, A]]: ...

    @property
    def step_processor(self) -> Builder[StepProcessor[O, A, I]]: ...

    @property
    def replay_buffer(self) -> SeededBuilder[TrainingBuffer[I, B_co]]: ...


class AsyncExampleConfig(OnlineConfig[V, O, A, I, B_co], Protocol[V, O, A, I, B_co]):
    """An example trained by actors on Ray (:class:`~border_py.distributed.AsyncTrainer`)."""

    @property
    def distributed(self) -> AsyncConfig: ...


class OfflineConfig(EvaluatorConfig[V, O_co, A_contra], Protocol[V, O_co, A_contra]):
    """An example trained offline, on a dataset of transitions (``MinariDatasetConfig``)."""

    @property
    def dataset(self) -> SeededBuilder[ArrayDataset]: ...


MakeRecorder = Callable[[Path, int | None, Any], Recorder]
"""Makes the run's recorder from ``model_dir``, the step from which to hide what an interrupted run wrote
(``None`` for a new run) and the example's config."""


def tensorboard(model_dir: Path, purge_step: int | None, config: Any) -> Recorder:
    """TensorBoard event files in ``model_dir/tensorboard``."""
    return TensorboardRecorder(model_dir / "tensorboard", purge_step=purge_step)


MLFLOW_RUN_FILE = "mlflow_run_id"


def mlflow(model_dir: Path, purge_step: int | None, config: Any) -> Recorder:
    """An MLflow run, by MLflow's conventions: the server of ``MLFLOW_TRACKING_URI``, the experiment of
    ``MLFLOW_EXPERIMENT_NAME`` (else the example's name). A new run logs the config as params and tags
    ``agent``, ``env`` and ``seed``, and keeps its id in ``model_dir/mlflow_run_id``; a resumed one
    continues that run."""
    run_file = model_dir / MLFLOW_RUN_FILE
    run_id = run_file.read_text().strip() if purge_step is not None and run_file.is_file() else None
    example = type(config).__module__.rpartition(".")[2]
    agent = getattr(config, "agent", None)
    env = getattr(config, "env", None) or getattr(getattr(config, "dataset", None), "dataset_id", None)
    tags = {
        "agent": type(agent).__name__.removesuffix("Config") if agent is not None else "",
        "env": str(getattr(env, "name", env)),
        "seed": str(config.trainer.seed),
        "example": example,
    }
    recorder = MlflowRecorder(
        experiment_name=os.environ.get("MLFLOW_EXPERIMENT_NAME", example), run_id=run_id, tags=tags
    )
    if run_id is None:
        run_file.write_text(recorder.run_id)
        recorder.log_params(to_dict(config))
    return recorder


RECORDERS: dict[str, MakeRecorder] = {"tensorboard": tensorboard, "mlflow": mlflow}


@attrs.frozen(kw_only=True)
class RunOptions:
    """How to run an example, from its flags."""

    progress: bool = True
    """Show a progress bar."""
    resume: bool = False
    """Continue from the newest complete checkpoint in ``model_dir``."""
    overwrite: bool = False
    """Remove another run's saves from ``model_dir`` first (without it, such a directory is refused)."""
    source: str = "the built-in config"
    """Where the config came from, for error messages."""
    make_recorder: MakeRecorder = tensorboard
    """The run's recorder."""
    extra: dict[str, Any] = attrs.field(factory=dict)
    """The values of an example's own flags (``run_example(..., extra_flags=...)``), by destination."""


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


@contextmanager
def _refused(source: str, what: str) -> Iterator[None]:
    """Turns an error of building ``what`` into a :class:`ConfigError` naming ``source`` and ``what``."""
    try:
        yield
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"{source}: {what}: {exc}") from exc


def _model_dir(config: ExampleConfig) -> Path:
    if config.trainer.model_dir is None:
        raise ConfigError("trainer.model_dir is None: an example always saves its models")
    return Path(config.trainer.model_dir)


TrainFn = Callable[[Recorder], TrainResult]
"""Trains with the recorder it is given (the trainer and what it trains, bound)."""


def _train_example(
    config: EvaluatedConfig[V],
    options: RunOptions,
    check_resume: Callable[[Path], None],
    prepare: Callable[[V, Path | None], TrainFn],
) -> TrainResult:
    """What every regime's example does: seed, take ``model_dir``, find and check the resume point (or
    refuse another run), let ``prepare`` build and check everything with the evaluation env, and only
    then write ``config.yaml`` and train."""
    model_dir = _model_dir(config)
    seed_everything(config.trainer.seed)
    configure_torch(config.torch_threads)
    with prepare_model_dir(model_dir, resuming=options.resume, overwrite=options.overwrite):
        resume_from = find_resume_point(model_dir) if options.resume else None
        if resume_from is not None:
            check_resume(resume_from)
        elif not options.overwrite:
            _refuse_another_run(model_dir)
        with _eval_env(config, options.source) as eval_env:
            train = prepare(eval_env, resume_from)
            if options.overwrite:
                shutil.rmtree(model_dir / "tensorboard", ignore_errors=True)
            save_yaml(config, model_dir / "config.yaml")
            return _train_with_recorder(config, model_dir, options, resume_from, train)


def train_online(
    config: OnlineConfig[V, O, A, I, B], make_agent: Callable[[V], Agent[O, A, B]], options: RunOptions
) -> TrainResult:
    """Trains the agent ``make_agent`` makes, saving into ``config.trainer.model_dir``.

    The evaluation env is built once (seed ``trainer.seed + 1``): the agent reads its sizes from it and
    the evaluator runs on it. ``model_dir/config.yaml`` is written only once every check has passed (see
    the module docstring).
    """
    trainer = Trainer(config.trainer, config.env, config.step_processor, config.replay_buffer)

    def prepare(eval_env: V, resume_from: Path | None) -> TrainFn:
        with _refused(options.source, "env"):
            env = config.env.build(config.trainer.seed)
            num_envs = env.num_envs if isinstance(env, VecEnv) else 1
            env.close()
        with _refused(options.source, "agent"):
            agent = make_agent(eval_env)
        evaluator = config.evaluator.build(eval_env)
        with _refused(options.source, "trainer"):
            check_agent_fits(config.trainer, agent, config.replay_buffer, evaluator)
            check_rollout_fits(config.trainer, config.replay_buffer, num_envs)
        return lambda recorder: trainer.train(
            agent, recorder, evaluator, progress=options.progress, resume_from=resume_from
        )

    return _train_example(config, options, trainer.check_resume, prepare)


def train_async(
    config: AsyncExampleConfig[V, O, A, I, B],
    make_agent: Callable[[V], SyncAgent[O, A, B]],
    make_actor_agent: Callable[[V], Callable[[int], ActingAgent[O, A]]],
    options: RunOptions,
) -> TrainResult:
    """Trains with ``config.distributed.n_actors`` actors on Ray (``--actors N``, ``--address ADDR``
    override the config), every check first, as :func:`train_online`. ``make_actor_agent(eval_env)`` gives
    the function that builds an actor's acting copy from a seed: it is sent to the actor processes, so it
    must pickle (a ``functools.partial`` of a module-level function over configs and sizes)."""
    changes = {
        k: v
        for k, v in (("n_actors", options.extra.get("actors")), ("address", options.extra.get("address")))
        if v
    }
    if changes:
        with _refused(options.source, "distributed"):
            config = attrs.evolve(config, distributed=attrs.evolve(config.distributed, **changes))  # type: ignore[misc]
    with _refused(options.source, "trainer"):
        trainer = AsyncTrainer(
            config.trainer, config.distributed, config.env, config.step_processor, config.replay_buffer
        )

    def prepare(eval_env: V, resume_from: Path | None) -> TrainFn:
        with _refused(options.source, "env"):
            config.env.build(config.trainer.seed).close()  # actors build theirs: refuse a bad env here first
        with _refused(options.source, "agent"):
            agent = make_agent(eval_env)
            actor_agent = make_actor_agent(eval_env)
        evaluator = config.evaluator.build(eval_env)
        with _refused(options.source, "trainer"):
            check_agent_fits(config.trainer, agent, config.replay_buffer, evaluator)
        return lambda recorder: trainer.train(
            agent, actor_agent, recorder, evaluator, progress=options.progress, resume_from=resume_from
        )

    return _train_example(config, options, trainer.check_resume, prepare)


def train_offline(
    config: OfflineConfig[V, O, A],
    make_agent: Callable[[V, ObsStats | None], Agent[O, A, TransitionBatch]],
    options: RunOptions,
) -> TrainResult:
    """Trains the agent ``make_agent`` makes (from the evaluation env and the dataset's observation
    statistics) on ``config.dataset``, saving into ``config.trainer.model_dir``; every check first, as
    :func:`train_online`."""
    with _refused(options.source, "trainer"):
        trainer = OfflineTrainer(config.trainer, config.dataset)

    def prepare(eval_env: V, resume_from: Path | None) -> TrainFn:
        with _refused(options.source, "dataset"):
            dataset = config.dataset.build(config.trainer.seed)
        with _refused(options.source, "agent"):
            agent = make_agent(eval_env, observation_stats(dataset))
        evaluator = config.evaluator.build(eval_env)
        with _refused(options.source, "trainer"):
            check_agent_fits(config.trainer, agent, config.dataset, evaluator)
        return lambda recorder: trainer.train(
            agent, recorder, evaluator, progress=options.progress, resume_from=resume_from
        )

    return _train_example(config, options, trainer.check_resume, prepare)


def _refuse_another_run(model_dir: Path) -> None:
    """A run from scratch never replaces another run's saves (a ``--resume`` that found no complete
    checkpoint included) nor adds its curves to another run's."""
    found = previous_run(model_dir)
    logs = model_dir / "tensorboard"
    if logs.is_dir() and any(logs.iterdir()):
        found.append(f"{logs.name}/")
    if found:
        raise FileExistsError(
            f"model_dir {str(model_dir)!r} holds another run ({', '.join(found)}) and no checkpoint to "
            "resume it from: --overwrite to start over there, or choose another --model-dir"
        )


def find_resume_point(model_dir: Path) -> Path | None:
    """The newest complete checkpoint in ``model_dir``, saying which (or that there is none), and which
    newer directories it passes over and why, on stdout."""
    for skipped, problem in skipped_checkpoints(model_dir):
        print(f"skipping {skipped}: {problem}")
    path = latest_checkpoint(model_dir)
    if path is None:
        print(f"no complete checkpoint in {model_dir}: training from scratch")
    else:
        print(f"resuming from {path}")
    return path


@attrs.frozen
class EvalOptions:
    """What ``--eval`` scores (``best`` unless told), over how many episodes, and what it does besides:
    record a video, export the policy."""

    checkpoint: str = "best"
    """The saved model to evaluate, relative to ``model_dir``: ``best``, a numbered checkpoint (``250000``),
    or one further down (``finetune/60000``); see :func:`saved_model_path`."""
    episodes: int | None = None
    """Evaluation episodes, in place of the config's ``evaluator.n_episodes`` (``None``: the config's)."""
    video: Path | None = None
    """Write evaluation episodes here (``.mp4`` or ``.gif``; the ``video`` extra)."""
    video_episodes: int = 1
    """How many episodes the video shows."""
    export: Path | None = None
    """Write the greedy policy here: numpy (``policy.json``, ``weights.npz``) and, with the ``export``
    extra, ONNX (``policy.onnx``); DQN, IQN and SAC."""


def saved_model_path(model_dir: Path, checkpoint: str) -> Path:
    """``model_dir / checkpoint``, refused unless it names a place below ``model_dir``: a relative path
    with no ``..`` that, links followed, stays inside (a hostile or mistyped name never loads a model from
    elsewhere).

    Raises:
        ValueError: ``checkpoint`` is empty, absolute, climbs out with ``..``, or leads out of ``model_dir``
            through a link (the message names it).

    Example:
        >>> saved_model_path(Path("runs/x"), "finetune/60000").as_posix()
        'runs/x/finetune/60000'
    """
    rel = Path(checkpoint)
    if not checkpoint or rel.is_absolute() or ".." in rel.parts or rel == Path("."):
        raise ValueError(
            f"--checkpoint {checkpoint!r}: name a saved model below {model_dir} (best, a checkpoint's number "
            "such as 250000, or a path such as finetune/60000)"
        )
    path = model_dir / rel
    if not path.resolve().is_relative_to(model_dir.resolve()):
        raise ValueError(f"--checkpoint {checkpoint!r}: {path} leads out of {model_dir} through a link")
    return path


def evaluate_saved(
    config: EvaluatorConfig[V, O, A],
    make_agent: Callable[[V], Agent[O, A, Any]],
    model_dir: Path,
    options: EvalOptions | None = None,
) -> float:
    """Loads ``model_dir/best`` (or the saved model ``options.checkpoint`` names) into the agent
    ``make_agent`` makes and returns its greedy mean return over the config's evaluation episodes (or
    ``options.episodes``); records a video and exports the policy when ``options`` ask.

    Raises:
        FileNotFoundError, ValueError: the saved model is missing or incomplete, or its name leads out of
            ``model_dir`` (the message says what is wrong), or ``options.episodes`` is below 1 or the
            config's evaluator has no ``n_episodes``, or the env cannot be recorded, or the agent cannot
            be exported.
    """
    options = options or EvalOptions()
    configure_torch(config.torch_threads)
    saved = resolve_saved(saved_model_path(model_dir, options.checkpoint))
    problem = saved_model_problem(saved)
    if problem is not None:
        raise FileNotFoundError(f"cannot evaluate {saved}: {problem}")
    evaluator = _with_episodes(config.evaluator, options.episodes)
    video_env = _video_env_config(config.eval_env) if options.video is not None else None
    with _eval_env(config, "the saved config") as eval_env:
        agent = make_agent(eval_env)
        if options.export is not None and not isinstance(agent, Dqn | Iqn | Sac):
            raise ValueError(f"--export writes DQN, IQN and SAC policies, not {type(agent).__name__}")
        agent.load_params(saved)
        agent.eval()
        score, _ = evaluator.build(eval_env).evaluate(agent)
    print(f"eval of {saved}: mean return {score:.1f}")
    if video_env is not None and options.video is not None:
        _record_video(video_env, agent, config.trainer.seed + 1, options.video, options.video_episodes)
    if options.export is not None:
        _export(agent, options.export)
    return score


def _with_episodes(evaluator: EvaluatorBuilder[V, O, A], episodes: int | None) -> EvaluatorBuilder[V, O, A]:
    """``evaluator`` with ``n_episodes`` set to ``episodes`` (unchanged for ``None``)."""
    if episodes is None:
        return evaluator
    if episodes < 1:
        raise ValueError(f"--eval-episodes must be >= 1, got {episodes}")
    if not isinstance(evaluator, DefaultEvaluatorConfig):
        raise ValueError(
            f"--eval-episodes sets DefaultEvaluatorConfig.n_episodes; this config has {evaluator!r}"
        )
    return attrs.evolve(evaluator, n_episodes=episodes)


def _video_env_config(env: object) -> GymEnvConfig:
    """The eval env's config, rendering frames (checked before the evaluation runs)."""
    if not isinstance(env, GymEnvConfig):
        raise ValueError(f"--video records a Gymnasium env (GymEnvConfig); this example evaluates on {env!r}")
    return attrs.evolve(env, kwargs={**env.kwargs, "render_mode": "rgb_array"})


def _record_video(env_config: GymEnvConfig, agent: Any, seed: int, path: Path, episodes: int) -> None:
    # MuJoCo renders through EGL without a display (no X server here, nor in CI).
    if "DISPLAY" not in os.environ:
        os.environ.setdefault("MUJOCO_GL", "egl")
    from border_py.video import record_episodes, save_video, video_fps

    with closing(env_config.build(seed)) as env:
        frames, score = record_episodes(env, agent, episodes)
        save_video(frames, path, video_fps(env))
    print(f"wrote {path}: {episodes} episode(s), {len(frames)} frames, mean return {score:.1f}")


def _export(agent: Dqn | Iqn | Sac, path: Path) -> None:
    from border_py.export import export_numpy

    export_numpy(agent, path)
    print(f"wrote {path}: numpy policy (border_py.export.NumpyPolicy.load)")
    try:
        import onnxruntime  # noqa: F401
        import onnxscript  # noqa: F401
    except ImportError:
        print("ONNX skipped: the export extra (onnx, onnxscript, onnxruntime) is not installed")
        return
    from border_py.export import export_onnx

    print(f"wrote {export_onnx(agent, path)}: ONNX policy (border_py.export.OnnxPolicy.load)")


@contextmanager
def _eval_env(config: EvaluatedConfig[V], source: str) -> Iterator[V]:
    """The evaluation env (seed ``trainer.seed + 1``, apart from the training env's), closed after use."""
    with _refused(source, "eval_env"):
        env = config.eval_env.build(config.trainer.seed + 1)
    with closing(env):
        yield env


def _upload(recorder: MlflowRecorder, model_dir: Path) -> None:
    """``best/`` and the newest checkpoint as the run's artifacts."""
    best = resolve_saved(model_dir / "best")
    if best.is_dir():
        recorder.log_artifacts(best, "best")
    final = latest_checkpoint(model_dir)
    if final is not None:
        recorder.log_artifacts(final, f"checkpoints/{final.name}")


def _train_with_recorder(
    config: Any,
    model_dir: Path,
    options: RunOptions,
    resume_from: Path | None,
    train: Callable[[Recorder], TrainResult],
) -> TrainResult:
    """Runs ``train`` with the run's recorder (closed even when training fails) and prints a summary.
    When resuming, what the interrupted run recorded after its checkpoint is hidden, so the curves
    continue from the checkpoint's opt step."""
    purge_step = None if resume_from is None else int(load_meta(resume_from)["opt_steps"]) + 1
    recorder = options.make_recorder(model_dir, purge_step, config)
    try:
        result = train(recorder)
        if isinstance(recorder, MlflowRecorder):
            _upload(recorder, model_dir)
    finally:
        recorder.close()
    print(f"trained {result.opt_steps} opt steps, {result.env_steps} env steps", end="; ")
    print(f"best eval {result.best_score:.1f}; stopped at {result.stop_reason}")
    return result


@attrs.frozen
class Flag:
    """An example's own flag: ``--name`` of ``type`` (``None``: a switch), with its help."""

    name: str
    type: type[Any] | None
    help: str


ASYNC_FLAGS = (
    Flag("actors", int, "the number of actors (overrides distributed.n_actors)"),
    Flag("address", str, "the Ray cluster to join (overrides distributed.address; default: a local Ray)"),
)
"""The flags of the asynchronous examples."""


def _parser(doc: str | None, extra: Sequence[Flag]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train", action="store_true", help="train and save models")
    parser.add_argument(
        "--resume", action="store_true", help="train, continuing from the newest checkpoint in model_dir"
    )
    parser.add_argument("--eval", action="store_true", help="evaluate model_dir/best")
    parser.add_argument(
        "--checkpoint",
        default="best",
        help="with --eval: the saved model below model_dir to evaluate (default best; a checkpoint's "
        "number such as 250000, or a path such as finetune/60000)",
    )
    parser.add_argument(
        "--eval-episodes", type=int, help="with --eval: evaluation episodes (default: the config's)"
    )
    parser.add_argument("--video", type=Path, help="with --eval: record episodes to this .mp4 or .gif")
    parser.add_argument("--video-episodes", type=int, default=1, help="episodes in the video (default 1)")
    parser.add_argument(
        "--export", type=Path, help="with --eval: write best's greedy policy here (numpy, and ONNX)"
    )
    parser.add_argument("--model-dir", type=Path, help="where models, config and logs go")
    parser.add_argument("--config", type=Path, help="a YAML config (default: the built-in one)")
    parser.add_argument("--seed", type=int, help="seed of the run")
    parser.add_argument("--max-opts", type=int, help="opt steps to train (at most)")
    parser.add_argument(
        "--max-env-steps",
        type=int,
        help="env steps to train (at most); alone, it replaces the config's max_opts",
    )
    parser.add_argument("--stop-score", type=float, help="stop after an evaluation scoring at least this")
    parser.add_argument(
        "--overwrite", action="store_true", help="remove another run's saves and logs in model_dir first"
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument(
        "--recorder",
        choices=sorted(RECORDERS),
        default="tensorboard",
        help="where records go: TensorBoard files in model_dir, or MLflow (MLFLOW_TRACKING_URI)",
    )
    for flag in extra:
        if flag.type is None:
            parser.add_argument(f"--{flag.name}", action="store_true", help=flag.help)
        else:
            parser.add_argument(f"--{flag.name}", type=flag.type, help=flag.help)
    return parser


def _resolve_config(args: argparse.Namespace, default: C) -> tuple[C, str]:
    """The config the flags ask for, and where it came from."""
    saved = None if args.model_dir is None else args.model_dir / "config.yaml"
    config, source = default, "the built-in config"
    if args.config is not None:
        config, source = load_yaml(type(default), args.config), str(args.config)
    elif (args.resume or (args.eval and not args.train)) and saved is not None and saved.is_file():
        config, source = load_yaml(type(default), saved), str(saved)
    overrides: dict[str, Any] = {
        "model_dir": None if args.model_dir is None else str(args.model_dir),
        "seed": args.seed,
        "max_opts": args.max_opts,
        "max_env_steps": args.max_env_steps,
        "stop_score": args.stop_score,
    }
    changes = {k: v for k, v in overrides.items() if v is not None}
    if args.max_env_steps is not None and args.max_opts is None:
        changes["max_opts"] = None  # a budget in env steps alone: the config's max_opts would cut it short
    with _refused(source, "trainer"):
        return with_trainer(config, **changes), source


def split_env_flag(argv: list[str] | None) -> tuple[str | None, list[str]]:
    """``--env NAME`` taken out of ``argv`` (the command line when ``None``): an example whose env can be
    chosen applies it to its built-in config before :func:`run_example` reads the other flags.

    Raises:
        SystemExit: ``--env`` without a name, or with ``--config`` (a YAML config names its own env).
    """
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--env")
    parser.add_argument("--config")
    known, _ = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    rest = list(sys.argv[1:] if argv is None else argv)
    if known.env is None:
        return None, rest
    if known.config is not None:
        parser.error("--env picks the env of the built-in config; a --config file names its own")
    i = (
        rest.index("--env")
        if "--env" in rest
        else next(k for k, a in enumerate(rest) if a.startswith("--env="))
    )
    del rest[i : i + (1 if rest[i].startswith("--env=") else 2)]
    return known.env, rest


def run_example(
    argv: list[str] | None,
    doc: str | None,
    default: C,
    train: Callable[[C, RunOptions], TrainResult],
    evaluate: Callable[[C, Path, EvalOptions], float],
    extra_flags: Sequence[Flag] = (),
) -> int:
    """Parses the common flags, resolves the config and runs training and/or evaluation.

    The config is ``--config FILE`` if given; else, for ``--eval`` alone or ``--resume``,
    ``model_dir/config.yaml`` when it exists; else ``default``. ``--model-dir``, ``--seed``,
    ``--max-opts``, ``--max-env-steps`` and ``--stop-score`` then override its trainer (``--max-opts``
    extends a resumed run).

    Returns:
        The exit status: 0; 2 for a refused config, model directory or checkpoint (the reason on stderr);
        or 128 + the signal number when SIGINT or SIGTERM stopped training (after saving a checkpoint).
    """
    parser = _parser(doc, extra_flags)
    args = parser.parse_args(argv)
    if not (args.train or args.eval or args.resume):
        parser.error("give --train, --resume, --eval or a combination")
    if args.resume and args.model_dir is None:
        parser.error("--resume needs --model-dir")
    if args.resume and args.overwrite:
        parser.error("--resume continues the run in model_dir; --overwrite removes it: give one")
    eval_only = (args.video, args.export, args.eval_episodes)
    if (any(flag is not None for flag in eval_only) or args.checkpoint != "best") and not args.eval:
        parser.error("--video, --export, --checkpoint and --eval-episodes go with --eval")
    if args.video_episodes < 1:
        parser.error(f"--video-episodes must be >= 1, got {args.video_episodes}")
    if args.eval_episodes is not None and args.eval_episodes < 1:
        parser.error(f"--eval-episodes must be >= 1, got {args.eval_episodes}")
    eval_options = EvalOptions(
        checkpoint=args.checkpoint,
        episodes=args.eval_episodes,
        video=args.video,
        video_episodes=args.video_episodes,
        export=args.export,
    )
    try:
        if args.video is not None:  # before hours of training, not after
            check_video_path(args.video)
        config, source = _resolve_config(args, default)
        if args.eval and config.trainer.model_dir is not None:  # a bad name, before training too
            saved_model_path(Path(config.trainer.model_dir), args.checkpoint)
        if args.train or args.resume:
            extra = {f.name.replace("-", "_"): getattr(args, f.name.replace("-", "_")) for f in extra_flags}
            options = RunOptions(
                progress=not args.no_progress,
                resume=args.resume,
                overwrite=args.overwrite,
                source=source,
                make_recorder=RECORDERS[args.recorder],
                extra=extra,
            )
            train(config, options)
        if args.eval:
            if config.trainer.model_dir is None:
                parser.error("--eval needs --model-dir (or a config with trainer.model_dir)")
            evaluate(config, Path(config.trainer.model_dir), eval_options)
    except TrainingInterrupted as exc:
        print(f"{exc}", file=sys.stderr)
        if exc.checkpoint is not None:
            print(f"continue with: --resume --model-dir {config.trainer.model_dir}", file=sys.stderr)
        return 128 + exc.signum
    except (
        ConfigError,
        ModelDirBusyError,
        FileExistsError,
        FileNotFoundError,
        ImportError,
        PermissionError,
        ValueError,
    ) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0
