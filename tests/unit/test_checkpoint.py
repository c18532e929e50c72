"""Atomic model directories: saves, recovery after a crash, the newest checkpoint, rotation."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from border_py.checkpoint import (
    TRAINER_STATE_FILE,
    ensure_writable_dir,
    latest_checkpoint,
    load_meta,
    periodic_checkpoints,
    prune_checkpoints,
    recover_model_dir,
    resolve_saved,
    save_checkpoint,
)


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
    save_checkpoint(path, {"opt_steps": opt_steps}, [_writer("x"), _writer("s", name=TRAINER_STATE_FILE)])
    return path


def test_save_replaces_the_directory_and_writes_meta_last(tmp_path: Path) -> None:
    save_checkpoint(tmp_path / "best", {"score": 1.0}, [_writer("one")])
    files = save_checkpoint(tmp_path / "best", {"score": 2.0}, [_writer("two"), _writer("b", name="b.txt")])
    assert (tmp_path / "best" / "params.txt").read_text() == "two"
    assert load_meta(tmp_path / "best")["score"] == 2.0
    assert [p.name for p in files] == ["params.txt", "b.txt", "meta.yaml"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best"]  # no temporaries left


def test_disk_full_during_a_save_names_it_and_leaves_the_previous_model_intact(tmp_path: Path) -> None:
    save_checkpoint(tmp_path / "best", {"score": 1.0}, [_writer("good")])
    with pytest.raises(OSError, match=r"could not save .*best.*No space left.*intact") as info:
        save_checkpoint(tmp_path / "best", {"score": 2.0}, [_writer("half", fail=True)])
    assert info.value.errno == errno.ENOSPC
    assert (tmp_path / "best" / "params.txt").read_text() == "good"
    assert load_meta(tmp_path / "best")["score"] == 1.0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best"]


def test_a_crash_between_the_two_renames_keeps_the_previous_best_loadable(tmp_path: Path) -> None:
    save_checkpoint(tmp_path / "best", {"score": 1.0}, [_writer("good")])
    # What a kill after `best -> .best.old-<pid>` and before `.best.tmp-<pid> -> best` leaves behind.
    (tmp_path / "best").rename(tmp_path / ".best.old-123")
    (tmp_path / ".best.tmp-123").mkdir()
    (tmp_path / ".best.tmp-123" / "params.txt").write_text("half")

    assert load_meta(resolve_saved(tmp_path / "best"))["score"] == 1.0  # read-only lookup
    assert sorted(p.name for p in tmp_path.iterdir()) == [".best.old-123", ".best.tmp-123"]
    done = recover_model_dir(tmp_path)
    assert len(done) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best"]
    assert (tmp_path / "best" / "params.txt").read_text() == "good"


def test_recovery_removes_a_stale_aside_copy_when_the_new_one_landed(tmp_path: Path) -> None:
    save_checkpoint(tmp_path / "best", {"score": 2.0}, [_writer("new")])
    (tmp_path / ".best.old-7").mkdir()
    (tmp_path / ".best.old-7" / "meta.yaml").write_text("score: 1.0\n")
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
    save_checkpoint(tmp_path / "best", {"score": 1.0}, [_writer("b")])
    (tmp_path / ".30.tmp-1").mkdir()
    assert latest_checkpoint(tmp_path) == tmp_path / "15"
    assert [p.name for p in periodic_checkpoints(tmp_path)] == ["5", "10", "15"]


def test_prune_keeps_the_newest_checkpoints_and_best(tmp_path: Path) -> None:
    for n in (100, 20, 3, 40):
        _checkpoint(tmp_path, n)
    save_checkpoint(tmp_path / "best", {"score": 1.0}, [_writer("b")])
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
    with pytest.raises(ValueError, match=r"x/meta\.yaml is not valid YAML"):
        load_meta(tmp_path / "x")


def test_model_dir_under_a_file_is_reported(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(PermissionError, match="not writable"):
        ensure_writable_dir(tmp_path / "file" / "models")
