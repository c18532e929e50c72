"""``BufferedRecorder``: keeps written records in memory."""

from __future__ import annotations

from border_py.record import Record
from border_py.recorders.aggregating import AggregatingRecorder


class BufferedRecorder(AggregatingRecorder):
    """Keeps every written record with its step, for tests and notebooks.

    Examples:
        >>> r = BufferedRecorder()
        >>> r.store(Record({"train/loss": 1.0}), 9); r.store(Record({"train/loss": 3.0}), 10); r.flush(10)
        >>> r.scalars("train/loss"), r.scalars("train/loss_max")
        ([(10, 2.0)], [(10, 3.0)])
    """

    def __init__(self) -> None:
        super().__init__()
        self.records: list[tuple[int, Record]] = []

    def _write(self, record: Record, step: int) -> None:
        self.records.append((step, record))

    def _flush_output(self) -> None:
        """Nothing to flush: records are kept in memory."""

    def _close_output(self) -> None:
        """Nothing to release."""

    def scalars(self, key: str) -> list[tuple[int, float]]:
        """Returns ``(step, value)`` for each written record holding the scalar ``key``."""
        return [(step, r.get_scalar(key)) for step, r in self.records if key in r]
