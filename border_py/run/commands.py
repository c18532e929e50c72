"""What the CLI's verbs do, as functions: train (or resume) an experiment, evaluate a saved model.

The run path is plain: an experiment (`border_py.run.experiment`) → its run directory
(`RunDir`) → a trainer. `train` holds the directory, builds every component
once and runs every check (`prepare`), and only then clears an old run (``overwrite``), writes
``config.yaml`` and starts recording. Video and export live in `border_py.run.outputs`.

Examples:
    >>> import tempfile
    >>> from border_py.run import load_experiment_text
    >>> experiment = load_experiment_text('''
    ... env: {name: CartPole-v1}
    ... step_processor: {gamma: 0.99}
    ... replay_buffer: {capacity: 1000}
    ... agent: {type: dqn, batch_size: 16}
    ... trainer: {max_opts: 20, warmup_period: 50, eval_interval: 20, save_interval: 20}
    ... evaluator: {n_episodes: 1}''')
    >>> quiet = TrainOptions(progress=False, quiet=True)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     first = train(with_trainer(experiment, model_dir=d), quiet)
    ...     longer = with_trainer(experiment, model_dir=d, max_opts=40)
    ...     resumed = train(longer, attrs.evolve(quiet, resume=True))
    >>> first.opt_steps, resumed.opt_steps, len(resumed.evaluations)
    (20, 40, 2)
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, Literal

import attrs

from border_py.base.goal_env import EnvReader
from border_py.base.sync_model import SyncModel
from border_py.checkpoint import CheckpointError
from border_py.config import ConfigError
from border_py.dataset_trust import trusting_code
from border_py.model_dir import resume_scan
from border_py.run.experiment import (
    AnyExperiment,
    Experiment,
    OfflineExperiment,
    build_eval_env,
    build_evaluator,
    with_trainer,
)
from border_py.run.held_warnings import held_warnings
from border_py.run.pairing import check_agent_batches
from border_py.run.recording import Tracking, resume_warnings
from border_py.run.rundir import RunDir
from border_py.run.saved import saved_model
from border_py.run.sizes import check_buffer_fits_memory, check_episodes_fit_memory, check_fits_memory
from border_py.seeding import configure_torch, seed_everything
from border_py.trainer.interrupts import TrainingInterrupted
from border_py.trainer.loop import PreparedRun
from border_py.trainer.result import EvaluationObserver, TrainResult

__all__ = ["TrainOptions", "prepare", "train", "with_trainer"]


@attrs.frozen(kw_only=True)
class TrainOptions:
    """How to run an experiment (the CLI's flags)."""

    resume: bool = False
    """Continue from the newest complete checkpoint in ``model_dir`` (from scratch when there is none)."""
    overwrite: bool = False
    """Remove another run from ``model_dir`` (after every check of this one passed)."""
    progress: bool = True
    """Show a progress bar."""
    recorder: Literal["tensorboard", "mlflow"] = "tensorboard"
    """TensorBoard event files in ``model_dir/tensorboard``, or an MLflow run (``MLFLOW_TRACKING_URI``)."""
    observers: tuple[EvaluationObserver, ...] = ()
    """Hear each evaluation; one returning ``True`` stops training (tuning's pruner)."""
    source: str = "the experiment"
    """Where the experiment came from, for error messages (a file, the zoo entry)."""
    tracking: Tracking = Tracking()
    """The MLflow run's experiment, name and tags (with ``recorder="mlflow"``)."""
    quiet: bool = False
    """Print nothing (the summary line included)."""
    notes: tuple[str, ...] = ()
    """Lines for stderr, said once every check passed (the zoo's "no entry" note): a refused run's stderr
    is its one error line."""
    trust_code: bool = False
    """Let a dataset have Minari build the env its metadata names, whatever code that runs (the CLI's
    ``--trust-code``; `border_py.dataset_trust`)."""

    def __attrs_post_init__(self) -> None:
        if self.resume and self.overwrite:
            raise ValueError("resume continues the run in model_dir; overwrite removes it: give one")


@contextmanager
def _refused(source: str, what: str) -> Iterator[None]:
    """Turns an error of building ``what`` into a `ConfigError` naming ``source`` and ``what``; a
    damaged checkpoint (`CheckpointError`, naming its file) is the directory's fault and passes as it
    is."""
    try:
        yield
    except CheckpointError:
        raise
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"{source}: {what}: {exc}") from exc


def model_dir_of(experiment: AnyExperiment) -> Path:
    """The experiment's ``trainer.model_dir``.

    Raises:
        ConfigError: it is ``None`` (a run of the CLI always saves).
    """
    if experiment.trainer.model_dir is None:
        raise ConfigError("trainer.model_dir is None: give --model-dir (a run always saves its models)")
    return Path(experiment.trainer.model_dir)


@contextmanager
def prepare(
    experiment: AnyExperiment,
    resume_from: Path | None = None,
    observers: tuple[EvaluationObserver, ...] = (),
    source: str = "the experiment",
    held: RunDir | None = None,
) -> Iterator[PreparedRun]:
    """Builds every component of the experiment once (the evaluation env, the agent from its spaces, the
    evaluator, the trainer and what it trains on) and runs every check, writing nothing; yields the run,
    ready to start, and closes what was built afterwards. The checkpoint ``resume_from`` is read once, its
    agent files loaded into the agent here; ``held``: the run directory as the caller holds it (the
    trainer then takes no lock of its own).

    Raises:
        ConfigError: a component could not be built or a check failed (the field named).
        FileNotFoundError: ``resume_from`` is not a complete checkpoint.
    """
    with _refused(source, "env"):
        eval_env = build_eval_env(experiment)
    with closing(eval_env):
        if isinstance(experiment, OfflineExperiment):
            yield from _prepare_offline(experiment, eval_env, resume_from, observers, source, held)
        else:
            yield from _prepare_online(experiment, eval_env, resume_from, observers, source, held)


def _prepare_online(
    experiment: Experiment[Any, Any, Any, Any],
    eval_env: Any,
    resume_from: Path | None,
    observers: tuple[EvaluationObserver, ...],
    source: str,
    held: RunDir | None,
) -> Iterator[PreparedRun]:
    from border_py.trainer.online import Trainer

    seed = experiment.trainer.seed
    with _refused(source, "replay_buffer"):
        check_buffer_fits_memory(experiment.replay_buffer, eval_env.spaces)
    with _refused(source, "step_processor"):  # one that reads the env (goal relabelling) may refuse it
        processor = experiment.step_processor.build()
        if isinstance(processor, EnvReader):
            processor.read_env(eval_env)
    with _refused(source, "evaluator"):
        check_episodes_fit_memory(experiment.evaluator.n_episodes, "n_episodes")
    with _refused(source, "agent"):
        check_fits_memory(experiment.agent, eval_env.spaces)
        agent = experiment.agent.build(eval_env.spaces, seed)
        check_agent_batches(agent, experiment.replay_buffer)
    # Its envs are built at the first evaluation (inside the run) and closed with it.
    evaluator = build_evaluator(experiment, eval_env)
    with _refused(source, "trainer"):
        prepared: PreparedRun
        if experiment.distributed is None:
            trainer: Any = Trainer(
                experiment.trainer, experiment.env, experiment.step_processor, experiment.replay_buffer
            )
            trainer.observers.extend(observers)
            prepared = trainer.prepare(agent, evaluator, resume_from=resume_from, held=held)
        else:
            prepared = _prepare_async(
                experiment, agent, evaluator, eval_env.spaces, resume_from, observers, held
            )
    with closing(evaluator), prepared:
        if resume_from is None and experiment.init_from is not None:
            # A fresh run fine-tunes the saved model (a resumed one continues its checkpoint, loaded above).
            agent.load_params(saved_model(Path(experiment.init_from), "init_from"))
        yield prepared


def _prepare_async(
    experiment: Experiment[Any, Any, Any, Any],
    agent: Any,
    evaluator: Any,
    spaces: Any,
    resume_from: Path | None,
    observers: tuple[EvaluationObserver, ...],
    held: RunDir | None,
) -> PreparedRun:
    from border_py.distributed import AsyncTrainer

    assert experiment.distributed is not None
    if not isinstance(agent, SyncModel):
        raise ValueError(f"{type(agent).__name__} cannot act in other processes (it is no SyncModel)")
    trainer: Any = AsyncTrainer(
        experiment.trainer,
        experiment.distributed,
        experiment.env,
        experiment.step_processor,
        experiment.replay_buffer,
    )
    trainer.observers.extend(observers)
    factory = experiment.actor_agent_factory(spaces)
    prepared: PreparedRun = trainer.prepare(agent, factory, evaluator, resume_from=resume_from, held=held)
    return prepared


def _prepare_offline(
    experiment: OfflineExperiment[Any, Any],
    eval_env: Any,
    resume_from: Path | None,
    observers: tuple[EvaluationObserver, ...],
    source: str,
    held: RunDir | None,
) -> Iterator[PreparedRun]:
    from border_py.datasets import observation_stats
    from border_py.trainer.offline import OfflineTrainer

    seed = experiment.trainer.seed
    with _refused(source, "trainer"):
        trainer: Any = OfflineTrainer(experiment.trainer, experiment.dataset)
    with _refused(source, "dataset"):
        dataset = experiment.dataset.build(seed)
        dataset.check_fits(eval_env.spaces)  # another env's data would fail at the first update
    with _refused(source, "evaluator"):
        check_episodes_fit_memory(experiment.evaluator.n_episodes, "n_episodes")
    with _refused(source, "agent"):
        check_fits_memory(experiment.agent, eval_env.spaces)
        agent = experiment.agent.build(eval_env.spaces, seed, observation_stats(dataset))
    evaluator = build_evaluator(experiment, eval_env)
    trainer.observers.extend(observers)
    with _refused(source, "trainer"):
        prepared = trainer.prepare(agent, evaluator, resume_from=resume_from, dataset=dataset, held=held)
    with closing(evaluator), prepared:
        yield prepared


def train(experiment: AnyExperiment, options: TrainOptions | None = None) -> TrainResult:
    """Trains ``experiment`` into its ``trainer.model_dir``; every check first (see the module doc).

    Returns:
        The run's counters, evaluations and why it stopped.

    Raises:
        ConfigError, ValueError, FileNotFoundError: a component or check failed; nothing was written.
        FileExistsError: ``model_dir`` holds another run (neither ``resume`` nor ``overwrite``).
        border_py.ModelDirBusyError: another process trains into ``model_dir``.
        border_py.TrainingInterrupted: SIGINT or SIGTERM; a checkpoint was saved first.
    """
    options = options or TrainOptions()
    with (
        _held_back(options) as checked,
        RunDir(model_dir_of(experiment)).hold() as run_dir,
        trusting_code(options.trust_code),
    ):
        if options.recorder == "mlflow":
            from border_py.run.recording import check_tracking_server

            check_tracking_server()  # a server that is down: refused in seconds, before anything is written
        seed_everything(experiment.trainer.seed)
        configure_torch(experiment.torch_threads)
        resume_from, skipped = resume_scan(run_dir.path) if options.resume else (None, [])
        if options.resume:
            _say_resume(options, run_dir, resume_from, skipped)
        fresh_start = options.overwrite or (options.resume and resume_from is None)
        if not fresh_start and resume_from is None:
            run_dir.refuse_another_run()
        if not options.overwrite:
            run_dir.refuse_linked_logs()
        elif run_dir.holds_a_run():
            run_dir.refuse_foreign_files()
        with prepare(experiment, resume_from, options.observers, options.source, run_dir) as prepared:
            checked()
            if fresh_start and run_dir.holds_a_run():
                removed = run_dir.clear()
                _say(options, f"removed the earlier run in {run_dir.path}: {', '.join(removed)}", err=True)
            changes = _resume_changes(run_dir, experiment) if resume_from is not None else {}
            for line in resume_warnings(changes):
                _say(options, line, err=True)

            def write_config() -> None:
                run_dir.write_config(experiment)

            if resume_from is None:
                write_config()
            # A resume writes config.yaml once its checkpoint has loaded (the buffer loads in the run).
            later = None if resume_from is None else write_config
            result = _run_recorded(prepared, run_dir, experiment, options, resume_from, changes, later)
    _say(options, _summary(result))
    return result


@contextmanager
def _held_back(options: TrainOptions) -> Iterator[Callable[[], None]]:
    """Holds back the options' notes and this thread's warnings while a run is checked (Gymnasium's "out
    of date" among them): a refused run's stderr is its one error line. Calling the yielded function
    (every check passed) says each, one line apiece, and shows later warnings as Python does;
    ``warnings.showwarning`` is as it was when the block ends (`border_py.run.held_warnings`)."""
    with held_warnings() as release:

        def checked() -> None:
            for line in dict.fromkeys([*options.notes, *release()]):  # each env built warns alike: once
                _say(options, line, err=True)

        yield checked


def _resume_changes(run_dir: RunDir, experiment: AnyExperiment) -> dict[str, str]:
    """What a resumed run changes of the experiment it continues (``trainer.max_opts: 20000 -> 40000``)."""
    from border_py.run.recording import changed_fields

    try:
        return changed_fields(run_dir.read_config_data(), experiment)
    except (FileNotFoundError, ConfigError):  # resumed from Python without a config.yaml: nothing to compare
        return {}


def _say_resume(
    options: TrainOptions, run_dir: RunDir, resume_from: Path | None, skipped: list[tuple[Path, str]]
) -> None:
    """Says where a resume starts: the checkpoints it passes over and why, then the one it takes (or that
    there is none, so the run starts from scratch, which is refused where it would replace a saved model).

    Raises:
        FileExistsError: no complete checkpoint, but ``best/`` or a numbered checkpoint is here.
    """
    for path, problem in skipped:
        _say(options, f"skipping {path}: {problem}")
    if resume_from is None:
        run_dir.refuse_losing_saves()
        _say(options, f"no complete checkpoint in {run_dir.path}: training from scratch")
    else:
        _say(options, f"resuming from {resume_from}")


def _run_recorded(
    prepared: PreparedRun,
    run_dir: RunDir,
    experiment: AnyExperiment,
    options: TrainOptions,
    resume_from: Path | None,
    changes: dict[str, str],
    on_start: Callable[[], None] | None,
) -> TrainResult:
    """Runs ``prepared`` with the run's recorder, ended with the run's status (``KILLED`` after a signal,
    ``FAILED`` after an error) and closed whatever happens; then says what its tracking server did not
    get, if anything (a warning: even a quiet run says it)."""
    from border_py.run.recording import finish, make_recorder, unsent_note

    recorder = make_recorder(options.recorder, run_dir, experiment, resume_from, options.tracking, changes)
    status = "FAILED"
    try:
        result = prepared.run(recorder, progress=options.progress, on_start=on_start)
        status = "FINISHED"
    except TrainingInterrupted:
        status = "KILLED"
        raise
    finally:
        try:
            finish(recorder, run_dir, status)
        finally:
            recorder.close()
            note = unsent_note(run_dir)
            if note is not None:
                print(note, file=sys.stderr)
    return result


def _summary(result: TrainResult) -> str:
    best = f"best eval {result.best_score:.1f}" if result.evaluations else "no evaluation ran"
    return (
        f"trained {result.opt_steps} opt steps, {result.env_steps} env steps; {best}; "
        f"stopped at {result.stop_reason}"
    )


def _say(options: TrainOptions, line: str, err: bool = False) -> None:
    if not options.quiet:
        print(line, file=sys.stderr if err else sys.stdout)  # looked up now: callers may replace them
