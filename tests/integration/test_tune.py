"""``border-py tune`` against a real SQLite study: trials are pruned, a study killed with SIGKILL resumes
without a lost or repeated trial (the killed one is retried with its own parameters), a trial stopped by
Ctrl-C or SIGTERM is retried from its checkpoint, no trial leaves a lock or a half-written run directory,
and the best trial's YAML trains."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from border_py.checkpoint import recover_model_dir
from border_py.lock import model_dir_lock
from border_py.run.cli import main

optuna = pytest.importorskip("optuna", reason="the tune extra is not installed")

BUDGET = ["trainer.max_opts=800", "trainer.eval_interval=100", "trainer.save_interval=200",
          "trainer.warmup_period=200", "evaluator.n_episodes=3"]  # fmt: skip


def _command(storage: str, out: Path) -> list[str]:
    return [
        sys.executable, "-m", "border_py", "tune", "dqn", "--env", "CartPole-v1", "--trials", "6",
        "--storage", storage, "--out", str(out), "--sampler-seed", "0", "--startup-trials", "2",
        "--heartbeat", "1", "--no-progress", "--set", *BUDGET,
    ]  # fmt: skip


def _load(storage: str) -> Any:
    return optuna.load_study(study_name="dqn-CartPole-v1", storage=storage)


def _kill_mid_trial(command: list[str], storage: str, tmp_path: Path) -> int:
    """Starts the study and kills it with SIGKILL while its third trial or a later one runs; returns the
    killed trial's number."""
    env = {**os.environ, "PYTHONPATH": str(Path.cwd())}
    out = Path(command[command.index("--out") + 1])
    silent = subprocess.DEVNULL
    proc = subprocess.Popen(
        command, cwd=tmp_path, env=env, start_new_session=True, stdout=silent, stderr=silent
    )

    def third_trial_running(trials: list[Any]) -> Any:
        running = [t for t in trials if t.state == optuna.trial.TrialState.RUNNING and t.number >= 2]
        if running and "model_dir" in running[0].user_attrs:
            return running[0] if (out / running[0].user_attrs["model_dir"]).exists() else None  # under --out
        return None

    try:
        trial = _wait_for(storage, third_trial_running, "the study never reached a third trial")
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return int(trial.number)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.mark.smoke
def test_a_killed_study_resumes_without_a_lost_or_repeated_trial_and_its_best_yaml_trains(
    tmp_path: Path,
) -> None:
    storage = f"sqlite:///{tmp_path / 'tune.db'}"
    out = tmp_path / "trials"
    killed = _kill_mid_trial(_command(storage, out), storage, tmp_path)
    before = {t.number: t for t in _load(storage).trials if t.state.is_finished()}
    time.sleep(2.5)  # the killed trial's heartbeat goes stale (twice --heartbeat)
    env = {**os.environ, "PYTHONPATH": str(Path.cwd())}
    done = subprocess.run(
        _command(storage, out), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    trials = _load(storage).trials
    states = optuna.trial.TrialState
    finished = [t for t in trials if t.state in (states.COMPLETE, states.PRUNED)]
    assert len(finished) == 6  # across both processes
    assert any(t.state == states.PRUNED for t in finished)
    for number, trial in before.items():  # nothing that had finished was run again
        assert trials[number].state == trial.state
        assert trials[number].value == trial.value
    failed = trials[killed]
    assert failed.state == states.FAIL
    retries = [t for t in trials if t.number > killed and t.params == failed.params]
    assert len(retries) == 1  # retried, once
    assert retries[0].state in (states.COMPLETE, states.PRUNED)
    assert retries[0].user_attrs["model_dir"] == failed.user_attrs["model_dir"]  # in its own run directory
    for run_dir in out.glob("trial_*"):  # no lock held, no half-written save left
        with model_dir_lock(run_dir):
            assert recover_model_dir(run_dir) == []
    recorded = _load(storage).user_attrs
    assert recorded["command"].startswith("border-py tune dqn --env CartPole-v1 --trials 6")
    assert recorded["base_config"]["agent"]["type"] == "dqn"
    assert recorded["base_config"]["trainer"]["max_opts"] == 800  # the --set budget is part of the base
    best = out / "best.yaml"
    assert f"--config {best}" in done.stdout
    assert main(["train", "--config", str(best), "--model-dir", str(tmp_path / "best"), "--no-progress",
                 "--set", "trainer.max_opts=50", "trainer.eval_interval=50"]) == 0  # fmt: skip


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_trial_stopped_by_ctrl_c_or_sigterm_is_retried_from_its_checkpoint(
    sig: signal.Signals, tmp_path: Path
) -> None:
    """A signal while a trial trains saves its checkpoint and queues its retry: the same command then
    resumes that trial in its own directory (its evaluations go on after the interrupted step) instead of
    sampling a new one; stderr says so in one line, with no traceback."""
    storage = f"sqlite:///{tmp_path / 'tune.db'}"
    out = tmp_path / "trials"
    command = _command(storage, out)
    command[command.index("--trials") + 1] = "1"
    command += ["trainer.max_opts=3000"]  # after BUDGET's: long enough to be caught training
    env = {**os.environ, "PYTHONPATH": str(Path.cwd())}
    with (tmp_path / "stderr").open("w+") as err:
        proc = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=err)
        try:
            evaluated = "the first trial never reported an evaluation"
            _wait_for(storage, lambda trials: (trials and trials[0].intermediate_values) or None, evaluated)
            proc.send_signal(sig)
            assert proc.wait(timeout=120) == 128 + sig
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        err.seek(0)
        lines = err.read().splitlines()
    trials = _load(storage).trials
    states = optuna.trial.TrialState
    assert [t.state for t in trials] == [states.FAIL, states.WAITING]
    said = [line for line in lines if line.startswith("trial 0:")]
    assert len(said) == 1, lines
    assert f"interrupted by {sig.name}" in said[0]
    assert "retried from there: run the same border-py tune command" in said[0]
    assert not any("Traceback" in line or "failed with" in line for line in lines), lines
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    failed, retry = _load(storage).trials
    assert retry.state == states.COMPLETE
    assert retry.params == failed.params
    assert retry.user_attrs["model_dir"] == failed.user_attrs["model_dir"] == "trial_0000"
    assert min(retry.intermediate_values) > max(failed.intermediate_values)  # resumed, not restarted
    assert sorted(p.name for p in out.glob("trial_*")) == ["trial_0000"]


def _wait_for(storage: str, found: Callable[[list[Any]], Any], what: str) -> Any:
    """Polls the study's trials until ``found`` returns something (returned); fails with ``what`` after two
    minutes."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        time.sleep(0.2)
        try:
            trials = _load(storage).trials
        except KeyError:  # the study is not created yet
            continue
        if (hit := found(trials)) is not None:
            return hit
    raise AssertionError(what)


def _setup(tmp_path: Path) -> Any:
    from border_py.run import zoo
    from border_py.run.tune import TuneSetup

    base = zoo.entry("dqn", "CartPole-v1").data
    return TuneSetup(base=base, source="zoo", space=zoo.search_space("dqn"), out=tmp_path / "trials")


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"env.name": "evil:Env-v0"}, r"the parameters \['env.name'\] are not in the search space"),
        ({"agent.lr": 5.0}, r"agent.lr = 5.0 is not in the search space's"),
        ({"agent.hidden": "[100000000]"}, r"agent.hidden = \[100000000\] is not in the search space's"),
    ],
)
def test_a_poisoned_study_never_writes_its_parameters_into_best_yaml(
    params: dict[str, Any], match: str, tmp_path: Path
) -> None:
    """A study's storage is data: a COMPLETE trial planted with another field (an import path) or a value
    its distribution cannot draw is refused, and best.yaml is not written."""
    from border_py.config import ConfigError
    from border_py.run.tune import write_best

    study = optuna.create_study(direction="maximize", study_name="s")
    planted = optuna.trial.create_trial(
        params=params,
        distributions={k: optuna.distributions.CategoricalDistribution([v]) for k, v in params.items()},
        value=500.0,
    )
    study.add_trial(planted)
    setup = _setup(tmp_path)
    setup.out.mkdir()
    with pytest.raises(ConfigError, match=match):
        write_best(study, setup)
    assert not (setup.out / "best.yaml").exists()


def test_a_trial_trains_only_in_its_own_directory_under_out(tmp_path: Path) -> None:
    """A retried trial's directory comes from the study; one outside ``--out`` (where tune would train with
    --overwrite, deleting another directory's runs) is refused."""
    from types import SimpleNamespace

    from border_py.config import ConfigError
    from border_py.run.tune import _trial_dir

    setup = _setup(tmp_path)

    def trial(named: str | None) -> Any:
        attrs = {} if named is None else {"model_dir": named}
        return SimpleNamespace(number=3, user_attrs=attrs, set_user_attr=attrs.__setitem__)

    fresh = trial(None)
    assert _trial_dir(setup, fresh) == (setup.out / "trial_0003", False)
    assert fresh.user_attrs == {"model_dir": "trial_0003"}  # the name, never a path
    assert _trial_dir(setup, trial("trial_0003")) == (setup.out / "trial_0003", True)
    assert _trial_dir(setup, trial(str(setup.out / "trial_0003"))) == (setup.out / "trial_0003", True)
    for hostile in (str(tmp_path / "victim"), "/", "../trial_0003", str(tmp_path / "x" / "trial_0003")):
        with pytest.raises(ConfigError, match="the study names the run directory"):
            _trial_dir(setup, trial(hostile))
