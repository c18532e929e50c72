"""``BatchSender``: sends a tracking server its batches from a background thread, so that training never
waits for the server, and keeps what it could not send.

Batches are plain data (``{"metrics": [[key, value, timestamp_ms, step], ...], "tags": {...}}``) sent in the
order they were put, each retried until it goes through (1 s, 2 s, ... 30 s apart), so a server that comes
back receives every batch it missed, once and in order. While the server is away training goes on: the
queue holds up to ``max_pending`` batches, and older ones spill to ``spill_file`` (JSON lines) beyond that.
On `close` it keeps trying until ``close_timeout`` seconds have passed, then appends what is left to
``spill_file``, from where ``border-py upload`` sends it later. Nothing put is ever dropped silently.
"""

from __future__ import annotations

import contextlib
import json
import queue
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

Batch = dict[str, Any]
"""A batch of metrics and tags, as plain data."""

_STOP = object()


class BatchSender:
    """Sends batches in a background thread; see the module docstring.

    Args:
        send: sends one batch; raises when the server cannot take it.
        spill_file: where unsent batches go (``None``: they are reported on stderr as lost).
        run_id: written with each spilled batch, so a later upload knows where it belongs (``None``: the
            run is not made yet; set it once it is).
        max_pending: batches kept in memory while the server is away.
        close_timeout: in seconds, how long `close` keeps trying before it spills the rest.
        prepare: applied to each batch as it is spilled (drops what the server holds already).
    """

    def __init__(
        self,
        send: Callable[[Batch], None],
        spill_file: Path | None,
        run_id: str | None,
        max_pending: int = 10_000,
        close_timeout: float = 10.0,
        prepare: Callable[[Batch], Batch] | None = None,
    ) -> None:
        self._send, self.spill_file, self.run_id = send, spill_file, run_id
        self._prepare = prepare
        self._queue: queue.Queue[Any] = queue.Queue()
        self._max_pending, self.close_timeout = max_pending, close_timeout
        self._deadline: float | None = None
        self._lock = threading.Lock()
        self._wake = threading.Event()  # cuts a back-off short when closing
        self.down = False
        """Whether the last attempt failed (the server is away)."""
        self.spilled = 0
        """Batches written to ``spill_file``."""
        self._thread = threading.Thread(target=self._run, name="border_py-tracking", daemon=True)
        self._thread.start()

    def put(self, batch: Batch) -> None:
        """Queues ``batch``; never blocks. Beyond ``max_pending`` queued batches the oldest one spills.
        After `close`, the batch is sent at once in the caller's thread (spilled if that fails)."""
        if self._deadline is not None:
            if not self._attempt(batch):
                self.spill([batch])
            return
        if self._queue.qsize() >= self._max_pending:
            with contextlib.suppress(queue.Empty):
                oldest = self._queue.get_nowait()
                self._queue.task_done()
                self.spill([oldest])
        self._queue.put(batch)

    def spill(self, batches: list[Batch]) -> None:
        """Appends ``batches`` to ``spill_file`` (one JSON line each, with the run id)."""
        if not batches:
            return
        with self._lock:
            if self.spill_file is None:
                print(f"warning: {len(batches)} tracking batch(es) could not be sent", file=sys.stderr)
                return
            with self.spill_file.open("a") as file:
                for batch in batches:
                    batch = batch if self._prepare is None else self._prepare(batch)
                    file.write(json.dumps({"run_id": self.run_id, **batch}) + "\n")
            self.spilled += len(batches)

    def _attempt(self, batch: Batch) -> bool:
        try:
            self._send(batch)
        except Exception as exc:  # the server is away: training must not notice
            if not self.down:
                where = "reported lost" if self.spill_file is None else f"left in {self.spill_file}"
                print(
                    f"warning: the tracking server is unreachable ({type(exc).__name__}); training goes on, "
                    f"records are kept and sent if it is back before the run ends, else {where}",
                    file=sys.stderr,
                )
            self.down = True
            return False
        if self.down:
            print("the tracking server is back: sending the records it missed", file=sys.stderr)
        self.down = False
        return True

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                self._queue.task_done()
                return
            delay = 1.0
            while not self._attempt(item):
                if self._deadline is not None and time.monotonic() >= self._deadline:
                    self.spill([item, *self._drain()])
                    self._queue.task_done()
                    return
                self._wake.wait(delay if self._deadline is None else min(delay, 0.5))
                delay = min(2 * delay, 30.0)
            self._queue.task_done()

    def wait(self, timeout: float) -> bool:
        """Waits up to ``timeout`` seconds for every queued batch to be sent; returns whether they were."""
        end = time.monotonic() + timeout
        while self._queue.unfinished_tasks > 0:
            if time.monotonic() >= end:
                return False
            time.sleep(0.002)
        return True

    def _drain(self) -> list[Batch]:
        left: list[Batch] = []
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return left
            self._queue.task_done()
            if item is not _STOP:
                left.append(item)

    def close(self) -> int:
        """Sends what is queued, trying for up to ``close_timeout`` seconds, then spills the rest; returns
        how many batches were spilled in all."""
        self._deadline = time.monotonic() + self.close_timeout
        self._queue.put(_STOP)
        self._wake.set()
        # A request in flight may take the client's own timeout beyond the deadline.
        self._thread.join(self.close_timeout + 30.0)
        self.spill(self._drain())
        return self.spilled
