"""``Trainer[E, P, R]``: builds the env, step processor and replay buffer from their configs and runs the
training loop.

The loop (online)::

    build env(seed), step processor, buffer, sampler;  agent.train()
    loop:
        store(sampler.sample_and_push(agent, buffer));  env_steps += 1   # += N with a vector env of N
        if env_steps <= warmup_period or env_steps % opt_interval != 0: continue
        r = agent.opt(buffer)                   # with N envs: once per multiple of opt_interval passed
        if r is None: continue                  # the agent skipped: not an opt step
        opt_steps += 1;  store(r)
        every eval_interval:   evaluate in eval mode; save model_dir/best on a new best score
        every record_interval: store env_steps, opt_steps, time/fps, time/opt_steps_per_sec; flush(opt_steps)
        every save_interval:   save model_dir/<opt_steps>
        if opt_steps == max_opts: flush what is still stored; return

``opt_interval`` and ``warmup_period`` count env steps; ``eval_interval``, ``record_interval``,
``save_interval`` and ``max_opts`` count opt steps. ``None`` means never.

Checkpoints and resume: every ``model_dir/<opt_steps>/`` holds the full training state (the agent's files,
``trainer_state.pkl`` and, with ``checkpoint_buffer``, ``replay_buffer.npz``; see
:mod:`border_py.checkpoint`). ``train(..., resume_from=latest_checkpoint(model_dir))`` continues from one:
with the buffer saved, on CPU and with the same thread count, N opt steps + resume + N opt steps end exactly
where 2N uninterrupted opt steps do. SIGINT and SIGTERM finish the current step, save a checkpoint, flush the
recorder and raise :class:`TrainingInterrupted`.
"""

from __future__ import annotations

import math
import pickle
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any, Generic, TypeVar

import attrs
import tqdm
import yaml

from border_py.base.agent import Agent
from border_py.base.builder import Builder, SeededBuilder
from border_py.base.env import AnyEnv, Env, VecEnv
from border_py.base.evaluator import Evaluator
from border_py.base.recorder import Recorder
from border_py.base.replay_buffer import TrainingBuffer
from border_py.base.step_processor import StepProcessor
from border_py.base.typevars import A, B, I, O
from border_py.checkpoint import (
    TRAINER_STATE_FILE,
    Writer,
    ensure_writable_dir,
    is_resumable,
    load_meta,
    prune_checkpoints,
    recover_model_dir,
    save_checkpoint,
)
from border_py.config import to_dict
from border_py.record import Record
from border_py.sampler import SyncSampler
from border_py.seeding import global_rng_states, set_global_rng_states

E = TypeVar("E", bound=Env[Any, Any] | VecEnv[Any, Any], covariant=True)
P = TypeVar("P", bound=StepProcessor[Any, Any, Any], covariant=True)
R = TypeVar("R", bound=TrainingBuffer[Any, Any], covariant=True)

_positive = attrs.validators.gt(0)
_optional_positive = attrs.validators.optional(_positive)


@attrs.frozen(kw_only=True)
class TrainerConfig:
    """The trainer's schedule. Every interval is validated here, so no value can crash the loop.

    Example:
        >>> TrainerConfig(max_opts=1000, eval_interval=100, model_dir="runs/x").record_interval
        100
    """

    max_opts: int = attrs.field(validator=_positive)
    """In opt steps: training stops after this many."""
    opt_interval: int = attrs.field(default=1, validator=_positive)
    """In env steps: one ``agent.opt`` call every this many env steps."""
    warmup_period: int = attrs.field(default=0, validator=attrs.validators.ge(0))
    """In env steps: no ``agent.opt`` call before this many env steps have filled the buffer."""
    eval_interval: int | None = attrs.field(default=None, validator=_optional_positive)
    """In opt steps: evaluate (and save ``model_dir/best`` on a new best score) every this many; ``None``:
    never."""
    record_interval: int = attrs.field(default=100, validator=_positive)
    """In opt steps: flush aggregated records to the recorder every this many."""
    save_interval: int | None = attrs.field(default=None, validator=_optional_positive)
    """In opt steps: save ``model_dir/<opt_steps>`` every this many; ``None``: never."""
    model_dir: str | None = None
    """Directory of ``best/`` and ``<opt_steps>/``; ``None``: save nothing (then ``save_interval`` must be
    ``None``)."""
    seed: int = attrs.field(default=0, validator=attrs.validators.ge(0))
    """Seed of the training env and of the replay buffer's sampling."""
    checkpoint_buffer: bool = False
    """Whether each ``model_dir/<opt_steps>/`` checkpoint holds the replay buffer (contents, priorities,
    sampling RNG). Needed for an exact resume; costs disk (up to capacity x transition size per
    checkpoint). Without it a resumed run starts from an empty buffer and warms up again for
    ``warmup_period`` env steps."""
    keep_checkpoints: int | None = attrs.field(default=None, validator=_optional_positive)
    """In checkpoints: keep only the newest this many ``model_dir/<opt_steps>/``; ``None`` keeps all.
    ``best`` is never removed."""

    def __attrs_post_init__(self) -> None:
        if self.save_interval is not None and self.model_dir is None:
            raise ValueError("save_interval is set but model_dir is None: there is nowhere to save")


@attrs.frozen(kw_only=True)
class TrainResult:
    """What a finished training run reports."""

    opt_steps: int
    env_steps: int
    best_score: float
    """The best evaluation score (``-inf`` when no evaluation ran)."""
    last_score: float | None
    """The last evaluation score, ``None`` when no evaluation ran."""
    evaluations: tuple[Evaluation, ...] = ()
    """Every evaluation, in order."""

    def env_steps_to_reach(self, score: float) -> int | None:
        """In env steps: when an evaluation first scored ``>= score``; ``None`` if none did.

        Example:
            >>> r = TrainResult(opt_steps=2, env_steps=20, best_score=5.0, last_score=5.0,
            ...                 evaluations=(Evaluation(1, 10, 1.0), Evaluation(2, 20, 5.0)))
            >>> r.env_steps_to_reach(5.0), r.env_steps_to_reach(9.0)
            (20, None)
        """
        return next((e.env_steps for e in self.evaluations if e.score >= score), None)


@attrs.frozen
class Evaluation:
    """One evaluation during training: when (in opt and env steps) and its score."""

    opt_steps: int
    env_steps: int
    score: float


class TrainingInterrupted(Exception):  # noqa: N818 (it is not an error: the run stopped as asked)
    """Training stopped on SIGINT or SIGTERM after saving a checkpoint.

    Attributes:
        signum: the signal received.
        opt_steps: opt steps done when training stopped.
        env_steps: env steps done.
        checkpoint: the checkpoint written, ``None`` without a ``model_dir``.
    """

    def __init__(self, signum: int, opt_steps: int, env_steps: int, checkpoint: Path | None) -> None:
        self.signum, self.opt_steps, self.env_steps, self.checkpoint = (
            signum,
            opt_steps,
            env_steps,
            checkpoint,
        )
        where = (
            f"checkpoint saved to {checkpoint}" if checkpoint is not None else "no model_dir: nothing saved"
        )
        super().__init__(
            f"training interrupted by {signal.Signals(signum).name} at opt step {opt_steps} "
            f"(env step {env_steps}); {where}"
        )


class _Interrupts:
    """While active (in the main thread), SIGINT and SIGTERM set ``signum`` for the loop to act on after
    the current step; a second signal gets the previous handler, so it acts at once."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> _Interrupts:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.signum = signum
        signal.signal(signum, self._previous[signum])
        name = signal.Signals(signum).name
        print(
            f"\n{name} received: finishing the current step, then saving a checkpoint "
            f"(send {name} again to stop at once)",
            file=sys.stderr,
        )

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)


class _Books(Generic[O, A]):
    """The bookkeeping after each opt step: evaluation, best model, records, periodic saves.

    Kept apart from the loop that produces opt steps, so that online and (later) offline training share it.
    """

    def __init__(
        self,
        config: TrainerConfig,
        agent: Agent[O, A, Any],
        recorder: Recorder,
        evaluator: Evaluator[O, A] | None,
        meta: dict[str, Any],
        take_fps: Callable[[], float],
        write_training_state: Writer,
    ) -> None:
        self.config = config
        self.agent = agent
        self.recorder = recorder
        self.evaluator = evaluator
        self.meta = meta
        self.take_fps = take_fps
        self.write_training_state = write_training_state
        self.model_dir = None if config.model_dir is None else Path(config.model_dir)
        self.env_steps = 0
        self.opt_steps = 0
        self.warmup_end = config.warmup_period
        """In env steps: no opt step up to this one (moved on by a resume without a saved buffer)."""
        self.best_score = -math.inf
        self.evaluations: list[Evaluation] = []
        self.opt_seconds = 0.0
        self.opt_steps_since_record = 0
        self.last_checkpoint: int | None = None

    @property
    def last_score(self) -> float | None:
        """The score of the latest evaluation; ``None`` before the first."""
        return self.evaluations[-1].score if self.evaluations else None

    def after_opt(self, opt_record: Record, opt_seconds: float) -> None:
        """Counts one opt step and does what is due at it."""
        config = self.config
        self.opt_steps += 1
        self.opt_steps_since_record += 1
        self.opt_seconds += opt_seconds
        self.recorder.store(opt_record)
        if config.eval_interval is not None and self.opt_steps % config.eval_interval == 0:
            self._evaluate()
        if self.opt_steps % config.record_interval == 0:
            self._record()
        if config.save_interval is not None and self.opt_steps % config.save_interval == 0:
            self.checkpoint()
        if self.opt_steps == config.max_opts and self.opt_steps % config.record_interval != 0:
            self._record()  # the last records are never lost

    def _evaluate(self) -> None:
        assert self.evaluator is not None  # checked before training starts
        self.agent.eval()
        try:
            score, record = self.evaluator.evaluate(self.agent)
        finally:
            self.agent.train()
        self.evaluations.append(Evaluation(self.opt_steps, self.env_steps, score))
        self.recorder.store(record.merge({"eval_reward": score}))
        if score > self.best_score:
            self.best_score = score
            self._save("best", score, [self.agent.save_params])

    def _record(self) -> None:
        opt_rate = self.opt_steps_since_record / self.opt_seconds if self.opt_seconds > 0 else 0.0
        self.opt_seconds, self.opt_steps_since_record = 0.0, 0
        self.recorder.store(
            Record(
                {
                    "env_steps": self.env_steps,
                    "opt_steps": self.opt_steps,
                    "time/fps": self.take_fps(),
                    "time/opt_steps_per_sec": opt_rate,
                }
            )
        )
        self.recorder.flush(self.opt_steps)

    def checkpoint(self) -> Path | None:
        """Flushes the recorder and saves the full training state to ``model_dir/<opt_steps>`` (then
        removes checkpoints beyond ``keep_checkpoints``); returns the directory, ``None`` without a
        ``model_dir``."""
        # Records stored so far belong to opt steps <= this one: a resumed run would never write them.
        self.recorder.flush(self.opt_steps)
        path = self._save(
            str(self.opt_steps), self.last_score, [self.agent.save_params, self.write_training_state]
        )
        self.last_checkpoint = self.opt_steps
        if path is not None and self.config.keep_checkpoints is not None:
            prune_checkpoints(path.parent, self.config.keep_checkpoints)
        return path

    def checkpoint_dir(self) -> Path | None:
        """The directory of the latest checkpoint; ``None`` when there is none (or no ``model_dir``)."""
        if self.model_dir is None or self.last_checkpoint is None:
            return None
        return self.model_dir / str(self.last_checkpoint)

    def _save(self, name: str, score: float | None, writers: list[Writer]) -> Path | None:
        if self.model_dir is None:
            return None
        meta = {"opt_steps": self.opt_steps, "env_steps": self.env_steps, "score": score, **self.meta}
        save_checkpoint(self.model_dir / name, meta, writers)
        return self.model_dir / name

    def state_dict(self) -> dict[str, Any]:
        """The counters and scores, for a checkpoint."""
        return {
            "env_steps": self.env_steps,
            "opt_steps": self.opt_steps,
            "warmup_end": self.warmup_end,
            "best_score": self.best_score,
            "evaluations": [attrs.astuple(e) for e in self.evaluations],
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restores what :meth:`state_dict` returned."""
        self.env_steps, self.opt_steps = int(state["env_steps"]), int(state["opt_steps"])
        self.warmup_end, self.best_score = int(state["warmup_end"]), float(state["best_score"])
        self.evaluations = [Evaluation(int(o), int(e), float(s)) for o, e, s in state["evaluations"]]
        self.last_checkpoint = self.opt_steps


def _config_data(config: object) -> object:
    return to_dict(config) if attrs.has(type(config)) else repr(config)


class Trainer(Generic[E, P, R]):
    """Trains an agent in an env ``E`` whose steps a step processor ``P`` turns into items of a replay
    buffer ``R``.

    mypy binds the three together: the constructor's self type is
    ``Trainer[AnyEnv[O, A], StepProcessor[O, A, I], TrainingBuffer[I, B]]`` (``AnyEnv``: an ``Env`` or a
    ``VecEnv``), so a step processor whose item
    type differs from the buffer's, or an env whose observations it cannot read, is a type error
    ("Cannot infer value of type parameter"). ``train`` then requires an ``Agent[O, A, B]`` and an
    ``Evaluator[O, A]``.

    Args:
        config: the schedule.
        env_config: builds the training env with ``config.seed``.
        step_proc_config: builds the step processor.
        replay_buffer_config: builds the replay buffer with ``config.seed``.

    Example:
        >>> from border_py.testing import (CountingEnvConfig, FakeAgent, ListBufferConfig,
        ...                                RecordingStepProcessorConfig)
        >>> from border_py.recorders import BufferedRecorder
        >>> trainer = Trainer(TrainerConfig(max_opts=3), CountingEnvConfig(),
        ...                   RecordingStepProcessorConfig(), ListBufferConfig())
        >>> trainer.train(FakeAgent(), BufferedRecorder()).opt_steps
        3
    """

    env_config: SeededBuilder[E]
    step_proc_config: Builder[P]
    replay_buffer_config: SeededBuilder[R]

    def __init__(
        self: Trainer[AnyEnv[O, A], StepProcessor[O, A, I], TrainingBuffer[I, B]],
        config: TrainerConfig,
        env_config: SeededBuilder[AnyEnv[O, A]],
        step_proc_config: Builder[StepProcessor[O, A, I]],
        replay_buffer_config: SeededBuilder[TrainingBuffer[I, B]],
    ) -> None:
        self.config = config
        self.env_config = env_config
        self.step_proc_config = step_proc_config
        self.replay_buffer_config = replay_buffer_config

    def train(
        self: Trainer[AnyEnv[O, A], StepProcessor[O, A, I], TrainingBuffer[I, B]],
        agent: Agent[O, A, B],
        recorder: Recorder,
        evaluator: Evaluator[O, A] | None = None,
        *,
        progress: bool = False,
        resume_from: Path | str | None = None,
    ) -> TrainResult:
        """Runs the training loop until ``max_opts`` opt steps.

        Args:
            agent: the agent to train; it is left in train mode.
            recorder: receives the records; the trainer flushes it at each ``record_interval``, at each
                checkpoint and at the end, and leaves closing it to the caller.
            evaluator: scores the agent every ``eval_interval`` opt steps.
            progress: show a progress bar over opt steps.
            resume_from: a checkpoint directory (``model_dir/<opt_steps>``, e.g. from
                :func:`~border_py.checkpoint.latest_checkpoint`) to continue from: the agent, counters,
                evaluations, best score, RNG states, the unfinished episode and (if saved) the buffer.

        Returns:
            The final counters and scores (counted from the start of the first run when resuming).

        Raises:
            ValueError: ``eval_interval`` is set but no evaluator was given; or ``resume_from`` is corrupt,
                or was saved with another env, step processor, replay buffer or seed (the message names the
                file or the differing field).
            FileNotFoundError: ``resume_from`` is not a complete checkpoint.
            PermissionError: ``model_dir`` is not writable (checked before the first env step).
            OSError: a save failed (a full disk); the previous checkpoints are intact.
            TrainingInterrupted: SIGINT or SIGTERM arrived; a checkpoint was saved first.
        """
        config = self.config
        if config.eval_interval is not None and evaluator is None:
            raise ValueError("TrainerConfig.eval_interval is set but train() got no evaluator")
        if config.model_dir is not None:
            ensure_writable_dir(Path(config.model_dir))
            recover_model_dir(Path(config.model_dir))

        env = self.env_config.build(config.seed)
        try:
            return self._run(env, agent, recorder, evaluator, progress, resume_from)
        finally:
            env.close()

    def _run(
        self: Trainer[AnyEnv[O, A], StepProcessor[O, A, I], TrainingBuffer[I, B]],
        env: AnyEnv[O, A],
        agent: Agent[O, A, B],
        recorder: Recorder,
        evaluator: Evaluator[O, A] | None,
        progress: bool,
        resume_from: Path | str | None,
    ) -> TrainResult:
        config = self.config
        buffer = self.replay_buffer_config.build(config.seed)
        sampler = SyncSampler(
            env,
            [self.step_proc_config.build() for _ in range(env.num_envs)]
            if isinstance(env, VecEnv)
            else self.step_proc_config.build(),
        )
        setup = self._setup()

        def write_training_state(path: Path) -> list[Path]:
            state = {
                "format": _STATE_FORMAT,
                "books": books.state_dict(),
                "sampler": sampler.state_dict(),
                "buffer_saved": config.checkpoint_buffer,
                "rng": global_rng_states(),
            }
            file = path / TRAINER_STATE_FILE
            with file.open("wb") as f:
                pickle.dump(state, f, protocol=pickle.HIGHEST_PROTOCOL)
            return [file, *(buffer.save(path) if config.checkpoint_buffer else [])]

        books = _Books(
            config, agent, recorder, evaluator, {"config": setup}, sampler.take_fps, write_training_state
        )
        rng = (
            None if resume_from is None else _restore(Path(resume_from), setup, agent, sampler, buffer, books)
        )
        agent.train()
        bar = tqdm.tqdm(
            total=config.max_opts,
            initial=books.opt_steps,
            unit="opt",
            disable=not progress,
            dynamic_ncols=True,
        )
        if rng is not None:
            set_global_rng_states(rng)  # last: nothing above may draw from them
        with _Interrupts() as interrupts, bar:
            while books.opt_steps < config.max_opts and interrupts.signum is None:
                for env_record in sampler.sample_and_push(agent, buffer):
                    recorder.store(env_record)
                before = books.env_steps
                books.env_steps += sampler.num_envs
                for _ in range(opts_due(before, books.env_steps, books.warmup_end, config.opt_interval)):
                    if books.opt_steps >= config.max_opts:
                        break
                    start = time.perf_counter()
                    opt_record = agent.opt(buffer)
                    if opt_record is None:
                        continue
                    books.after_opt(opt_record, time.perf_counter() - start)
                    bar.update(1)
                    if books.last_score is not None:
                        bar.set_postfix(
                            eval=f"{books.last_score:.1f}", best=f"{books.best_score:.1f}", refresh=False
                        )
            # The final state, to continue from; on a signal, the state after the step it interrupted
            # (a checkpoint saved at this opt step already is one: only env steps came after it).
            if (config.save_interval is not None or interrupts.signum is not None) and (
                books.last_checkpoint != books.opt_steps
            ):
                books.checkpoint()
            if interrupts.signum is not None:
                raise TrainingInterrupted(
                    interrupts.signum, books.opt_steps, books.env_steps, books.checkpoint_dir()
                )
        return TrainResult(
            opt_steps=books.opt_steps,
            env_steps=books.env_steps,
            best_score=books.best_score,
            last_score=books.last_score,
            evaluations=tuple(books.evaluations),
        )

    def _setup(self) -> dict[str, Any]:
        """The configs a checkpoint records (and a resume compares)."""
        return {
            "trainer": to_dict(self.config),
            "env": _config_data(self.env_config),
            "step_processor": _config_data(self.step_proc_config),
            "replay_buffer": _config_data(self.replay_buffer_config),
        }


def opts_due(before: int, after: int, warmup_end: int, opt_interval: int) -> int:
    """How many opt steps the env steps ``before + 1 .. after`` call for: one per multiple of
    ``opt_interval`` past ``warmup_end`` (one env step at a time: 1 or 0; a vector env takes several).

    Example:
        >>> opts_due(9, 10, warmup_end=0, opt_interval=2), opts_due(0, 16, warmup_end=4, opt_interval=4)
        (1, 3)
    """
    lo = max(before, warmup_end)
    return max(0, after // opt_interval - lo // opt_interval) if after > lo else 0


_STATE_FORMAT = 1
"""The version of ``trainer_state.pkl``'s layout."""

_SAME_ON_RESUME = ("env", "step_processor", "replay_buffer", "trainer.seed", "trainer.opt_interval")
"""What a resumed run must share with the checkpoint (max_opts, intervals and model_dir may change)."""


def _restore(
    path: Path,
    setup: dict[str, Any],
    agent: Agent[Any, Any, Any],
    sampler: SyncSampler[Any, Any, Any],
    buffer: TrainingBuffer[Any, Any],
    books: _Books[Any, Any],
) -> dict[str, Any]:
    """Loads the checkpoint ``path`` into the run; returns the global RNG states to set last."""
    if not is_resumable(path):
        raise FileNotFoundError(
            f"{path} is not a complete training checkpoint: it needs meta.yaml and {TRAINER_STATE_FILE}"
        )
    _check_same_setup(path, load_meta(path).get("config"), setup)
    state = _read_training_state(path / TRAINER_STATE_FILE)
    if state["buffer_saved"]:
        buffer.load(path)
    agent.load_params(path)
    sampler.load_state_dict(state["sampler"])
    books.load_state_dict(state["books"])
    if not state["buffer_saved"]:
        books.warmup_end = books.env_steps + books.config.warmup_period  # refill the empty buffer first
    rng: dict[str, Any] = state["rng"]
    return rng


def _read_training_state(file: Path) -> dict[str, Any]:
    try:
        with file.open("rb") as f:
            state = pickle.load(f)
    except Exception as exc:  # a truncated or corrupt pickle raises many types
        raise ValueError(f"{file} is not a readable training state: {exc!r}") from exc
    keys = {"format", "books", "sampler", "buffer_saved", "rng"}
    if not isinstance(state, dict) or not keys <= state.keys():
        raise ValueError(f"{file} is not a training state: expected the keys {sorted(keys)}")
    if state["format"] != _STATE_FORMAT:
        raise ValueError(f"{file} has format {state['format']}, this border_py reads format {_STATE_FORMAT}")
    return state


def _check_same_setup(path: Path, saved: object, setup: dict[str, Any]) -> None:
    """Refuses to resume a run whose env, step processor, replay buffer or seed differ from the saved."""
    # Compare as YAML data: the saved side went through YAML (tuples became lists).
    now = yaml.safe_load(yaml.safe_dump(setup))
    if not isinstance(saved, dict):
        raise ValueError(f"{path / 'meta.yaml'} records no config to compare with")
    for key in _SAME_ON_RESUME:
        a, b = _lookup(saved, key), _lookup(now, key)
        if a != b:
            raise ValueError(
                f"cannot resume from {path}: {_first_difference(key, a, b)} (saved vs this run's config)"
            )


def _lookup(data: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        data = data.get(part) if isinstance(data, dict) else None
    return data


def _first_difference(key: str, a: Any, b: Any) -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(a.keys() | b.keys(), key=str):
            if a.get(k) != b.get(k):
                return _first_difference(f"{key}.{k}", a.get(k), b.get(k))
    return f"{key} is {a!r} vs {b!r}"
