"""Tracking never costs a run, against a real ``mlflow server`` killed with SIGKILL: training goes on to
its end while the server is away, and the records it missed arrive when it is back (no gap, no repeat);
when it never comes back, they wait in the run directory for ``border-py upload``, and the run says so at
its end; a server that is down at the start is a one-line refusal before anything is written, and one gone
between that check and the MLflow run's making costs nothing either: the run is made on upload."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from border_py.run import TrainOptions, recording, train
from border_py.run.cli import main
from border_py.run.recording import UNSENT_FILE
from border_py.run.rundir import MLFLOW_RUN_FILE
from border_py.trainer.result import Evaluation
from tests.integration.conftest import MlflowServer
from tests.run.tiny import tiny_config
from tests.zoo_runs import zoo_experiment

pytestmark = pytest.mark.smoke

TRAINER = {
    "max_opts": 400,
    "warmup_period": 100,
    "eval_interval": 100,
    "record_interval": 10,
    "save_interval": 400,
}


def _experiment(model_dir: Path) -> Any:
    changes: dict[str, Any] = {
        "trainer": TRAINER,
        "replay_buffer": {"capacity": 2000},
        "evaluator": {"n_episodes": 1},
    }
    return zoo_experiment("dqn", "CartPole-v1", model_dir, **changes)


def _steps(server: MlflowServer, model_dir: Path) -> tuple[list[int], str]:
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=server.uri)
    run_id = (model_dir / MLFLOW_RUN_FILE).read_text().strip()
    steps = sorted(m.step for m in client.get_metric_history(run_id, "train/loss"))
    return steps, client.get_run(run_id).info.status


def test_a_server_killed_mid_run_costs_nothing_and_gets_what_it_missed_when_back(
    own_mlflow_server: MlflowServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("MLFLOW_TRACKING_URI", own_mlflow_server.uri)

    def outage(evaluation: Evaluation) -> bool:
        if evaluation.opt_steps == 100:
            own_mlflow_server.kill()
        elif evaluation.opt_steps == 300:
            own_mlflow_server.start()  # the same port and store
        return False

    result = train(
        _experiment(tmp_path / "run"), TrainOptions(recorder="mlflow", progress=False, observers=(outage,))
    )
    assert result.opt_steps == 400
    steps, status = _steps(own_mlflow_server, tmp_path / "run")
    assert steps == list(range(10, 401, 10))  # no gap, no repeat
    assert status == "FINISHED"
    err = capsys.readouterr().err
    assert err.count("the tracking server is unreachable") == 1
    assert "the tracking server is back" in err
    assert not (tmp_path / "run" / UNSENT_FILE).exists()


def test_a_server_that_never_comes_back_leaves_the_records_for_one_upload_command(
    own_mlflow_server: MlflowServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("MLFLOW_TRACKING_URI", own_mlflow_server.uri)

    def outage(evaluation: Evaluation) -> bool:
        if evaluation.opt_steps == 200:
            own_mlflow_server.kill()
        return False

    run = tmp_path / "run"
    result = train(_experiment(run), TrainOptions(recorder="mlflow", progress=False, observers=(outage,)))
    assert result.opt_steps == 400
    assert (run / "400" / "meta.yaml").is_file()  # every save is on disk
    unsent = (run / UNSENT_FILE).read_text()
    assert '"status": "FINISHED"' in unsent
    assert '"artifacts"' in unsent
    entries = [json.loads(line) for line in unsent.splitlines()]
    values = sum(len(entry.get("metrics", [])) for entry in entries)
    err = capsys.readouterr().err
    assert f"else left in {run / UNSENT_FILE}" in err  # said when it went away
    assert err.splitlines()[-1] == (  # and at the end: what waits, where, and the command that sends it
        f"warning: the MLflow server did not get {len(entries)} entries of this run ({values} metric "
        f"values): they wait in {run / UNSENT_FILE}; send them with: border-py upload --model-dir {run}"
    )
    own_mlflow_server.start()
    assert main(["upload", "--model-dir", str(run)]) == 0
    steps, status = _steps(own_mlflow_server, run)
    assert steps == list(range(10, 401, 10))
    assert status == "FINISHED"
    assert not (run / UNSENT_FILE).exists()


def test_a_server_down_at_the_start_is_one_line_before_anything_is_written(
    own_mlflow_server: MlflowServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("MLFLOW_TRACKING_URI", own_mlflow_server.uri)
    own_mlflow_server.kill()
    run = tmp_path / "run"
    argv = ["train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(run), "--recorder", "mlflow"]
    assert main([*argv, "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert (
        f"the MLflow tracking server {own_mlflow_server.uri} (MLFLOW_TRACKING_URI) is unreachable" in err[0]
    )
    assert not run.exists()


def test_a_server_gone_before_the_mlflow_run_is_made_costs_nothing_and_the_run_is_made_on_upload(
    own_mlflow_server: MlflowServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from mlflow.tracking import MlflowClient

    monkeypatch.setenv("MLFLOW_TRACKING_URI", own_mlflow_server.uri)
    monkeypatch.delenv("MLFLOW_EXPERIMENT_NAME", raising=False)
    check = recording.check_tracking_server

    def answered_then_died(timeout: float = 5.0) -> None:
        check(timeout)
        own_mlflow_server.kill()  # after the CLI's health check, before the MLflow run is made

    monkeypatch.setattr(recording, "check_tracking_server", answered_then_died)
    run = tmp_path / "run"
    flags = ["--model-dir", str(run), "--recorder", "mlflow", "--no-progress", "--run-name", "late"]
    assert main(["train", "--config", str(tiny_config(tmp_path)), *flags, "--tag", "team=rl"]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "the MLflow run itself is made on upload" in err.splitlines()[-1]
    assert (run / "40" / "meta.yaml").is_file()  # trained to its end
    assert not (run / MLFLOW_RUN_FILE).exists()
    monkeypatch.setattr(recording, "check_tracking_server", check)
    own_mlflow_server.start()
    assert main(["upload", "--model-dir", str(run)]) == 0
    assert not (run / UNSENT_FILE).exists()
    client = MlflowClient(tracking_uri=own_mlflow_server.uri)
    made = client.get_run((run / MLFLOW_RUN_FILE).read_text().strip())
    assert (made.info.run_name, made.info.status) == ("late", "FINISHED")
    assert client.get_experiment(made.info.experiment_id).name == "dqn-CartPole-v1"
    assert {k: made.data.tags[k] for k in ("algo", "env", "seed", "team")} == {
        "algo": "dqn", "env": "CartPole-v1", "seed": "0", "team": "rl",
    }  # fmt: skip
    assert made.data.params["trainer.max_opts"] == "40"
    steps = sorted(m.step for m in client.get_metric_history(made.info.run_id, "train/loss"))
    assert steps == [10, 20, 30, 40]
    assert {a.path for a in client.list_artifacts(made.info.run_id)} >= {"config.yaml", "best", "checkpoints"}
