"""``Recorder``: where records go."""

from __future__ import annotations

from typing import Protocol

from border_py.record import Record


class Recorder(Protocol):
    """Writes records at a step (the trainer's step axis is ``opt_steps``):

        recorder.store(agent_record, opt_steps)   # every opt step, with the step it was made at
        if opt_steps % record_interval == 0:
            recorder.flush(opt_steps)        # aggregate what was stored, then write it
        ...
        recorder.close()                     # flushes what is still stored, at its newest step

    A recorder never drops what was stored: ``flush`` and ``close`` write everything stored since the last
    flush (see `border_py.record.aggregate`).
    """

    def write(self, record: Record, step: int) -> None:
        """Writes ``record`` at ``step`` now, without aggregation."""
        ...

    def store(self, record: Record, step: int) -> None:
        """Keeps ``record``, made at ``step``, until the next flush."""
        ...

    def flush(self, step: int) -> None:
        """Aggregates the stored records and writes the result at ``step``; a no-op when nothing is stored."""
        ...

    def close(self) -> None:
        """Flushes what is still stored (at the newest step it was made at) and releases resources."""
        ...
