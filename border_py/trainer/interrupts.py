"""SIGINT and SIGTERM during training: finish the current step, save a checkpoint, then stop."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any


class TrainingInterrupted(Exception):  # noqa: N818 (it is not an error: the run stopped as asked)
    """Training stopped on SIGINT or SIGTERM after saving a checkpoint.

    Attributes:
        signum: the signal received.
        opt_steps: opt steps done when training stopped.
        env_steps: env steps done.
        checkpoint: the checkpoint written, ``None`` without a ``model_dir``.
    """

    def __init__(self, signum: int, opt_steps: int, env_steps: int, checkpoint: Path | None) -> None:
        self.signum, self.opt_steps, self.env_steps = signum, opt_steps, env_steps
        self.checkpoint = checkpoint
        where = (
            f"checkpoint saved to {checkpoint}" if checkpoint is not None else "no model_dir: nothing saved"
        )
        super().__init__(
            f"training interrupted by {signal.Signals(signum).name} at opt step {opt_steps} "
            f"(env step {env_steps}); {where}"
        )


class ExperienceSourceError(RuntimeError):
    """The run's source of experience failed for good (asynchronous actors that died more than
    ``max_restarts`` times): the learner is intact, so training stops after saving a checkpoint.

    Attributes:
        checkpoint: the checkpoint written, ``None`` before the loop saved it or without a ``model_dir``.
    """

    def __init__(self, message: str, checkpoint: Path | None = None) -> None:
        super().__init__(message)
        self.message, self.checkpoint = message, checkpoint

    def __str__(self) -> str:
        saved = f"; checkpoint saved to {self.checkpoint}" if self.checkpoint is not None else ""
        return self.message + saved


class TrainingStalledError(RuntimeError):
    """The agent skipped ``TrainerConfig.max_skipped_opts`` ``opt`` calls in a row after the warm-up: the
    run is not learning (a batch the buffer can never hold, say), so it stops, said in one line."""


class Stopped(KeyboardInterrupt):
    """SIGTERM outside training's steps (while a run is built, checked or loaded) or a second signal: the
    process stops at once, as Ctrl-C does; saves are atomic, so none is left half-written.

    Attributes:
        signum: the signal received.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextmanager
def sigterm_stops_at_once() -> Iterator[None]:
    """While active (in the main thread), SIGTERM raises `Stopped` where Python would die without a word:
    the command stops as on Ctrl-C (`KeyboardInterrupt`), and `Interrupts` hands a second SIGTERM to it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        raise Stopped(signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class Interrupts:
    """While active (in the main thread), SIGINT and SIGTERM set ``signum`` for the loop to act on after
    the current step; a second signal gets the previous handler, so it acts at once."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> Interrupts:
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
