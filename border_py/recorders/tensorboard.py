"""``TensorboardRecorder``: event files through tensorboardX."""

from __future__ import annotations

import datetime
from pathlib import Path

import numpy as np
from tensorboardX import SummaryWriter

from border_py.record import Record
from border_py.recorders._store import RecordStore


class TensorboardRecorder:
    """Writes records as TensorBoard event files under ``logdir``.

    Scalars become scalar curves, 1-d arrays histograms, 2-d (HW) and 3-d (CHW) arrays images, texts and
    datetimes text entries. The step axis is the ``step`` given (the trainer passes ``opt_steps``).

    Args:
        logdir: the directory of the event files (created if needed).

    Example:
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as d:
        ...     r = TensorboardRecorder(d)
        ...     r.write(Record({"train/loss": 0.5}), step=1)
        ...     r.close()
    """

    def __init__(self, logdir: Path | str) -> None:
        self.logdir = Path(logdir)
        self.logdir.mkdir(parents=True, exist_ok=True)
        self._writer = SummaryWriter(logdir=str(self.logdir))
        self._store = RecordStore()
        self._last_step = 0

    def write(self, record: Record, step: int) -> None:
        """Writes every value of ``record`` at ``step``."""
        for key, value in record.items():
            if isinstance(value, float):
                self._writer.add_scalar(key, value, step)
            elif isinstance(value, np.ndarray):
                if value.ndim == 1:
                    self._writer.add_histogram(key, value, step)
                else:
                    self._writer.add_image(key, value, step, dataformats="HW" if value.ndim == 2 else "CHW")
            elif isinstance(value, datetime.datetime):
                self._writer.add_text(key, value.isoformat(), step)
            else:
                self._writer.add_text(key, value, step)
        self._last_step = step

    def store(self, record: Record) -> None:
        """Keeps ``record`` until the next flush."""
        self._store.add(record)

    def flush(self, step: int) -> None:
        """Writes the aggregate of the stored records at ``step`` and flushes the event file."""
        record = self._store.take()
        if record:
            self.write(record, step)
        self._writer.flush()

    def close(self) -> None:
        """Flushes what is still stored (at the last step written) and closes the event file."""
        self.flush(self._last_step)
        self._writer.close()
