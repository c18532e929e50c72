"""``TensorboardRecorder``: event files through tensorboardX."""

from __future__ import annotations

import contextlib
import datetime
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from tensorboardX import SummaryWriter

from border_py.record import Record
from border_py.recorders.aggregating import AggregatingRecorder


class TensorboardRecorder(AggregatingRecorder):
    """Writes records as TensorBoard event files under ``logdir``.

    Scalars become scalar curves, 1-d arrays histograms, 2-d (HW) and 3-d (CHW) arrays images, texts and
    datetimes text entries. The step axis is the ``step`` given (the trainer passes ``opt_steps``). An
    ``OSError`` (a full or read-only disk) names ``logdir``.

    Args:
        logdir: the directory of the event files (created if needed).
        purge_step: when resuming from a checkpoint at opt step ``N``, pass ``N + 1``: TensorBoard then
            hides whatever the interrupted run wrote at steps ``>= N + 1`` (after its checkpoint), so the
            curves continue from the checkpoint instead of doubling back.

    Examples:
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as d:
        ...     r = TensorboardRecorder(d)
        ...     r.write(Record({"train/loss": 0.5}), step=1)
        ...     r.close()
    """

    def __init__(self, logdir: Path | str, purge_step: int | None = None) -> None:
        super().__init__()
        self.logdir = Path(logdir)
        self._purge_step = purge_step
        self._writer: SummaryWriter | None = None
        self._thread_errors: list[_ThreadErrors] = []
        with self._naming_logdir():
            self.logdir.mkdir(parents=True, exist_ok=True)

    def _opened(self) -> SummaryWriter:
        """The event file's writer, made at the first record: a run refused while it loads (a damaged
        buffer in its checkpoint, say) leaves no event file behind."""
        if self._writer is None:
            # tensorboardX names files by the second: a second writer within the same second would
            # truncate the first's file. A nanosecond suffix keeps both, in the order they were made.
            self._writer = SummaryWriter(
                logdir=str(self.logdir), purge_step=self._purge_step, filename_suffix=f".{time.time_ns()}"
            )
            self._thread_errors = _route_thread_errors(self._writer)
        return self._writer

    @contextlib.contextmanager
    def _naming_logdir(self) -> Iterator[None]:
        """An ``OSError`` (a full disk) says which directory it is about; the writer is let go then."""
        try:
            yield
        except OSError as exc:
            if self._writer is not None:
                _abandon(self._writer)
                self._writer = None
            raise OSError(exc.errno, f"TensorBoard logs in {self.logdir}: {exc.strerror or exc}") from exc

    def _write(self, record: Record, step: int) -> None:
        with self._naming_logdir():
            self._write_values(record, step)

    def _write_values(self, record: Record, step: int) -> None:
        writer = self._opened()
        for key, value in record.items():
            if isinstance(value, float):
                writer.add_scalar(key, value, step)
            elif isinstance(value, np.ndarray):
                if value.ndim == 1:
                    writer.add_histogram(key, value, step)
                else:
                    writer.add_image(key, value, step, dataformats="HW" if value.ndim == 2 else "CHW")
            elif isinstance(value, datetime.datetime):
                writer.add_text(key, value.isoformat(), step)
            else:
                writer.add_text(key, value, step)

    def _flush_output(self) -> None:
        if self._writer is not None:
            with self._naming_logdir():
                self._writer.flush()
                self._raise_thread_error()

    def _close_output(self) -> None:
        if self._writer is not None:
            with self._naming_logdir():
                self._writer.close()
                self._raise_thread_error()

    def _raise_thread_error(self) -> None:
        for caught in self._thread_errors:
            if caught.error is not None:
                raise caught.error


class _ThreadErrors:
    """An event file's writer as tensorboardX's writer thread calls it: an ``OSError`` the thread meets (a
    full disk, at its own timed flush or at a write) is kept for the recorder to raise at its next flush or
    close, in the run's thread, instead of ending tensorboardX's thread with a traceback on stderr. What
    comes after the error is not written; the recorder's error says so."""

    def __init__(self, events_writer: Any) -> None:
        self._inner = events_writer
        self.error: OSError | None = None

    def write_event(self, event: Any) -> None:
        self._guarded(self._inner.write_event, event)

    def flush(self) -> None:
        self._guarded(self._inner.flush)

    def _guarded(self, call: Callable[..., Any], *args: Any) -> None:
        if self.error is not None:
            return
        try:
            call(*args)
        except OSError as exc:
            self.error = exc


def _route_thread_errors(writer: SummaryWriter) -> list[_ThreadErrors]:
    """Puts `_ThreadErrors` between each of ``writer``'s writer threads and its event file (tensorboardX's
    private fields: it has no hook for a thread's errors). A thread that cannot be reached keeps its own."""
    caught = []
    for file_writer in list((writer.all_writers or {}).values()):
        worker = getattr(getattr(file_writer, "event_writer", None), "_worker", None)
        if worker is not None and hasattr(worker, "_record_writer"):
            worker._record_writer = _ThreadErrors(worker._record_writer)
            caught.append(worker._record_writer)
    return caught


def _abandon(writer: SummaryWriter) -> None:
    """Stops tensorboardX's writer threads and marks their files closed after a failed write (a full
    disk): else, as the process ends, its atexit hook retries the flush and its thread dies on the torn
    down queue, each printing a traceback after the one-line error. What it could not write is lost."""
    for file_writer in list((writer.all_writers or {}).values()):
        events = getattr(file_writer, "event_writer", None)
        if events is None or getattr(events, "_closed", True):
            continue
        with contextlib.suppress(Exception):  # the thread may have died on the same error
            events._worker.stop()
        with contextlib.suppress(Exception):
            events._ev_writer.close()
        events._closed = True
