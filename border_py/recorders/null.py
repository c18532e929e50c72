"""``NullRecorder``: discards every record."""

from __future__ import annotations

from border_py.record import Record


class NullRecorder:
    """A recorder that writes nothing, for runs whose metrics nobody reads (benchmarks, tests)."""

    def write(self, record: Record, step: int) -> None:
        """Discards ``record``."""

    def store(self, record: Record, step: int) -> None:
        """Discards ``record``."""

    def flush(self, step: int) -> None:
        """Does nothing."""

    def close(self) -> None:
        """Does nothing."""
