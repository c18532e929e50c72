"""A full disk during a save, a resume and an export, on a real 2 MB filesystem the test mounts (a tmpfs;
skipped, saying why, where mounting is not permitted): each fails in one line naming the path, the run's
earlier checkpoints and ``best/`` stay whole and loadable, an export leaves nothing behind, and once
there is room again the run resumes to where an uninterrupted run ends."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from border_py.run.cli import main
from tests.checkpoint_diff import checkpoint_differences
from tests.run.test_reliability import snapshot
from tests.run.tiny import tiny_config


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MB tmpfs mounted for the test."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("mounting a 2 MB tmpfs needs root (or CAP_SYS_ADMIN)")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(disk)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted here: {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def _fill(disk: Path, leave: int) -> Path:
    """Fills ``disk`` up to ``leave`` bytes free; returns the ballast file."""
    ballast = disk / "ballast"
    stats = os.statvfs(disk)
    ballast.write_bytes(bytes(max(stats.f_bavail * stats.f_frsize - leave, 0)))
    return ballast


def _error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("error: ")
    return err[0]


def _saves(run: Path) -> dict[str, str]:
    return {k: v for k, v in snapshot(run).items() if k.split("/")[0] in ("20", "40", "best")}


def _train(config: Path, run: Path, *more: str) -> int:
    return main(["train", "--config", str(config), "--model-dir", str(run), "--no-progress", *more])


def test_a_full_disk_in_a_save_or_a_resume_is_one_line_and_the_run_resumes_once_there_is_room(
    small_disk: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, run = tiny_config(tmp_path), small_disk / "run"
    assert _train(config, run) == 0  # 40 opt steps: checkpoints 20 and 40, best
    saved = _saves(run)
    more = ["--no-progress", "--set", "trainer.max_opts=60"]

    ballast = _fill(small_disk, 0)  # nothing left: the resume cannot write its config.yaml
    capsys.readouterr()
    assert main(["resume", "--model-dir", str(run), *more]) == 2
    line = _error_line(capsys)
    assert f"could not write {run / 'config.yaml'}: No space left on device" in line
    assert _saves(run) == saved

    ballast.unlink()
    ballast = _fill(small_disk, 24 * 1024)  # room for the config and the curves, not a checkpoint
    assert main(["resume", "--model-dir", str(run), *more]) == 2
    line = _error_line(capsys)
    assert f"could not save {run}/" in line
    assert "No space left on device. Nothing was replaced; earlier saves are intact" in line
    assert _saves(run) == saved
    assert [p.name for p in run.iterdir() if p.name.startswith(".") and p.name != ".lock"] == []
    assert main(["eval", "--model-dir", str(run)]) == 0  # best loads and plays
    assert main(["eval", "--model-dir", str(run), "--checkpoint", "40"]) == 0

    ballast.unlink()
    assert main(["resume", "--model-dir", str(run), *more]) == 0
    whole = tmp_path / "whole"
    assert _train(config, whole, "--set", "trainer.max_opts=60") == 0
    assert checkpoint_differences(whole / "60", run / "60") == []


@pytest.mark.parametrize("leave", [0, 8 * 1024], ids=["nothing left", "room for the numpy files"])
def test_an_export_to_a_full_disk_is_one_line_and_leaves_nothing(
    leave: int, small_disk: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run, out = tmp_path / "run", small_disk / "exported"
    assert _train(tiny_config(tmp_path), run) == 0
    _fill(small_disk, leave)
    capsys.readouterr()
    assert main(["export", "--model-dir", str(run), "--out", str(out)]) == 2
    line = _error_line(capsys)
    assert f"could not export to {out}: No space left on device; nothing was written there" in line
    assert sorted(p.name for p in small_disk.iterdir()) == ["ballast"]
