"""Atomic model directories."""

from __future__ import annotations

from pathlib import Path

import pytest

from border_py.checkpoint import ensure_writable_dir, load_meta, save_checkpoint


class _Saver:
    def __init__(self, payload: str, fail: bool = False) -> None:
        self.payload, self.fail = payload, fail

    def save_params(self, path: Path) -> list[Path]:
        f = path / "params.txt"
        f.write_text(self.payload)
        if self.fail:
            raise OSError("disk full")
        return [f]


def test_save_replaces_the_directory_and_writes_meta(tmp_path: Path) -> None:
    save_checkpoint(_Saver("one"), tmp_path / "best", {"score": 1.0})
    files = save_checkpoint(_Saver("two"), tmp_path / "best", {"score": 2.0})
    assert (tmp_path / "best" / "params.txt").read_text() == "two"
    assert load_meta(tmp_path / "best")["score"] == 2.0
    assert sorted(p.name for p in files) == ["meta.yaml", "params.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best"]  # no temporaries left


def test_failed_save_leaves_the_previous_model_intact(tmp_path: Path) -> None:
    save_checkpoint(_Saver("good"), tmp_path / "best", {"score": 1.0})
    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(_Saver("half", fail=True), tmp_path / "best", {"score": 2.0})
    assert (tmp_path / "best" / "params.txt").read_text() == "good"
    assert load_meta(tmp_path / "best")["score"] == 1.0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best"]


def test_load_meta_of_an_incomplete_directory_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    with pytest.raises(FileNotFoundError, match=r"meta\.yaml not found"):
        load_meta(tmp_path / "x")


def test_model_dir_under_a_file_is_reported(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(PermissionError, match="not writable"):
        ensure_writable_dir(tmp_path / "file" / "models")
