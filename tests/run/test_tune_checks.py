"""``border-py tune`` refuses what ``train`` refuses before it makes a study, and stops a study whose trials
fail alike instead of failing every one of them (issue 51: 1,972 failed trials, each a traceback, in ten
minutes)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from border_py.config import ConfigError
from border_py.run import zoo
from border_py.run.cli import main
from border_py.run.tune import RepeatedFailureError, TuneSetup, _objective
from tests.run.test_reliability import one_error_line

optuna = pytest.importorskip("optuna", reason="the tune extra is not installed")
pytestmark = pytest.mark.integration  # Optuna: the integration tier


def test_a_budget_train_refuses_is_refused_before_the_study(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    storage = tmp_path / "tune.db"
    argv = ["tune", "dqn", "--env", "CartPole-v1", "--trials", "3", "--storage", f"sqlite:///{storage}",
            "--out", str(tmp_path / "trials"), "--no-progress", "--set", "trainer.max_opts=500"]  # fmt: skip
    assert main(argv) == 2
    line = one_error_line(capsys)
    assert "the budget allows at most 500 opt steps" in line
    assert "fewer than trainer.eval_interval asks (1000 opt steps of 2 env steps" in line  # train's message
    assert not storage.exists()  # no study made, no trial run
    assert not (tmp_path / "trials").exists()


def test_two_trials_failing_alike_stop_the_study(tmp_path: Path) -> None:
    base = zoo.entry("dqn", "CartPole-v1").data
    # Every sampled learning rate is refused when the trial's experiment is built (the number differs).
    setup = TuneSetup(base=base, source="zoo dqn", space={"agent.lr": {"float": [-2.0, -1.0]}}, out=tmp_path)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    with pytest.raises(RepeatedFailureError, match=r"trials 0 and 1 failed alike: .*'lr' must be > 0"):
        study.optimize(_objective(setup, []), n_trials=50, catch=(ConfigError, ValueError, RuntimeError))
    assert [t.state for t in study.trials] == [optuna.trial.TrialState.FAIL] * 2


@pytest.mark.filterwarnings("ignore::optuna.exceptions.ExperimentalWarning")  # BruteForceSampler
def test_different_failures_do_not_stop_the_study(tmp_path: Path) -> None:
    base = zoo.entry("dqn", "CartPole-v1").data
    space = {"agent.lr": {"choice": [-1.0, "bad"]}}  # a value refused, then a type refused: two reasons
    setup = TuneSetup(base=base, source="zoo dqn", space=space, out=tmp_path)
    study = optuna.create_study(sampler=optuna.samplers.BruteForceSampler())
    study.optimize(_objective(setup, []), n_trials=2, catch=(ConfigError, ValueError, RuntimeError))
    assert [t.state for t in study.trials] == [optuna.trial.TrialState.FAIL] * 2


BUDGET = ["trainer.max_opts=100", "trainer.eval_interval=100", "trainer.save_interval=100",
          "trainer.warmup_period=100", "evaluator.n_episodes=1"]  # fmt: skip


@pytest.mark.parametrize("planted", ["link", "foreign config.yaml"])
def test_a_trial_directory_tune_must_not_train_in_is_refused_in_one_line(
    planted: str, tmp_path: Path
) -> None:
    """Issue 53: ``<out>/trial_NNNN -> ../victim`` had a trial train through the link (``--overwrite``:
    the victim's files replaced or deleted, exit 0); a trial directory holding what no run wrote was
    refused as Optuna's 27-line traceback before the error line."""
    out, victim = tmp_path / "out", tmp_path / "victim"
    out.mkdir()
    victim.mkdir()
    (victim / "config.yaml").write_text("mine: true\n")
    if planted == "link":
        (out / "trial_0000").symlink_to(victim, target_is_directory=True)
        expected = f"error: trial 0: its run directory {out / 'trial_0000'} is a symbolic link"
    else:
        victim = victim.rename(out / "trial_0000")
        expected = "error: --overwrite removes only what a border_py run wrote, and "
    command = [sys.executable, "-m", "border_py", "tune", "dqn", "--env", "CartPole-v1", "--trials", "1",
               "--storage", f"sqlite:///{tmp_path / 'tune.db'}", "--out", str(out), "--sampler-seed", "0",
               "--no-progress", "--set", *BUDGET]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, check=False, timeout=300)
    said = [line for line in done.stderr.splitlines() if not line.startswith("[I ")]  # Optuna's info
    assert done.returncode == 2, done.stderr
    assert len(said) == 1, done.stderr
    assert said[0].startswith(expected)
    assert sorted(p.name for p in victim.iterdir()) == ["config.yaml"]  # nothing written, not even .lock
    assert (victim / "config.yaml").read_text() == "mine: true\n"


def test_a_retried_trial_whose_directory_is_a_link_is_refused(tmp_path: Path) -> None:
    """A stale trial's retry names its directory; a link planted there is refused, not trained through."""
    from types import SimpleNamespace

    from border_py.run.tune import _trial_dir

    setup = TuneSetup(base={}, source="zoo", space={}, out=tmp_path / "out")
    setup.out.mkdir()
    (tmp_path / "victim").mkdir()
    (setup.out / "trial_0002").symlink_to(tmp_path / "victim", target_is_directory=True)
    retry = SimpleNamespace(number=7, user_attrs={"model_dir": "trial_0002"})
    with pytest.raises(PermissionError, match=r"trial 7: its run directory .*trial_0002 is a symbolic link"):
        _trial_dir(setup, retry)
    (setup.out / "trial_0002").unlink()
    assert _trial_dir(setup, retry) == (setup.out / "trial_0002", True)


@pytest.mark.parametrize("stored", ["[64, ", "[" * 5000])
def test_a_damaged_list_in_a_study_is_refused_naming_the_trial_and_key(stored: str) -> None:
    """Issue 53 (found by tests/fuzz): a stored list that is not JSON said only 'Expecting value: line 1
    column 5', and one nested deeper than json reads was a RecursionError traceback."""
    from border_py.run.tune import decode

    with pytest.raises(ConfigError, match=r"^study, best trial 3: agent.hidden: '\[.* is not a list"):
        decode(stored, "study, best trial 3: agent.hidden")
