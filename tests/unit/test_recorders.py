"""Recorders: aggregation on flush, nothing lost on close, TensorBoard files readable."""

from __future__ import annotations

import errno
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import attrs
import numpy as np
import pytest

from border_py import BufferedRecorder, Record, TensorboardRecorder, Trainer, TrainerConfig
from border_py.base import Step
from border_py.testing import CountingEnv, FakeAgent, ListBufferConfig, RecordingStepProcessorConfig


def test_buffered_flush_aggregates_and_close_writes_the_rest_at_the_step_it_was_made_at() -> None:
    r = BufferedRecorder()
    r.store(Record({"loss": 1.0}), 9)
    r.store(Record({"loss": 3.0}), 10)
    r.flush(10)
    r.store(Record({"loss": 7.0}), 12)
    r.store(Record({"loss": 9.0}), 13)
    r.close()
    assert r.scalars("loss") == [(10, 2.0), (13, 8.0)]
    assert r.scalars("loss_max") == [(10, 3.0), (13, 9.0)]


def test_flush_with_nothing_stored_writes_nothing() -> None:
    r = BufferedRecorder()
    r.flush(5)
    assert r.records == []


def _read_scalars(logdir: Path) -> dict[str, list[tuple[int, float]]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tensorboard's reader imports deprecated modules
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

        acc = EventAccumulator(str(logdir))
        acc.Reload()
    return {tag: [(e.step, e.value) for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


def test_tensorboard_event_files_hold_every_scalar(tmp_path: Path) -> None:
    r = TensorboardRecorder(tmp_path)
    r.write(Record({"train/loss": 0.5, "note": "text", "hist": np.arange(4.0)}), step=1)
    r.store(Record({"train/loss": 1.0}), 2)
    r.store(Record({"train/loss": 2.0}), 2)
    r.flush(2)
    r.store(Record({"eval/episode_return": 9.0}), 3)
    r.close()  # stored after the last flush: written at the step it was made at, not lost
    scalars = _read_scalars(tmp_path)
    assert scalars["train/loss"] == [(1, 0.5), (2, 1.5)]
    assert scalars["train/loss_min"] == [(2, 1.0)]
    assert scalars["eval/episode_return"] == [(3, 9.0)]


def test_tensorboard_purge_step_hides_what_an_interrupted_run_wrote_after_its_checkpoint(
    tmp_path: Path,
) -> None:
    first = TensorboardRecorder(tmp_path)
    for step in range(1, 11):
        first.write(Record({"train/loss": float(step)}), step=step)
    first.close()  # interrupted at 10; its last checkpoint was at opt step 6
    resumed = TensorboardRecorder(tmp_path, purge_step=7)
    for step in range(7, 9):
        resumed.write(Record({"train/loss": 100.0 + step}), step=step)
    resumed.close()
    assert _read_scalars(tmp_path)["train/loss"] == [(s, float(s)) for s in range(1, 7)] + [
        (7, 107.0),
        (8, 108.0),
    ]


def test_the_event_file_is_written_at_the_first_record_never_before(tmp_path: Path) -> None:
    """A run refused while it loads (a damaged checkpoint) has made its recorder: it leaves no file."""
    idle = TensorboardRecorder(tmp_path / "idle", purge_step=5)
    idle.flush(4)
    idle.close()
    assert list((tmp_path / "idle").iterdir()) == []
    used = TensorboardRecorder(tmp_path / "used")
    used.write(Record({"train/loss": 1.0}), step=1)
    used.close()
    assert len(list((tmp_path / "used").iterdir())) == 1


def test_a_full_disk_names_the_tensorboard_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = TensorboardRecorder(tmp_path / "tb")

    def full(*_: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    from tensorboardX import SummaryWriter

    monkeypatch.setattr(SummaryWriter, "flush", full)
    recorder.store(Record({"train/loss": 1.0}), 1)
    with pytest.raises(
        OSError, match=rf"TensorBoard logs in {tmp_path / 'tb'}: No space left on device"
    ) as info:
        recorder.flush(1)
    assert info.value.errno == errno.ENOSPC


def _one_error_line_after_a_full_disk(logdir: Path, then: str) -> None:
    """Runs, in a fresh process, a recorder that wrote one record before its disk filled, then ``then``
    (code that ends in the recorder's flush or close); checks that the one error line is all it says."""
    script = f"""
import errno, time
from tensorboardX.record_writer import RecordWriter
from border_py import Record, TensorboardRecorder
recorder = TensorboardRecorder({str(logdir)!r})
recorder.write(Record({{"train/loss": 1.0}}), 1)
def full(*_):
    raise OSError(errno.ENOSPC, "No space left on device")
RecordWriter.flush = full
try:
{textwrap.indent(then, "    ")}
except OSError as exc:
    print("error:", exc)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert done.stdout == f"error: [Errno 28] TensorBoard logs in {logdir}: No space left on device\n"
    assert done.stderr == ""


def test_after_a_full_disk_tensorboardx_prints_nothing_more_as_the_process_ends(tmp_path: Path) -> None:
    """Its atexit hook retried the flush and its thread died on the torn-down queue: two tracebacks after
    the one-line error (measured on a full tmpfs)."""
    _one_error_line_after_a_full_disk(tmp_path / "tb", "recorder.close()")


def test_a_full_disk_met_by_tensorboardxs_own_thread_is_the_recorders_one_line(tmp_path: Path) -> None:
    """tensorboardX's writer thread flushes on its own timer: a full disk there ended the thread with a
    traceback on stderr (the race behind the test above failing under load). The thread's flush is forced
    here after the disk fills; the error is the recorder's, raised at its next flush."""
    forced = """for file_writer in recorder._writer.all_writers.values():
    file_writer.event_writer._worker._next_flush_time = 0  # the thread's timer is due
recorder.write(Record({"train/loss": 2.0}), 2)
time.sleep(1.0)  # the thread takes the record and flushes
recorder.flush(2)"""
    _one_error_line_after_a_full_disk(tmp_path / "tb", forced)


class _BreakingEnv(CountingEnv):
    """A `CountingEnv` whose step ``after + 1`` raises, as an env that crashes mid-run."""

    def __init__(self, after: int) -> None:
        super().__init__()
        self.after = after

    def step(self, act: int) -> tuple[Step[int, int], Record]:
        if self.n_steps >= self.after:
            raise RuntimeError("the env broke")
        return super().step(act)


@attrs.frozen
class _BreakingEnvConfig:
    after: int

    def build(self, seed: int) -> _BreakingEnv:
        return _BreakingEnv(self.after)


def test_a_crash_writes_its_last_records_at_the_step_they_were_made_at(tmp_path: Path) -> None:
    """An env that raises at env step 251 (opt step 250; records flushed and saved at 200): what was
    stored since the flush is written at 250, so no key holds two points at 200 and a resume from the
    checkpoint at 200 (purging steps from 201) hides it."""
    config = TrainerConfig(max_opts=1000, record_interval=100, save_interval=100, model_dir=str(tmp_path))
    trainer = Trainer(
        config, _BreakingEnvConfig(after=250), RecordingStepProcessorConfig(), ListBufferConfig()
    )
    recorder = TensorboardRecorder(tmp_path / "tb")
    with pytest.raises(RuntimeError, match="the env broke"):
        trainer.train(FakeAgent(), recorder)
    recorder.close()  # as the run layer does whatever happened
    scalars = _read_scalars(tmp_path / "tb")
    assert scalars["train/loss"] == [(100, 50.5), (200, 150.5), (250, 225.5)]
    for key, points in scalars.items():
        steps = [step for step, _ in points]
        assert steps == sorted(set(steps)), key
    resumed = TensorboardRecorder(tmp_path / "tb", purge_step=201)
    resumed.write(Record({"train/loss": 0.0}), step=300)
    resumed.close()
    assert _read_scalars(tmp_path / "tb")["train/loss"] == [(100, 50.5), (200, 150.5), (300, 0.0)]
