"""What recorders share: the records stored between two flushes."""

from __future__ import annotations

from border_py.record import Record, aggregate


class RecordStore:
    """Keeps stored records until they are taken, aggregated, by a flush."""

    def __init__(self) -> None:
        self._records: list[Record] = []

    def add(self, record: Record) -> None:
        """Keeps ``record`` (an empty one is not kept)."""
        if record:
            self._records.append(record)

    def take(self) -> Record:
        """Returns the aggregate of what was stored (empty when nothing was) and forgets it."""
        records, self._records = self._records, []
        return aggregate(records)
