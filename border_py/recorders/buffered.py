"""``BufferedRecorder``: keeps written records in memory."""

from __future__ import annotations

from border_py.record import Record
from border_py.recorders._store import RecordStore


class BufferedRecorder:
    """Keeps every written record with its step, for tests and notebooks.

    Example:
        >>> r = BufferedRecorder()
        >>> r.store(Record({"train/loss": 1.0})); r.store(Record({"train/loss": 3.0})); r.flush(10)
        >>> r.scalars("train/loss"), r.scalars("train/loss_max")
        ([(10, 2.0)], [(10, 3.0)])
    """

    def __init__(self) -> None:
        self.records: list[tuple[int, Record]] = []
        self._store = RecordStore()
        self._last_step = 0

    def write(self, record: Record, step: int) -> None:
        """Appends ``(step, record)``."""
        self.records.append((step, record))
        self._last_step = step

    def store(self, record: Record) -> None:
        """Keeps ``record`` until the next flush."""
        self._store.add(record)

    def flush(self, step: int) -> None:
        """Writes the aggregate of the stored records at ``step``."""
        record = self._store.take()
        if record:
            self.write(record, step)

    def close(self) -> None:
        """Flushes what is still stored at the last step written."""
        self.flush(self._last_step)

    def scalars(self, key: str) -> list[tuple[int, float]]:
        """Returns ``(step, value)`` for each written record holding the scalar ``key``."""
        return [(step, r.get_scalar(key)) for step, r in self.records if key in r]
