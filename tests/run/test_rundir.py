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


def test_a_linked_tensorboard_dir_is_never_written_through(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run (resumed, or new in a directory holding only the link) used to write its event files into
    wherever a linked ``tensorboard`` pointed."""
    outside = tmp_path / "outside"
    outside.mkdir()
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "tensorboard").symlink_to(outside, target_is_directory=True)
    assert _train(tmp_path, alone) == 2
    assert "holds another run (tensorboard (a link))" in capsys.readouterr().err
    run = tmp_path / "run"
    assert _train(tmp_path, run) == 0
    shutil.rmtree(run / "tensorboard")
    (run / "tensorboard").symlink_to(outside, target_is_directory=True)
    capsys.readouterr()
    argv = ["resume", "--model-dir", str(run), "--set", "trainer.max_opts=60", "--no-progress"]
    assert main(argv) == 2
    assert f"{run / 'tensorboard'} is a symbolic link" in capsys.readouterr().err
    assert list(outside.iterdir()) == []
    assert _train(tmp_path, alone, "--overwrite") == 0  # the link itself goes
    assert (alone / "tensorboard").is_dir()
    assert not (alone / "tensorboard").is_symlink()
    assert list(outside.iterdir()) == []


def test_a_linked_file_in_best_is_never_loaded_through(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert _train(tmp_path, run) == 0
    qnet = next(p for p in (run / "best").iterdir() if p.suffix == ".pt" and p.name != "state.pt")
    copy = tmp_path / "elsewhere.pt"
    shutil.copy(qnet, copy)  # the same weights: only the link can be why eval refuses
    qnet.unlink()
    qnet.symlink_to(copy)
    capsys.readouterr()
    assert main(["eval", "--model-dir", str(run)]) == 2
    assert f"{qnet} is a symbolic link: never followed" in capsys.readouterr().err


def test_a_refused_run_leaves_no_lock_in_a_directory_it_did_not_create(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    assert _train(tmp_path, run, "--set", "replay_buffer.capacity=10") == 2
    assert list(run.iterdir()) == []


def test_overwrite_removes_the_old_runs_unsent_mlflow_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A new run appended to the old run's spill file, whose lines upload then refused."""
    run = tmp_path / "run"
    assert _train(tmp_path, run) == 0
    (run / "mlflow_unsent.jsonl").write_text('{"run_id": "old"}\n')
    assert _train(tmp_path, run) == 2
    assert "mlflow_unsent.jsonl" in capsys.readouterr().err
    assert _train(tmp_path, run, "--overwrite") == 0
    assert "mlflow_unsent.jsonl" in capsys.readouterr().err  # said among what was removed
    assert not (run / "mlflow_unsent.jsonl").exists()


def test_overwrite_removes_only_what_a_run_wrote(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 53: a project folder's own config.yaml (not an experiment) and a file among the logs were
    deleted by --overwrite; they are refused by name and nothing is removed. A run's own files go."""
    project = tmp_path / "proj"
    project.mkdir()
    (project / "config.yaml").write_text("db: {host: x}\n")
    assert _train(tmp_path, project, "--overwrite") == 2
    err = capsys.readouterr().err
    assert f"{project / 'config.yaml'} in model_dir" in err
    assert "is not: refused (nothing removed)" in err
    assert (project / "config.yaml").read_text() == "db: {host: x}\n"
    run = tmp_path / "run"
    assert _train(tmp_path, run) == 0
    (run / "tensorboard" / "notes.txt").write_text("mine")
    assert _train(tmp_path, run, "--overwrite") == 2
    assert "tensorboard/notes.txt" in capsys.readouterr().err
    (run / "tensorboard" / "notes.txt").unlink()
    assert _train(tmp_path, run, "--overwrite") == 0  # a run's own config.yaml and event files


def test_a_full_disk_writing_config_yaml_names_the_file_and_leaves_no_leftover(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resume onto a full disk said only '[Errno 28] No space left on device', naming no file."""
    import errno

    from border_py.run import rundir
    from border_py.run.codec import load_experiment

    run = tmp_path / "run"
    assert _train(tmp_path, run) == 0
    before = (run / "config.yaml").read_bytes()

    def full(experiment: object) -> str:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(rundir, "dump_experiment", full)
    with pytest.raises(OSError, match=r"could not write .*run/config.yaml: No space left on device"):
        rundir.RunDir(run).write_config(load_experiment(run / "config.yaml"))
    assert (run / "config.yaml").read_bytes() == before
    assert not list(run.glob(".config.yaml.tmp-*"))


def test_a_refused_run_leaves_a_directory_holding_the_users_files_as_it_found_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 53: a refused run into an existing directory holding a file of the user's left an empty
    ``.lock`` there (only a directory holding nothing else was cleaned)."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "notes.txt").write_text("mine")
    assert _train(tmp_path, run, "--set", "env.name=NoSuchEnv-v0") == 2
    assert "NoSuchEnv-v0" in capsys.readouterr().err
    assert sorted(p.name for p in run.iterdir()) == ["notes.txt"]
