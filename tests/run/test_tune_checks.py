"""``border-py tune`` refuses what ``train`` refuses before it makes a study, and stops a study whose trials
fail alike instead of failing every one of them (issue 51: 1,972 failed trials, each a traceback, in ten
minutes)."""

from __future__ import annotations

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
    assert "fewer than trainer.eval_interval (1000)" in line  # train's own message
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
