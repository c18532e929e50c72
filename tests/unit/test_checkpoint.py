"""Atomic model directories: saves, recovery after a crash, the newest checkpoint, rotation."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from border_py.checkpoint import (
    TRAINER_STATE_FILE,
    CheckpointError,
    checkpoint_problem,
    ensure_writable_dir,
    load_meta,
    open_saved,
    recover_model_dir,
    remove_checkpoint,
    resolve_saved,
    save_checkpoint,
)
from border_py.model_dir import (
    clear_checkpoints,
    latest_checkpoint,
    periodic_checkpoints,
    previous_run,
    prune_checkpoints,
    skipped_checkpoints,
)


def _meta(**fields: Any) -> dict[str, Any]:
    return {"opt_steps": 0, "env_steps": 0, "score": None, **fields}


def _dead_pid() -> int:
    """The PID of a process that has exited (and been reaped)."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


@pytest.fixture
def live_pid() -> Iterator[int]:
    """The PID of another process that is alive while the test runs."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield process.pid
    process.kill()
    process.wait()


def _writer(payload: str, fail: bool = False, name: str = "params.txt"):  # type: ignore[no-untyped-def]
    def write(path: Path) -> list[Path]:
        f = path / name
        f.write_text(payload)
        if fail:
            raise OSError(errno.ENOSPC, "No space left on device")
        return [f]

    return write


def _checkpoint(model_dir: Path, opt_steps: int) -> Path:
    path = model_dir / str(opt_steps)
    save_checkpoint(path, _meta(opt_steps=opt_steps), [_writer("x"), _writer("s", name=TRAINER_STATE_FILE)])
    return path


def test_save_replaces_the_directory_and_writes_meta_last(tmp_path: Path) -> None:
    save_checkpoint(tmp_path / "best", _meta(score=1.0), [_writer("one")])
    files = save_checkpoint(tmp_path / "best", _meta(score=2.0), [_writer("two"), _writer("b", name="b.txt")])
    assert (tmp_path / "best" / "params.txt").read_text() == "two"
    assert load_meta(tmp_path / "best")["score"] == 2.0
    assert [p.name for p in files] == ["params.txt", "b.txt", "meta.yaml"]
    assert load_meta(tmp_path / "best")["files"] == ["b.txt", "params.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best"]  # no temporaries left


def test_disk_full_during_a_save_names_it_and_leaves_the_previous_model_intact(tmp_path: Path) -> None:
    save_checkpoint(tmp_path / "best", _meta(score=1.0), [_writer("good")])
    with pytest.raises(OSError, match=r"could not save .*best.*No space left.*intact") as info:
        save_checkpoint(tmp_path / "best", _meta(score=2.0), [_writer("half", fail=True)])
    assert info.value.errno == errno.ENOSPC
    assert (tmp_path / "best" / "params.txt").read_text() == "good"
    assert load_meta(tmp_path / "best")["score"] == 1.0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best"]


def test_a_crash_between_the_two_renames_keeps_the_previous_best_loadable(tmp_path: Path) -> None:
    save_checkpoint(tmp_path / "best", _meta(score=1.0), [_writer("good")])
    # What a kill after `best -> .best.old-<pid>` and before `.best.tmp-<pid> -> best` leaves behind.
    pid = _dead_pid()
    (tmp_path / "best").rename(tmp_path / f".best.old-{pid}")
    (tmp_path / f".best.tmp-{pid}").mkdir()
    (tmp_path / f".best.tmp-{pid}" / "params.txt").write_text("half")

    assert load_meta(resolve_saved(tmp_path / "best"))["score"] == 1.0  # read-only lookup
    assert sorted(p.name for p in tmp_path.iterdir()) == [f".best.old-{pid}", f".best.tmp-{pid}"]
    done = recover_model_dir(tmp_path)
    assert len(done) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best"]
    assert (tmp_path / "best" / "params.txt").read_text() == "good"


def test_recovery_removes_a_stale_aside_copy_when_the_new_one_landed(tmp_path: Path) -> None:
    save_checkpoint(tmp_path / "best", _meta(score=2.0), [_writer("new")])
    stale = tmp_path / f".best.old-{_dead_pid()}"
    stale.mkdir()
    (stale / "meta.yaml").write_text("score: 1.0\n")
    recover_model_dir(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best"]
    assert load_meta(tmp_path / "best")["score"] == 2.0


def test_latest_checkpoint_ignores_incomplete_and_non_numeric_directories(tmp_path: Path) -> None:
    assert latest_checkpoint(tmp_path) is None
    for n in (5, 10, 15):
        _checkpoint(tmp_path, n)
    (tmp_path / "20").mkdir()  # no meta.yaml: a copy that never finished
    (tmp_path / "25").mkdir()
    (tmp_path / "25" / "meta.yaml").write_text("opt_steps: 25\n")  # no trainer state: a best-style dir
    save_checkpoint(tmp_path / "best", _meta(score=1.0), [_writer("b")])
    (tmp_path / ".30.tmp-1").mkdir()
    assert latest_checkpoint(tmp_path) == tmp_path / "15"
    assert [p.name for p in periodic_checkpoints(tmp_path)] == ["5", "10", "15"]
    skipped = skipped_checkpoints(tmp_path)
    assert [p.name for p, _ in skipped] == ["25", "20"]
    assert "trainer_state.json not found" in skipped[0][1]


def test_a_checkpoint_missing_a_listed_file_is_incomplete_and_says_which(tmp_path: Path) -> None:
    """What a kill in the middle of deleting a checkpoint file by file would leave (meta.yaml there, a file
    gone): never taken for complete."""
    _checkpoint(tmp_path, 5)
    _checkpoint(tmp_path, 10)
    (tmp_path / "10" / "params.txt").unlink()
    assert (
        checkpoint_problem(tmp_path / "10")
        == f"{tmp_path / '10'} lacks ['params.txt'], which its meta.yaml lists"
    )
    assert latest_checkpoint(tmp_path) == tmp_path / "5"


def test_removing_a_checkpoint_hides_it_before_deleting_so_a_crash_leaves_no_visible_half(
    tmp_path: Path,
) -> None:
    _checkpoint(tmp_path, 5)
    _checkpoint(tmp_path, 10)
    # What a kill in the middle of remove_checkpoint leaves: the hidden name, partly deleted.
    pid = _dead_pid()
    (tmp_path / "5").rename(tmp_path / f".5.del-{pid}")
    (tmp_path / f".5.del-{pid}" / "params.txt").unlink()
    assert [p.name for p in periodic_checkpoints(tmp_path)] == ["10"]
    assert recover_model_dir(tmp_path) == [f"removed the unfinished removal {tmp_path / f'.5.del-{pid}'}"]
    remove_checkpoint(tmp_path / "10")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_recovery_leaves_the_hidden_directories_of_a_live_process_alone(
    tmp_path: Path, live_pid: int
) -> None:
    (tmp_path / f".best.tmp-{live_pid}").mkdir()
    (tmp_path / f".7.del-{live_pid}").mkdir()
    assert recover_model_dir(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == [f".7.del-{live_pid}", f".best.tmp-{live_pid}"]


def test_prune_keeps_the_newest_checkpoints_and_best(tmp_path: Path) -> None:
    for n in (100, 20, 3, 40):
        _checkpoint(tmp_path, n)
    save_checkpoint(tmp_path / "best", _meta(score=1.0), [_writer("b")])
    removed = prune_checkpoints(tmp_path, keep=2)
    assert sorted(p.name for p in removed) == ["20", "3"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["100", "40", "best"]
    with pytest.raises(ValueError, match="keep must be >= 1"):
        prune_checkpoints(tmp_path, keep=0)


def test_load_meta_of_an_incomplete_or_corrupt_directory_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    with pytest.raises(FileNotFoundError, match=r"meta\.yaml not found"):
        load_meta(tmp_path / "x")
    (tmp_path / "x" / "meta.yaml").write_text("a: [1,\n")
    with pytest.raises(ValueError, match=r"x/meta\.yaml is not readable YAML"):
        load_meta(tmp_path / "x")
    # Truncated mid-way: valid YAML, but not a whole meta.yaml.
    (tmp_path / "x" / "meta.yaml").write_text("opt_steps: 20\nenv_steps: 4")
    with pytest.raises(
        ValueError, match=r"x/meta\.yaml is incomplete \(no \['score', 'files'\]\): truncated"
    ):
        load_meta(tmp_path / "x")


@pytest.mark.parametrize("listed", ["-1", "{a: 1}", "''", "/etc/passwd", "../outside.pt", "null", "a" * 300])
def test_a_meta_yaml_listing_what_is_no_file_name_inside_is_refused_naming_it(
    tmp_path: Path, listed: str
) -> None:
    """Issue 53 (found by tests/fuzz): ``files: [-1]`` was a TypeError traceback from every command that
    looked for the newest checkpoint."""
    (tmp_path / "run" / "40").mkdir(parents=True)
    (tmp_path / "run" / "40" / TRAINER_STATE_FILE).write_text("{}")
    meta = f"opt_steps: 40\nenv_steps: 9\nscore: 1.0\nfiles: [{listed}]\n"
    (tmp_path / "run" / "40" / "meta.yaml").write_text(meta)
    with pytest.raises(CheckpointError, match=r"40/meta\.yaml: files lists .*, not a file name inside"):
        load_meta(tmp_path / "run" / "40")
    assert latest_checkpoint(tmp_path / "run") is None  # passed over, as any incomplete checkpoint


def test_model_dir_under_a_file_is_reported(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(PermissionError, match="not writable"):
        ensure_writable_dir(tmp_path / "file" / "models")


def _outside_copy(tmp_path: Path, opt_steps: int) -> Path:
    """A complete checkpoint outside the model directory (what a planted link points to)."""
    return _checkpoint(tmp_path / "elsewhere", opt_steps)


def test_a_linked_numbered_checkpoint_is_never_resumed_from_pruned_or_followed(tmp_path: Path) -> None:
    model_dir = tmp_path / "run"
    _checkpoint(model_dir, 10)
    _checkpoint(model_dir, 20)
    victim = _outside_copy(tmp_path, 30)
    (model_dir / "30").symlink_to(victim, target_is_directory=True)
    assert latest_checkpoint(model_dir) == model_dir / "20"
    (skipped,) = skipped_checkpoints(model_dir)
    assert skipped[0] == model_dir / "30"
    assert "symbolic link" in skipped[1]
    assert prune_checkpoints(model_dir, keep=1) == [model_dir / "10"]
    assert (victim / "meta.yaml").is_file()
    assert previous_run(model_dir) == ["20/", "30/"]
    assert clear_checkpoints(model_dir) == [model_dir / "20", model_dir / "30"]
    assert not (model_dir / "30").is_symlink()
    assert (victim / "meta.yaml").is_file()  # the link went, not what it pointed to


def test_a_hidden_leftover_that_is_a_link_is_unlinked_at_start_up(tmp_path: Path) -> None:
    model_dir = tmp_path / "run"
    _checkpoint(model_dir, 10)
    victim = _outside_copy(tmp_path, 30)
    (model_dir / f".30.tmp-{_dead_pid()}").symlink_to(victim, target_is_directory=True)
    (done,) = recover_model_dir(model_dir)
    assert "removed the link" in done
    assert sorted(p.name for p in model_dir.iterdir()) == ["10"]
    assert (victim / "meta.yaml").is_file()


def test_replacing_a_linked_best_replaces_the_link_not_its_target(tmp_path: Path) -> None:
    model_dir = tmp_path / "run"
    model_dir.mkdir()
    victim = _outside_copy(tmp_path, 30)
    (model_dir / "best").symlink_to(victim, target_is_directory=True)
    save_checkpoint(model_dir / "best", _meta(score=1.0), [_writer("new")])
    assert not (model_dir / "best").is_symlink()
    assert load_meta(model_dir / "best")["score"] == 1.0
    assert load_meta(victim)["opt_steps"] == 30
    assert sorted(p.name for p in model_dir.iterdir()) == ["best"]


def test_the_write_probe_never_follows_a_link_planted_under_its_name(tmp_path: Path) -> None:
    """A ``.write-probe-<pid>`` link for every pid used to let the probe truncate the file it points to,
    outside the directory, before the lock was taken."""
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me")
    run = tmp_path / "run"
    run.mkdir()
    for pid in {os.getpid(), *range(os.getpid() - 3, os.getpid() + 4)}:
        (run / f".write-probe-{pid}").symlink_to(outside)
    ensure_writable_dir(run)
    assert outside.read_text() == "keep me"


def test_a_linked_file_inside_a_save_makes_it_incomplete_and_is_never_opened(tmp_path: Path) -> None:
    """A link in place of a file a save lists (or of its meta.yaml) used to be loaded through."""
    model_dir = tmp_path / "run"
    outside = _outside_copy(tmp_path, 10)  # whole files, so only the link can make a save incomplete
    for opt_steps, name in ((10, "params.txt"), (20, "meta.yaml")):
        linked = _checkpoint(model_dir, opt_steps) / name
        linked.unlink()
        linked.symlink_to(outside / name)
        assert f"{linked} is a symbolic link" in str(checkpoint_problem(linked.parent))
        with pytest.raises(CheckpointError, match="symbolic link: never followed"):
            open_saved(linked).close()
    assert latest_checkpoint(model_dir) is None


def test_a_linked_aside_copy_of_best_is_never_picked(tmp_path: Path) -> None:
    """Eval looks for ``.best.old-<pid>`` when ``best`` is missing; a planted link there was read."""
    victim = _outside_copy(tmp_path, 30)
    model_dir = tmp_path / "run"
    model_dir.mkdir()
    (model_dir / f".best.old-{_dead_pid()}").symlink_to(victim, target_is_directory=True)
    assert resolve_saved(model_dir / "best") == model_dir / "best"


def test_recovery_removes_a_file_a_killed_process_was_writing_aside(tmp_path: Path, live_pid: int) -> None:
    """``.config.yaml.tmp-<pid>`` of a process killed while writing config.yaml was never removed."""
    dead = tmp_path / f".config.yaml.tmp-{_dead_pid()}"
    alive = tmp_path / f".config.yaml.tmp-{live_pid}"
    for path in (dead, alive):
        path.write_text("env: {name: Cart")
    assert recover_model_dir(tmp_path) == [f"removed the unfinished write {dead}"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [alive.name]


def test_a_full_disk_that_torch_reports_as_a_runtime_error_is_said_as_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """torch.save says a full disk with a RuntimeError ('basic_ios::clear: iostream error', measured on a
    full tmpfs), which escaped as a traceback; another RuntimeError, with room on the disk, is a bug and
    stays one."""

    def torch_save(path: Path) -> list[Path]:
        raise RuntimeError("basic_ios::clear: iostream error")

    save_checkpoint(tmp_path / "best", _meta(score=1.0), [_writer("good")])
    with pytest.raises(RuntimeError, match="iostream error"):
        save_checkpoint(tmp_path / "best", _meta(score=2.0), [torch_save])
    full = os.statvfs_result((4096, 4096, 100, 0, 0, 100, 0, 0, 0, 255))
    monkeypatch.setattr(os, "statvfs", lambda path: full)
    with pytest.raises(
        OSError, match=r"could not save .*best: No space left on device \(torch: basic_ios"
    ) as info:
        save_checkpoint(tmp_path / "best", _meta(score=2.0), [torch_save])
    assert info.value.errno == errno.ENOSPC
    assert load_meta(tmp_path / "best")["score"] == 1.0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best"]
