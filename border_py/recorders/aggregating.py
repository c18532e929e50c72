"""``AggregatingRecorder``: the store / flush / close half every recorder shares."""

from __future__ import annotations

from abc import ABC, abstractmethod

from border_py.record import Record, aggregate


class AggregatingRecorder(ABC):
    """Keeps stored records until a flush, then writes their aggregate (`border_py.record.aggregate`).

    A concrete recorder says where records go: ``_write``, ``_flush_output`` and ``_close_output``. ``close``
    writes what is still stored at the newest step it was made at, so nothing stored is ever dropped or
    put at an earlier step.
    """

    def __init__(self) -> None:
        self._stored: list[Record] = []
        self._stored_step = 0
        """The newest step of the stored records."""

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

    def store(self, record: Record, step: int) -> None:
        """Keeps ``record``, made at ``step``, until the next flush (an empty one is not kept)."""
        if record:
            self._stored.append(record)
            self._stored_step = max(self._stored_step, step)

    def flush(self, step: int) -> None:
        """Writes the aggregate of the stored records at ``step``; a no-op when nothing is stored."""
        records, self._stored = self._stored, []
        record = aggregate(records)
        if record:
            self.write(record, step)
        self._flush_output()

    def close(self) -> None:
        """Flushes what is still stored and releases the output.

        A run that crashed between two flushes leaves records stored since the last one: they are
        written at the newest step they were made at, never at the last flush's (a resume from that
        flush's checkpoint would keep them there, a second point at one step).
        """
        self.flush(self._stored_step)
        self._close_output()
