"""``Bookkeeper``: what happens after each opt step, the same in every regime.

Online, offline, on-policy or asynchronous, a regime only decides where items come from and when an opt
step is due. Everything after an opt step is here, once: count it, evaluate every ``eval_interval`` (in eval
mode) and save ``model_dir/best`` on a new best score, flush records every ``record_interval``, save a full
checkpoint every ``save_interval``, and decide when training stops (``max_opts``, ``max_env_steps``,
``stop_score``) and whether the end writes a checkpoint.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Generic

from border_py.base.agent import Agent
from border_py.base.evaluator import Evaluator
from border_py.base.recorder import Recorder
from border_py.base.typevars import A, O
from border_py.checkpoint import Writer, save_checkpoint
from border_py.model_dir import prune_checkpoints
from border_py.record import Record
from border_py.trainer.config import TrainerConfig
from border_py.trainer.interrupts import TrainingStalledError
from border_py.trainer.result import (
    Evaluation,
    EvaluationObserver,
    StopReason,
    TrainResult,
    parse_evaluations,
)


class Bookkeeper(Generic[O, A]):
    """The counters of a run and everything due at an opt step.

    Args:
        config: the schedule.
        agent: the agent being trained (evaluated and saved here).
        recorder: receives the records; flushed every ``record_interval``, at each checkpoint and at the end.
        evaluator: scores the agent every ``eval_interval`` opt steps.
        meta: what every saved directory's ``meta.yaml`` records besides the counters (the configs).
        take_record: the regime's own numbers since the last call, recorded at each ``record_interval``
            beside the counters (online: ``time/fps``, ``time/act_seconds``, ``time/env_seconds``;
            offline: none).
        write_state: writes the training state (the regime's and `state_dict`) into a checkpoint.
        observers: hear each evaluation; one returning ``True`` stops training (``stop_reason``
            ``"observer"``).

    Examples:
        >>> from border_py.testing import FakeAgent
        >>> from border_py.recorders import BufferedRecorder
        >>> books = Bookkeeper(TrainerConfig(max_opts=2), FakeAgent(), BufferedRecorder(), None, {},
        ...                    dict, lambda path: [])
        >>> books.after_opt(Record({"train/loss": 1.0}), 0.01); books.stop_reason is None
        True
        >>> books.after_opt(Record({"train/loss": 1.0}), 0.01); books.stop_reason
        'max_opts'
    """

    def __init__(
        self,
        config: TrainerConfig,
        agent: Agent[O, A, Any],
        recorder: Recorder,
        evaluator: Evaluator[O, A] | None,
        meta: dict[str, Any],
        take_record: Callable[[], Mapping[str, float]],
        write_state: Writer,
        observers: Sequence[EvaluationObserver] = (),
    ) -> None:
        self.config = config
        self.agent = agent
        self.recorder = recorder
        self.evaluator = evaluator
        self.meta = meta
        self.take_record = take_record
        self.write_state = write_state
        self.observers = tuple(observers)
        self.model_dir = None if config.model_dir is None else Path(config.model_dir)
        self.env_steps = 0
        self.opt_steps = 0
        self.warmup_end = config.warmup_period
        """In env steps: no opt step up to this one (moved on by a resume without a saved buffer)."""
        self.best_score = -math.inf
        self.evaluations: list[Evaluation] = []
        self.skipped_in_a_row = 0
        self.opt_seconds = 0.0
        self.eval_seconds = 0.0
        self.opt_steps_since_record = 0
        self.last_checkpoint: int | None = None
        self._score_reached = False
        self._observer_stop = False

    @property
    def last_score(self) -> float | None:
        """The score of the latest evaluation; ``None`` before the first."""
        return self.evaluations[-1].score if self.evaluations else None

    @property
    def may_optimise(self) -> bool:
        """Whether another opt step may run: neither ``max_opts`` nor ``stop_score`` was reached. (An env
        step budget that ran out still lets the opt steps due at its last env step run.)"""
        limit = self.config.max_opts
        stopped = self._score_reached or self._observer_stop
        return not stopped and (limit is None or self.opt_steps < limit)

    @property
    def stop_reason(self) -> StopReason | None:
        """Why training must stop now; ``None`` while it goes on."""
        c = self.config
        if self._score_reached:
            return "stop_score"
        if self._observer_stop:
            return "observer"
        if c.max_opts is not None and self.opt_steps >= c.max_opts:
            return "max_opts"
        if c.max_env_steps is not None and self.env_steps >= c.max_env_steps:
            return "max_env_steps"
        return None

    def after_opt(self, opt_record: Record, opt_seconds: float) -> None:
        """Counts one opt step and does what is due at it."""
        config = self.config
        self.opt_steps += 1
        self.skipped_in_a_row = 0
        self.opt_steps_since_record += 1
        self.opt_seconds += opt_seconds
        self.recorder.store(opt_record, self.opt_steps)
        if config.eval_every is not None and self.opt_steps % config.eval_every == 0:
            self._evaluate()
        if self.opt_steps % config.record_interval == 0:
            self._record()
        if config.save_every is not None and self.opt_steps % config.save_every == 0:
            self.checkpoint()

    def after_skip(self) -> None:
        """Counts an ``opt`` call the agent skipped.

        Raises:
            TrainingStalledError: ``max_skipped_opts`` calls in a row were skipped after the warm-up.
        """
        self.skipped_in_a_row += 1
        limit = self.config.max_skipped_opts
        if limit is not None and self.skipped_in_a_row >= limit:
            raise TrainingStalledError(
                f"agent.opt skipped {self.skipped_in_a_row} calls in a row (up to env step "
                f"{self.env_steps}, opt step {self.opt_steps}; the warm-up ended at env step "
                f"{self.warmup_end}): it is not learning. Does its batch size exceed what the buffer holds "
                "(its capacity, or the dataset)? TrainerConfig.max_skipped_opts sets this limit"
            )

    def _evaluate(self) -> None:
        assert self.evaluator is not None  # checked before training starts
        self.agent.eval()
        start = time.perf_counter()
        try:
            score, record = self.evaluator.evaluate(self.agent)
        finally:
            self.agent.train()
            self.eval_seconds += time.perf_counter() - start
        evaluation = Evaluation(self.opt_steps, self.env_steps, score)
        self.evaluations.append(evaluation)
        self.recorder.store(record.merge({"eval_reward": score}), self.opt_steps)
        if score > self.best_score:
            self.best_score = score
            self._save("best", score, [self.agent.save_params])
        stop_score = self.config.stop_score
        self._score_reached = stop_score is not None and score >= stop_score
        # Every observer hears every evaluation, also after one of them asked to stop.
        stops = [observer(evaluation) for observer in self.observers]
        self._observer_stop = self._observer_stop or any(stops)

    def _record(self) -> None:
        opt_rate = self.opt_steps_since_record / self.opt_seconds if self.opt_seconds > 0 else 0.0
        counters: dict[str, float] = {
            "env_steps": self.env_steps,
            "opt_steps": self.opt_steps,
            "time/opt_steps_per_sec": opt_rate,
            "time/opt_seconds": self.opt_seconds,
            "time/eval_seconds": self.eval_seconds,
        }
        self.opt_seconds, self.eval_seconds, self.opt_steps_since_record = 0.0, 0.0, 0
        counters.update(self.take_record())
        self.recorder.store(Record(counters), self.opt_steps)
        self.recorder.flush(self.opt_steps)

    def finish(self, interrupted: bool) -> None:
        """Ends the run's books: flushes the last records of a run that stopped on its own, and writes the
        final checkpoint when one is due.

        A run ends with a checkpoint (to continue from) when it saves periodically, when a signal stopped
        it, or when it reached ``stop_score``; never twice at one opt step (a checkpoint saved at this opt
        step already is one: only env steps came after it). This is the one place that decides it.
        """
        if not interrupted and self.opt_steps_since_record > 0:
            self._record()  # the last records are never lost
        wanted = interrupted or self.config.save_every is not None or self._score_reached
        if wanted and self.last_checkpoint != self.opt_steps:
            self.checkpoint()

    def checkpoint(self) -> Path | None:
        """Flushes the recorder and saves the full training state to ``model_dir/<opt_steps>`` (then
        removes checkpoints beyond ``keep_checkpoints``); returns the directory, ``None`` without a
        ``model_dir``."""
        # Records stored so far belong to opt steps <= this one: a resumed run would never write them.
        self.recorder.flush(self.opt_steps)
        path = self._save(str(self.opt_steps), self.last_score, [self.agent.save_params, self.write_state])
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

    def result(self) -> TrainResult:
        """The run's final counters and scores."""
        return TrainResult(
            opt_steps=self.opt_steps,
            env_steps=self.env_steps,
            best_score=self.best_score,
            last_score=self.last_score,
            evaluations=tuple(self.evaluations),
            stop_reason=self.stop_reason or "max_opts",
        )

    def state_dict(self) -> dict[str, Any]:
        """The counters and scores, for a checkpoint."""
        return {
            "env_steps": self.env_steps,
            "opt_steps": self.opt_steps,
            "warmup_end": self.warmup_end,
            "best_score": self.best_score,
            "evaluations": [[e.opt_steps, e.env_steps, e.score] for e in self.evaluations],
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restores what `state_dict` returned.

        Raises:
            ValueError: ``state`` lacks a counter or holds one of the wrong type.
        """
        try:
            self.env_steps, self.opt_steps = int(state["env_steps"]), int(state["opt_steps"])
            self.warmup_end, self.best_score = int(state["warmup_end"]), float(state["best_score"])
            self.evaluations = parse_evaluations(state["evaluations"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"the trainer state's counters are malformed: {exc!r}") from exc
        self.last_checkpoint = self.opt_steps
