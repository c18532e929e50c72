"""The one training loop, and the ``Regime`` seam every kind of training plugs into.

::

    books = Bookkeeper(...);  restore a checkpoint (resume_from);  agent.train()
    while not books.stop_reason and no signal:
        for _ in range(regime.advance(books)):     # experience in; how many opt steps are due now
            if not books.may_optimise: break
            record = agent.opt(buffer)             # None: the agent skipped (not an opt step)
            books.after_skip() if record is None else books.after_opt(record, seconds)
    books.finish(interrupted);  raise TrainingInterrupted on a signal

A `Regime` decides where items come from and when an opt step is due: online, a sampler steps the
env and pushes items (`OnlineRegime`); offline, nothing comes in and one
opt step is due per turn (`OfflineRegime`). Everything after an opt step
is the `Bookkeeper`'s.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Generic, Protocol

import attrs
import tqdm

from border_py.base.agent import Agent
from border_py.base.evaluator import Evaluator
from border_py.base.recorder import Recorder
from border_py.base.replay_buffer import ReplayBuffer
from border_py.base.typevars import A, B, O
from border_py.checkpoint import checkpoint_meta
from border_py.model_dir import ModelDir
from border_py.seeding import global_rng_states, set_global_rng_states
from border_py.trainer.bookkeeper import Bookkeeper
from border_py.trainer.checks import check_agent_fits, check_budget
from border_py.trainer.config import TrainerConfig
from border_py.trainer.interrupts import ExperienceSourceError, Interrupts, TrainingInterrupted
from border_py.trainer.result import EvaluationObserver, TrainResult
from border_py.trainer.state import check_same_setup, read_trainer_state, write_trainer_state

OnStart = Callable[[], None] | None
"""Called once a run has loaded everything, before its first step (see `PreparedRun.run`)."""


class Regime(Protocol):
    """Where a kind of training gets its items, and what of it a checkpoint holds."""

    @property
    def name(self) -> str:
        """``online``, ``offline``, ...: recorded in the trainer state, checked on resume."""
        ...

    def setup(self) -> dict[str, Any]:
        """The configs that ``meta.yaml`` records (``trainer`` and the regime's components)."""
        ...

    def advance(self, books: Bookkeeper[Any, Any]) -> int:
        """Brings in experience (updating ``books.env_steps`` and storing env records); returns how many
        opt steps are due now."""
        ...

    def take_record(self) -> dict[str, float]:
        """The regime's own numbers since the last call, recorded at each ``record_interval`` (online:
        ``time/fps``, env steps per second of sampling; offline: nothing)."""
        ...

    def state_dict(self) -> dict[str, Any]:
        """The regime's state for ``trainer_state.json``: plain data and numpy arrays."""
        ...

    def save_files(self, path: Path) -> list[Path]:
        """Writes the regime's own checkpoint files (the buffer) into ``path``; returns them."""
        ...

    def restore(self, path: Path, state: dict[str, Any], books: Bookkeeper[Any, Any]) -> None:
        """Restores what `state_dict` and `save_files` saved in checkpoint ``path``, after the
        books were restored."""
        ...


@attrs.frozen
class ResumePoint:
    """A checkpoint a run resumes from, checked against the run's setup and loaded into its agent once
    (`resume_point`); the rest of it (counters, RNG states, the buffer) loads when the run starts."""

    path: Path
    state: dict[str, Any]
    """The checkpoint's trainer state, as `check_checkpoint` read it."""


def resume_point(
    path: Path | str, regime: str, setup: dict[str, Any], same: tuple[str, ...], agent: Agent[Any, Any, Any]
) -> ResumePoint:
    """Checks the checkpoint ``path`` (see `check_checkpoint`) and loads its agent files into ``agent``,
    each file read once, before anything is written: another agent's checkpoint, or one of other sizes, is
    refused here.

    Raises:
        FileNotFoundError, ValueError: as `check_checkpoint`, and ``agent.load_params``'s refusals.
    """
    state = check_checkpoint(Path(path), regime, setup, same)
    agent.load_params(Path(path))
    return ResumePoint(Path(path), state)


def checked_start(
    config: TrainerConfig,
    agent: Agent[Any, Any, Any],
    buffer_config: object,
    evaluator: Evaluator[Any, Any] | None,
    resume_from: Path | str | None,
    regime: tuple[str, dict[str, Any], tuple[str, ...]],
) -> ResumePoint | None:
    """The checks every trainer's ``prepare`` runs first, writing nothing: the agent against the buffer
    and the evaluator (`check_agent_fits`), the checkpoint ``resume_from`` against the run's ``regime``
    (its name, setup and the setup keys a resume keeps; `resume_point` loads its agent files into
    ``agent``), and the budget against what is left to do (`check_budget`). Returns the resume point.

    Raises:
        ValueError, FileNotFoundError: a check failed; the message names the field or file.
    """
    check_agent_fits(config, agent, buffer_config, evaluator)
    resume = None if resume_from is None else resume_point(resume_from, *regime, agent)
    check_budget(config, evaluator is not None, None if resume is None else resume.state["books"])
    return resume


@attrs.frozen(kw_only=True)
class RunSettings(Generic[O, A, B]):
    """What a trainer's ``prepare`` hands the loop: one record per run, read one way."""

    config: TrainerConfig
    agent: Agent[O, A, B]
    buffer: ReplayBuffer[B]
    evaluator: Evaluator[O, A] | None
    observers: Sequence[EvaluationObserver]
    resume: ResumePoint | None
    """The checkpoint the run continues (its agent already loaded), or ``None``: from scratch."""
    held: ModelDir | None
    """``model_dir`` as the caller holds it already (the run layer's `RunDir`: locked, checked for
    another run); ``None``: the run takes the lock itself."""


@contextmanager
def training_session(settings: RunSettings[Any, Any, Any]) -> Iterator[None]:
    """Holds ``model_dir`` for the run (`hold`: writable, locked, recovered) and refuses a model directory
    holding another run's saves unless this one resumes, unless the caller holds it already. Nothing to do
    without a ``model_dir``.

    Raises:
        ValueError: ``save_interval`` is set without a ``model_dir`` (a config may leave the directory to
            the run that uses it; a run that saves needs one).
    """
    config = settings.config
    if config.model_dir is None:
        if config.save_every is not None:
            raise ValueError("save_interval is set but model_dir is None: there is nowhere to save")
        yield
        return
    if settings.held is not None:
        yield
        return
    with ModelDir(config.model_dir).hold() as model_dir:
        if settings.resume is None:
            model_dir.refuse_saved_run()
        yield


def run_session(
    settings: RunSettings[O, A, B], regime: Regime, recorder: Recorder, progress: bool, on_start: OnStart
) -> TrainResult:
    """`run_training` inside the model directory's `training_session`: what every trainer's prepared
    run does."""
    with training_session(settings):
        return run_training(settings, regime, recorder, progress, on_start)


def run_training(
    settings: RunSettings[O, A, B],
    regime: Regime,
    recorder: Recorder,
    progress: bool,
    on_start: OnStart = None,
) -> TrainResult:
    """Runs the loop of the module docstring until the books say stop; see ``Trainer.train``. ``on_start``
    is called once everything is loaded (a resumed run's checkpoint included), before the first step."""
    config, agent = settings.config, settings.agent

    def write_state(path: Path) -> list[Path]:
        state = {
            "regime": regime.name,
            "books": books.state_dict(),
            "source": regime.state_dict(),
            "rng": global_rng_states(),
        }
        return [write_trainer_state(path, state), *regime.save_files(path)]

    meta = {"config": regime.setup()}
    books = Bookkeeper(
        config, agent, recorder, settings.evaluator, meta, regime.take_record, write_state, settings.observers
    )
    # Heard from the restore on: a signal while the checkpoint loads stops the run before its first step,
    # with that checkpoint (the books say it is saved), as one during a step stops it after the step.
    with Interrupts() as interrupts:
        rng = None if settings.resume is None else _restore(settings.resume, regime, books)
        if on_start is not None:
            on_start()
        agent.train()
        if rng is not None:
            set_global_rng_states(rng)  # last: nothing above may draw from them
        return _loop(settings, regime, books, interrupts, progress)


def _loop(
    settings: RunSettings[O, A, B],
    regime: Regime,
    books: Bookkeeper[Any, Any],
    interrupts: Interrupts,
    progress: bool,
) -> TrainResult:
    """The steps of `run_training` until the books say stop or a signal came."""
    config, agent, buffer = settings.config, settings.agent, settings.buffer
    by_opts = config.max_opts is not None
    with _progress_bar(config, books, progress) as bar:
        while books.stop_reason is None and interrupts.signum is None:
            env_steps = books.env_steps
            for _ in range(_advance(regime, books)):
                if not books.may_optimise:
                    break
                start = time.perf_counter()
                opt_record = agent.opt(buffer)
                if opt_record is None:
                    books.after_skip()
                    continue
                books.after_opt(opt_record, time.perf_counter() - start)
                _show(bar, books, by_opts, progress)
            if not by_opts:
                bar.update(books.env_steps - env_steps)
        books.finish(interrupted=interrupts.signum is not None)
        if interrupts.signum is not None:
            raise TrainingInterrupted(
                interrupts.signum, books.opt_steps, books.env_steps, books.checkpoint_dir()
            )
    return books.result()


def _advance(regime: Regime, books: Bookkeeper[Any, Any]) -> int:
    """``regime.advance``; a source of experience that failed for good ends the run with a checkpoint."""
    try:
        return regime.advance(books)
    except ExperienceSourceError as exc:
        books.finish(interrupted=True)  # the learner's work is kept
        exc.checkpoint = books.checkpoint_dir()
        raise


def _show(bar: tqdm.tqdm[Any], books: Bookkeeper[Any, Any], by_opts: bool, progress: bool) -> None:
    if by_opts:
        bar.update(1)
    if progress and books.last_score is not None:
        bar.set_postfix(eval=f"{books.last_score:.1f}", best=f"{books.best_score:.1f}", refresh=False)


class PreparedRun:
    """A run whose components are built and whose every check has passed (``Trainer.prepare``): nothing
    is written until `run`. Close it (or use it as a context manager) to release what it built when
    it is not run.

    Args:
        start: trains with the recorder and the progress flag it is given.
        release: closes what was built (the env); called once, after the run or by `close`.
    """

    def __init__(
        self, start: Callable[[Recorder, bool, OnStart], TrainResult], release: Callable[[], None]
    ) -> None:
        self._start = start
        self._release: Callable[[], None] | None = release

    def run(self, recorder: Recorder, *, progress: bool = False, on_start: OnStart = None) -> TrainResult:
        """Trains (see ``Trainer.train`` for what it does and raises), then releases what was built.
        ``on_start`` is called once the run has loaded everything (a resumed run's checkpoint too), before
        its first step: what must not be written for a run that fails to start (the run layer's
        ``config.yaml``).

        Raises:
            RuntimeError: the run was closed or has run already.
        """
        if self._release is None:
            raise RuntimeError("this prepared run was closed or has run already: prepare another")
        try:
            return self._start(recorder, progress, on_start)
        finally:
            self.close()

    def close(self) -> None:
        """Releases what was built, once."""
        release, self._release = self._release, None
        if release is not None:
            release()

    def __enter__(self) -> PreparedRun:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def check_checkpoint(path: Path, regime: str, setup: dict[str, Any], same: tuple[str, ...]) -> dict[str, Any]:
    """Checks that ``path`` is a complete checkpoint of a ``regime`` run whose setup shares the keys
    ``same`` with ``setup``; returns its trainer state. Reads, never writes.

    Raises:
        FileNotFoundError: ``path`` is not a complete checkpoint (the message says what is missing).
        ValueError: a file is corrupt, of an older border_py or of another regime, or the setups differ (the
            message names the first differing field).
    """
    meta = checkpoint_meta(path)
    check_same_setup(path, meta.get("config"), setup, same)
    return read_trainer_state(path, regime, meta)


def _progress_bar(config: TrainerConfig, books: Bookkeeper[Any, Any], show: bool) -> tqdm.tqdm[Any]:
    """A bar over opt steps, or over env steps when only ``max_env_steps`` bounds the run."""
    by_opts = config.max_opts is not None
    return tqdm.tqdm(
        total=config.max_opts if by_opts else config.max_env_steps,
        initial=books.opt_steps if by_opts else books.env_steps,
        unit="opt" if by_opts else "env step",
        disable=not show,
        dynamic_ncols=True,
    )


def _restore(resume: ResumePoint, regime: Regime, books: Bookkeeper[Any, Any]) -> Any:
    """Loads the rest of the checkpoint (its agent loaded when the run was prepared) into the run; returns
    the global RNG states to set last."""
    books.load_state_dict(resume.state["books"])
    regime.restore(resume.path, resume.state["source"], books)
    return resume.state["rng"]
