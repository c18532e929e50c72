"""``TeeRecorder``: every record to several recorders (TensorBoard files kept beside an MLflow run)."""

from __future__ import annotations

from collections.abc import Sequence

from border_py.base.recorder import Recorder
from border_py.record import Record


class TeeRecorder:
    """Passes every call to each of ``recorders``, in order; each aggregates what it stores on its own.

    ``close`` closes every recorder, also when one of them fails (the first error is raised after).

    Examples:
        >>> from border_py.recorders import BufferedRecorder
        >>> a, b = BufferedRecorder(), BufferedRecorder()
        >>> tee = TeeRecorder([a, b]); tee.write(Record({"x": 1.0}), step=1)
        >>> len(a.records) == len(b.records) == 1
        True
    """

    def __init__(self, recorders: Sequence[Recorder]) -> None:
        self.recorders = tuple(recorders)

    def write(self, record: Record, step: int) -> None:
        """Writes ``record`` at ``step`` to every recorder."""
        for recorder in self.recorders:
            recorder.write(record, step)

    def store(self, record: Record, step: int) -> None:
        """Stores ``record``, made at ``step``, in every recorder."""
        for recorder in self.recorders:
            recorder.store(record, step)

    def flush(self, step: int) -> None:
        """Flushes every recorder at ``step``."""
        for recorder in self.recorders:
            recorder.flush(step)

    def close(self) -> None:
        """Closes every recorder; raises the first error once all were closed."""
        errors: list[BaseException] = []
        for recorder in self.recorders:
            try:
                recorder.close()
            except Exception as exc:  # the others are still closed: nothing they stored is lost
                errors.append(exc)
        if errors:
            raise errors[0]
