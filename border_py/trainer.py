"""``Trainer[E, P, R]``: builds the env, step processor and replay buffer from their configs and runs the
training loop.

The loop (online)::

    build env(seed), step processor, buffer, sampler;  agent.train()
    loop:
        store(sampler.sample_and_push(agent, buffer));  env_steps += 1
        if env_steps <= warmup_period or env_steps % opt_interval != 0: continue
        r = agent.opt(buffer)
        if r is None: continue                  # the agent skipped: not an opt step
        opt_steps += 1;  store(r)
        every eval_interval:   evaluate in eval mode; save model_dir/best on a new best score
        every record_interval: store env_steps, opt_steps, time/fps, time/opt_steps_per_sec; flush(opt_steps)
        every save_interval:   save model_dir/<opt_steps>
        if opt_steps == max_opts: flush what is still stored; return

``opt_interval`` and ``warmup_period`` count env steps; ``eval_interval``, ``record_interval``,
``save_interval`` and ``max_opts`` count opt steps. ``None`` means never.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TypeVar

import attrs
import tqdm

from border_py.base.agent import Agent
from border_py.base.builder import Builder, SeededBuilder
from border_py.base.env import Env
from border_py.base.evaluator import Evaluator
from border_py.base.recorder import Recorder
from border_py.base.replay_buffer import TrainingBuffer
from border_py.base.step_processor import StepProcessor
from border_py.base.typevars import A, B, I, O
from border_py.checkpoint import ensure_writable_dir, save_checkpoint
from border_py.config import to_dict
from border_py.record import Record
from border_py.sampler import SyncSampler

E = TypeVar("E", bound=Env[Any, Any], covariant=True)
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
    ) -> None:
        self.config = config
        self.agent = agent
        self.recorder = recorder
        self.evaluator = evaluator
        self.meta = meta
        self.take_fps = take_fps
        self.model_dir = None if config.model_dir is None else Path(config.model_dir)
        self.env_steps = 0
        self.opt_steps = 0
        self.best_score = -math.inf
        self.evaluations: list[Evaluation] = []
        self.opt_seconds = 0.0
        self.opt_steps_since_record = 0

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
            self._save(str(self.opt_steps), self.last_score)
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
            self._save("best", score)

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

    def _save(self, name: str, score: float | None) -> None:
        if self.model_dir is None:
            return
        meta = {"opt_steps": self.opt_steps, "env_steps": self.env_steps, "score": score, **self.meta}
        save_checkpoint(self.agent, self.model_dir / name, meta)


def _config_data(config: object) -> object:
    return to_dict(config) if attrs.has(type(config)) else repr(config)


class Trainer(Generic[E, P, R]):
    """Trains an agent in an env ``E`` whose steps a step processor ``P`` turns into items of a replay
    buffer ``R``.

    mypy binds the three together: the constructor's self type is
    ``Trainer[Env[O, A], StepProcessor[O, A, I], TrainingBuffer[I, B]]``, so a step processor whose item
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
        self: Trainer[Env[O, A], StepProcessor[O, A, I], TrainingBuffer[I, B]],
        config: TrainerConfig,
        env_config: SeededBuilder[Env[O, A]],
        step_proc_config: Builder[StepProcessor[O, A, I]],
        replay_buffer_config: SeededBuilder[TrainingBuffer[I, B]],
    ) -> None:
        self.config = config
        self.env_config = env_config
        self.step_proc_config = step_proc_config
        self.replay_buffer_config = replay_buffer_config

    def train(
        self: Trainer[Env[O, A], StepProcessor[O, A, I], TrainingBuffer[I, B]],
        agent: Agent[O, A, B],
        recorder: Recorder,
        evaluator: Evaluator[O, A] | None = None,
        *,
        progress: bool = False,
    ) -> TrainResult:
        """Runs the training loop until ``max_opts`` opt steps.

        Args:
            agent: the agent to train; it is left in train mode.
            recorder: receives the records; the trainer flushes it at each ``record_interval`` and at the
                end, and leaves closing it to the caller.
            evaluator: scores the agent every ``eval_interval`` opt steps.
            progress: show a progress bar over opt steps.

        Returns:
            The final counters and scores.

        Raises:
            ValueError: ``eval_interval`` is set but no evaluator was given.
            PermissionError: ``model_dir`` is not writable (checked before the first env step).
        """
        config = self.config
        if config.eval_interval is not None and evaluator is None:
            raise ValueError("TrainerConfig.eval_interval is set but train() got no evaluator")
        if config.model_dir is not None:
            ensure_writable_dir(Path(config.model_dir))

        env = self.env_config.build(config.seed)
        buffer = self.replay_buffer_config.build(config.seed)
        sampler = SyncSampler(env, self.step_proc_config.build())
        meta = {
            "config": {
                "trainer": to_dict(config),
                "env": _config_data(self.env_config),
                "step_processor": _config_data(self.step_proc_config),
                "replay_buffer": _config_data(self.replay_buffer_config),
            }
        }
        books = _Books(config, agent, recorder, evaluator, meta, sampler.take_fps)
        agent.train()
        bar = tqdm.tqdm(total=config.max_opts, unit="opt", disable=not progress, dynamic_ncols=True)
        try:
            while books.opt_steps < config.max_opts:
                env_record = sampler.sample_and_push(agent, buffer)
                books.env_steps += 1
                if env_record:
                    recorder.store(env_record)
                if books.env_steps <= config.warmup_period or books.env_steps % config.opt_interval != 0:
                    continue
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
        finally:
            bar.close()
            env.close()
        return TrainResult(
            opt_steps=books.opt_steps,
            env_steps=books.env_steps,
            best_score=books.best_score,
            last_score=books.last_score,
            evaluations=tuple(books.evaluations),
        )
