"""The run layer under hostile or mistaken input (issue 29): every check before anything is written or
removed, links inside a model directory never followed, one-line errors naming the field or file."""

from __future__ import annotations

import errno
import hashlib
import json
import re
from pathlib import Path

import pytest

from border_py.model_dir import latest_checkpoint
from border_py.run.cli import main
from tests.run.conftest import make_dataset
from tests.run.tiny import tiny_config


def _main(*args: str) -> int:
    return main([*args, "--no-progress"] if args[0] in ("train", "resume") else list(args))


def snapshot(root: Path) -> dict[str, str]:
    """Every file under ``root`` (links as links) and a hash of its bytes."""
    found: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        if path.is_symlink():
            found[key] = f"link -> {path.readlink()}"
        elif path.is_file() and path.name != ".lock":
            found[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    """The single line on stderr, an error (a refused run says nothing else)."""
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("error: "), err
    return err[0]


@pytest.fixture
def finished_run(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    assert _main("train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(run)) == 0
    return run


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ("agent.device=cuda:7", "cuda:7"),
        ("env.name=NoSuchEnv-v0", "NoSuchEnv-v0"),
        ("env.kwargs={gravity: 3}", "gravity"),
        ("agent.batch_size=5000", "larger than replay_buffer.capacity"),
    ],
)
def test_overwrite_with_a_config_that_fails_its_checks_leaves_the_old_run_whole(
    finished_run: Path, tmp_path: Path, change: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(finished_run)
    config = str(tiny_config(tmp_path))
    assert (
        _main("train", "--config", config, "--model-dir", str(finished_run), "--overwrite", "--set", change)
        == 2
    )
    assert says in one_error_line(capsys)
    assert snapshot(finished_run) == before


def test_a_resume_whose_buffer_file_is_corrupt_is_refused_and_rewrites_nothing(
    finished_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    buffer = finished_run / "40" / "replay_buffer.npz"
    buffer.write_bytes(buffer.read_bytes()[:100])
    before = snapshot(finished_run)
    assert _main("resume", "--model-dir", str(finished_run), "--set", "trainer.max_opts=60") == 2
    assert "40/replay_buffer.npz is not a readable replay buffer file" in one_error_line(capsys)
    after = snapshot(finished_run)  # once: hashing every file per key would redo it for each
    changed = {k for k in after.keys() | before.keys() if after.get(k) != before.get(k)}
    assert not {k for k in changed if not k.startswith("tensorboard/")}  # config.yaml above all


def test_a_linked_numbered_checkpoint_is_passed_over_with_a_word_and_never_pruned_through(
    finished_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("mine")
    (finished_run / "99").symlink_to(victim, target_is_directory=True)
    assert _main("resume", "--model-dir", str(finished_run), "--set", "trainer.max_opts=80") == 0
    out = capsys.readouterr().out
    assert f"skipping {finished_run / '99'}: {finished_run / '99'} is a symbolic link" in out
    assert f"resuming from {finished_run / '40'}" in out
    assert latest_checkpoint(finished_run) == finished_run / "80"
    assert (victim / "keep.txt").read_text() == "mine"


def test_a_refused_new_run_leaves_no_directory_behind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    make_dataset("tiny-v0", "Pendulum-v1", data, steps=200)
    run = tmp_path / "runs" / "bc"
    dataset = [f"dataset.data_path={data}", "dataset.dataset_id=tiny-v0"]
    assert _main("train", "bc", "--env", "tiny-v0", "--model-dir", str(run), "--set", *dataset,
                 "agent.batch_size=500") == 2  # fmt: skip
    assert "larger than the dataset (200 items)" in one_error_line(capsys)
    assert not run.exists()
    nowhere = tmp_path / "no-data"
    assert _main("train", "bc", "--env", "tiny-v0", "--model-dir", str(run), "--set",
                 f"dataset.data_path={nowhere}") == 2  # fmt: skip
    assert "not found locally" in one_error_line(capsys)
    assert not run.exists()
    assert not nowhere.exists()


def test_overwrite_with_a_dataset_of_another_env_is_refused_before_the_old_run_goes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pendulum's dataset evaluated in MountainCarContinuous (3 against 2 observation components) used to
    remove the old run, then fail at the first update with a traceback."""
    data = tmp_path / "data"
    make_dataset("tiny-v0", "Pendulum-v1", data, steps=200)
    run = tmp_path / "bc"
    flags = ["--model-dir", str(run), "--set", f"dataset.data_path={data}", "dataset.dataset_id=tiny-v0",
             "trainer.max_opts=4", "trainer.eval_interval=4", "trainer.save_interval=4",
             "evaluator.n_episodes=1", "agent.batch_size=16"]  # fmt: skip
    assert _main("train", "bc", "--env", "tiny-v0", *flags) == 0
    before = snapshot(run)
    capsys.readouterr()
    assert (
        _main("train", "bc", "--env", "tiny-v0", "--overwrite", *flags, "env.name=MountainCarContinuous-v0")
        == 2
    )
    assert (
        "Minari dataset tiny-v0 holds transitions of another env than the evaluation env: observations of "
        "shape (3,), the env's are (2,)" in one_error_line(capsys)
    )
    assert snapshot(run) == before
    assert _main("train", "bc", "--env", "tiny-v0", "--overwrite", *flags, "env.name=CartPole-v1") == 2
    assert "observations of shape (3,), the env's are (4,)" in one_error_line(capsys)


def test_a_seed_beyond_numpys_range_is_refused_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert (
        _main("train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(run), "--seed", str(2**32))
        == 2
    )
    assert "'seed' must be <= 4294967295: 4294967296" in one_error_line(capsys)
    assert not run.exists()


def test_resuming_with_another_thread_count_says_it_is_not_bit_for_bit(
    finished_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        _main("resume", "--model-dir", str(finished_run), "--set", "trainer.max_opts=60", "torch_threads=2")
        == 0
    )
    assert "warning: torch_threads 1 -> 2: the run continues, but not bit for bit" in capsys.readouterr().err


def test_a_full_disk_during_a_save_is_one_line_naming_the_directory(
    finished_run: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def full(path: Path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    saved = snapshot(finished_run)
    monkeypatch.setattr("border_py.checkpoint._fsync", full)
    assert _main("resume", "--model-dir", str(finished_run), "--set", "trainer.max_opts=60") == 2
    line = one_error_line(capsys)
    assert "could not save" in line
    assert "No space left on device" in line
    assert "earlier saves are intact" in line
    now = snapshot(finished_run)
    assert {k: v for k, v in now.items() if k.split("/")[0] in ("best", "20", "40")} == {
        k: v for k, v in saved.items() if k.split("/")[0] in ("best", "20", "40")
    }


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("opt_steps", "1e400", "books.opt_steps must be a whole number in [0, 2**63 - 1], got inf"),
        ("best_score", "NaN", "books.best_score is nan, but the best evaluation scored"),
    ],
)
def test_a_damaged_trainer_state_is_blamed_on_its_file_not_on_the_config(
    finished_run: Path, field: str, value: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    state = finished_run / "40" / "trainer_state.json"
    state.write_text(re.sub(rf'"{field}": *[-0-9.e]+', f'"{field}": {value}', state.read_text(), count=1))
    before = snapshot(finished_run)
    assert _main("resume", "--model-dir", str(finished_run), "--set", "trainer.max_opts=60") == 2
    line = one_error_line(capsys)
    assert line.startswith(f"error: {state}: "), line  # not "config.yaml with --set: trainer: ..."
    assert says in line
    assert snapshot(finished_run) == before


@pytest.mark.parametrize(
    ("artifacts", "match"),
    [
        (
            {"best2": "best"},
            r"\S*/run/best holds links \(.*best/id_rsa\): an artifact upload follows no link",
        ),
        ({"../../../escape": "clean"}, r"the artifact name '\.\./\.\./\.\./escape' leads out"),
    ],
)
def test_upload_refuses_an_artifact_holding_a_link_or_named_outside(
    artifacts: dict[str, str], match: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 53: ``best/x -> ~/.ssh/id_rsa`` was uploaded as the artifact ``best/x``; a spill line naming a
    folder holding a link, or an artifact name with ``..``, is refused before anything is sent."""
    run = tmp_path / "run"
    (run / "best").mkdir(parents=True)
    (run / "clean").mkdir()
    (tmp_path / "secret").write_text("key")
    (run / "best" / "id_rsa").symlink_to(tmp_path / "secret")
    (run / "mlflow_run_id").write_text("r1")
    spill = run / "mlflow_unsent.jsonl"
    spill.write_text(json.dumps({"run_id": "r1", "artifacts": artifacts}) + "\n")
    assert main(["upload", "--model-dir", str(run)]) == 2
    err = capsys.readouterr().err
    assert re.search(rf"mlflow_unsent.jsonl line 1: {match}", err), err
    assert spill.is_file()


def test_a_live_upload_refuses_links_without_calling_mlflow(tmp_path: Path) -> None:
    from border_py.recorders.mlflow_run import MlflowRun, UnsafeArtifactError

    calls: list[object] = []

    class Client:
        def log_artifacts(self, *args: object) -> None:
            calls.append(args)

    (tmp_path / "best" / "deep").mkdir(parents=True)
    (tmp_path / "best" / "deep" / "x").symlink_to("/etc/hostname")
    run = MlflowRun(Client(), "r1", root=tmp_path)
    with pytest.raises(UnsafeArtifactError, match=r"best holds links \(.*best/deep/x\)"):
        run.send({"artifacts": {"best": "best"}})
    assert calls == []


@pytest.mark.parametrize(
    ("entry", "match"),
    [
        (
            {"run_id": "someone-else", "metrics": []},
            r"names the MLflow run 'someone-else', not this run's \('r1'\)",
        ),
        ({"run_id": "r1", "artifacts": {"x": "/etc"}}, r"the artifact '/etc' is not inside"),
        ({"run_id": "r1", "artifacts": {"x": "../outside"}}, r"the artifact '../outside' is not inside"),
        ({"run_id": "r1", "artifacts": {"best": "best"}}, r"the artifact 'best' is gone from"),
        (
            {"run_id": "r1", "metrics": [["eval/return", 1.0, 5]]},  # "not enough values to unpack" before
            r"metrics\[0\] must be \[key, value, timestamp, step\], got \['eval/return', 1.0, 5\]",
        ),
        ({"run_id": "r1", "status": "DELETED"}, r"status must be one of .*got 'DELETED'"),
        # Found by tests/fuzz: a TypeError traceback from pathlib.
        ({"run_id": "r1", "files": {"config.yaml": -1}}, r"files must map each file to an artifact folder"),
    ],
)
def test_upload_sends_only_this_runs_entries_and_files_inside_it_checking_every_line_first(
    entry: dict[str, object], match: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A spill file is data: it picks neither the MLflow run records go to nor the files sent. A refused
    line is found before anything is sent (no server is contacted) and the file stays."""
    run = tmp_path / "run"
    (tmp_path / "outside").mkdir()
    run.mkdir()
    (run / "mlflow_run_id").write_text("r1")
    spill = run / "mlflow_unsent.jsonl"
    spill.write_text(json.dumps({"run_id": "r1", "status": "KILLED"}) + "\n" + json.dumps(entry) + "\n")
    assert main(["upload", "--model-dir", str(run)]) == 2
    err = capsys.readouterr().err
    assert re.search(rf"mlflow_unsent.jsonl line 2: {match}", err), err
    assert spill.is_file()


def test_the_note_on_what_waits_counts_a_spill_file_of_any_shape(tmp_path: Path) -> None:
    """Found by tests/fuzz: ``"metrics": -1`` in a spill line was a TypeError traceback after every train
    and resume in that directory."""
    from border_py.run.recording import unsent_note
    from border_py.run.rundir import RunDir

    run = tmp_path / "run"
    run.mkdir()
    lines = [{"run_id": None, "metrics": -1}, {"run_id": None, "metrics": [["a", 1.0, 5, 1]]}, [1], "x"]
    (run / "mlflow_unsent.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines) + "{\n")
    note = unsent_note(RunDir(run))
    assert note is not None
    assert "did not get 4 entries of this run (1 metric values" in note
