"""Tracking never costs a run, against a real ``mlflow server`` killed with SIGKILL: training goes on to
its end while the server is away, and the records it missed arrive when it is back (no gap, no repeat);
when it never comes back, they wait in the run directory for ``border-py upload``; a server that is down
at the start is a one-line refusal before anything is written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from border_py.run import TrainOptions, train
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
    own_mlflow_server: MlflowServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
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
