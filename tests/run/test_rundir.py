"""The run directory treats a model directory as untrusted: a link planted where a file of ours goes is
never written through, and --overwrite removes links themselves, never what they point to."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from border_py.run.cli import main
from tests.run.tiny import tiny_config


def _train(tmp_path: Path, run: Path, *flags: str) -> int:
    return main(
        ["train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(run), "--no-progress", *flags]
    )


def test_a_linked_lock_file_is_refused_and_its_target_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious")
    run = tmp_path / "run"
    run.mkdir()
    (run / ".lock").symlink_to(victim)
    assert _train(tmp_path, run) == 2
    assert ".lock is a symbolic link: refusing to write through it" in capsys.readouterr().err
    assert victim.read_text() == "precious"


def test_a_linked_config_yaml_is_replaced_not_written_through(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious")
    run = tmp_path / "run"
    assert _train(tmp_path, run) == 0
    (run / "config.yaml").unlink()
    (run / "config.yaml").symlink_to(victim)
    assert main(["resume", "--model-dir", str(run), "--no-progress"]) == 2  # a link is no config of ours
    assert _train(tmp_path, run, "--overwrite") == 0
    assert victim.read_text() == "precious"
    assert not (run / "config.yaml").is_symlink()
    assert "env:" in (run / "config.yaml").read_text()


def test_overwrite_removes_a_linked_tensorboard_dir_without_emptying_its_target(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("precious")
    run = tmp_path / "run"
    assert _train(tmp_path, run) == 0
    shutil.rmtree(run / "tensorboard")
    (run / "tensorboard").symlink_to(outside, target_is_directory=True)
    assert _train(tmp_path, run, "--overwrite") == 0
    assert (outside / "keep.txt").read_text() == "precious"
    assert (run / "tensorboard").is_dir()
    assert not (run / "tensorboard").is_symlink()
