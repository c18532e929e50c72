"""MLflow runs of the CLI against a real ``mlflow server``: meaningful names and tags, TensorBoard files
beside the run (so ``border_py.plot`` draws it), ``config.yaml`` as an artifact, what a resume changed as
tags, and an honest status: KILLED after a signal (the interrupt's checkpoint uploaded), FAILED after an
error."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest
from mlflow.tracking import MlflowClient

from border_py import TrainingInterrupted
from border_py.plot import group_runs, plot, read_curve
from border_py.run import TrainOptions, train
from border_py.run.cli import main
from border_py.run.rundir import MLFLOW_RUN_FILE
from border_py.trainer.result import Evaluation
from tests.run.tiny import tiny_config
from tests.zoo_runs import zoo_experiment

pytestmark = pytest.mark.smoke


@pytest.fixture
def tracking(mlflow_server: str, monkeypatch: pytest.MonkeyPatch) -> MlflowClient:
    monkeypatch.setenv("MLFLOW_TRACKING_URI", mlflow_server)
    monkeypatch.delenv("MLFLOW_EXPERIMENT_NAME", raising=False)
    return MlflowClient(tracking_uri=mlflow_server)


def _run_id(model_dir: Path) -> str:
    return (model_dir / MLFLOW_RUN_FILE).read_text().strip()


def test_a_cli_run_is_named_tagged_kept_in_tensorboard_and_shows_what_a_resume_changed(
    tracking: MlflowClient, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    flags = ["--model-dir", str(run), "--recorder", "mlflow", "--no-progress"]
    names = ["--run-name", "first-try", "--tag", "team=rl", "purpose=test"]
    assert main(["train", "--config", str(tiny_config(tmp_path)), *flags, *names]) == 0
    run_id = _run_id(run)
    found = tracking.get_run(run_id)
    assert found.info.run_name == "first-try"
    assert found.info.status == "FINISHED"
    assert tracking.get_experiment(found.info.experiment_id).name == "dqn-CartPole-v1"
    assert {k: found.data.tags[k] for k in ("algo", "env", "seed", "team", "purpose")} == {
        "algo": "dqn", "env": "CartPole-v1", "seed": "0", "team": "rl", "purpose": "test",
    }  # fmt: skip
    assert {a.path for a in tracking.list_artifacts(run_id)} >= {"config.yaml", "best", "checkpoints"}
    assert len(read_curve(run, "eval/episode_return").opt_steps) == 2  # TensorBoard beside MLflow
    figure = plot(group_runs([run], "eval/episode_return"), "eval/episode_return", tmp_path / "curve.png")
    assert figure.stat().st_size > 10_000  # border_py.plot draws the MLflow run
    assert main(["resume", *flags, "--set", "trainer.max_opts=60"]) == 0
    assert _run_id(run) == run_id
    resumed = tracking.get_run(run_id)
    assert resumed.data.tags["resumed.trainer.max_opts"] == "40 -> 60"
    assert resumed.info.status == "FINISHED"


def _signal(signum: int) -> Any:
    def send(evaluation: Evaluation) -> bool:
        os.kill(os.getpid(), signum)  # as Ctrl-C or a kill: the trainer saves a checkpoint and stops
        return False

    return send


def _fail(evaluation: Evaluation) -> bool:
    raise RuntimeError("the evaluation's observer broke")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_run_ends_killed_with_its_checkpoint_uploaded_and_a_failed_one_failed(
    signum: int, tracking: MlflowClient, tmp_path: Path
) -> None:
    trainer = {"max_opts": 200, "warmup_period": 100, "eval_interval": 20, "save_interval": 100}
    changes: dict[str, Any] = {
        "trainer": trainer,
        "replay_buffer": {"capacity": 1000},
        "evaluator": {"n_episodes": 1},
    }
    killed = zoo_experiment("dqn", "CartPole-v1", tmp_path / "killed", **changes)
    with pytest.raises(TrainingInterrupted):
        train(
            killed, TrainOptions(recorder="mlflow", progress=False, quiet=True, observers=(_signal(signum),))
        )
    run_id = _run_id(tmp_path / "killed")
    assert tracking.get_run(run_id).info.status == "KILLED"
    uploaded = {a.path for a in tracking.list_artifacts(run_id, "checkpoints")}
    assert uploaded == {"checkpoints/20"}  # the checkpoint the interrupt saved
    failed = zoo_experiment("dqn", "CartPole-v1", tmp_path / "failed", **changes)
    with pytest.raises(RuntimeError, match="observer broke"):
        train(failed, TrainOptions(recorder="mlflow", progress=False, quiet=True, observers=(_fail,)))
    assert tracking.get_run(_run_id(tmp_path / "failed")).info.status == "FAILED"
