"""``AggregatingRecorder``: the store / flush / close half every recorder shares."""

from __future__ import annotations

from abc import ABC, abstractmethod

from border_py.record import Record, aggregate


class AggregatingRecorder(ABC):
    """Keeps stored records until a flush, then writes their aggregate (`border_py.record.aggregate`).

    A concrete recorder says where records go: ``_write``, ``_flush_output`` and ``_close_output``. ``close``
    writes what is still stored at the last step written, so nothing stored is ever dropped.
    """

    def __init__(self) -> None:
        self._stored: list[Record] = []
        self._last_step = 0

    @abstractmethod
    def _write(self, record: Record, step: int) -> None:
        """Writes ``record`` at ``step`` to the output."""

    @abstractmethod
    def _flush_output(self) -> None:
        """Pushes buffered output out."""

    @abstractmethod
    def _close_output(self) -> None:
        """Releases the output."""

    def write(self, record: Record, step: int) -> None:
        """Writes ``record`` at ``step`` now, without aggregation."""
        self._write(record, step)
        self._last_step = step

    def store(self, record: Record) -> None:
        """Keeps ``record`` until the next flush (an empty one is not kept)."""
        if record:
            self._stored.append(record)

    def flush(self, step: int) -> None:
        """Writes the aggregate of the stored records at ``step``; a no-op when nothing is stored."""
        records, self._stored = self._stored, []
        record = aggregate(records)
        if record:
            self.write(record, step)
        self._flush_output()

    def close(self) -> None:
        """Flushes what is still stored (at the last step written) and releases the output."""
        self.flush(self._last_step)
        self._close_output()
