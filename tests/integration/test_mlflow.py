"""MlflowRecorder against a real MLflow server: params, the metric history with its steps, tags, artifacts,
a resumed run that continues the same MLflow run with no gap and no repeat, and an example's --recorder."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import attrs
import pytest
from mlflow.tracking import MlflowClient

from border_py import BufferedRecorder, MlflowRecorder, Record, TrainerConfig, TrainingInterrupted, to_dict
from border_py.base.replay_buffer import ReplayBuffer
from border_py.run.cli import main
from border_py.run.rundir import MLFLOW_RUN_FILE
from border_py.testing import FakeAgent, FakeItem, ScriptedEvaluator, counting_trainer
from tests.run.tiny import tiny_config


def _history(client: MlflowClient, run_id: str, key: str) -> list[tuple[int, float]]:
    return sorted((m.step, m.value) for m in client.get_metric_history(run_id, key))


def test_a_training_run_logs_params_batched_metrics_tags_and_artifacts(
    mlflow_server: str, tmp_path: Path
) -> None:
    config = TrainerConfig(
        max_opts=9, eval_interval=3, record_interval=3, save_interval=9, model_dir=str(tmp_path)
    )
    recorder = MlflowRecorder(
        experiment_name="border_py-test", tags={"agent": "Fake", "env": "Counting", "seed": "0"},
        tracking_uri=mlflow_server,
    )  # fmt: skip
    recorder.log_params({"trainer": to_dict(config), "agent": {"hidden": [64, 64]}})
    buffered = BufferedRecorder()
    counting_trainer(config).train(FakeAgent(), recorder, ScriptedEvaluator([1.0, 3.0, 2.0]))
    counting_trainer(attrs.evolve(config, model_dir=None, save_interval=None)).train(
        FakeAgent(), buffered, ScriptedEvaluator([1.0, 3.0, 2.0])
    )
    recorder.log_artifacts(tmp_path / "best", "best")
    recorder.close()

    client = MlflowClient(tracking_uri=mlflow_server)
    run_id = recorder.run_id
    assert run_id is not None  # the server answered: the run was made at once
    run = client.get_run(run_id)
    assert run.data.params["trainer.max_opts"] == "9"
    assert run.data.params["agent.hidden"] == "[64, 64]"
    assert {k: run.data.tags[k] for k in ("agent", "env", "seed")} == {
        "agent": "Fake",
        "env": "Counting",
        "seed": "0",
    }
    # The same records at the same steps as an in-memory recorder of the same run.
    assert _history(client, run_id, "train/loss") == buffered.scalars("train/loss")
    assert _history(client, run_id, "eval_reward") == buffered.scalars("eval_reward")
    assert [s for s, _ in _history(client, run_id, "env_steps")] == [3, 6, 9]
    assert sorted(a.path for a in client.list_artifacts(run_id, "best")) == [
        "best/fake_agent.json", "best/meta.yaml",
    ]  # fmt: skip
    assert run.info.status == "FINISHED"


class _SignallingAgent(FakeAgent):
    def opt(self, buffer: ReplayBuffer[list[FakeItem]]) -> Record | None:
        record = super().opt(buffer)
        if self.n_opts == 5:
            os.kill(os.getpid(), signal.SIGINT)
        return record


def test_a_resumed_run_continues_the_same_mlflow_run_without_gap_or_repeat(
    mlflow_server: str, tmp_path: Path
) -> None:
    config = TrainerConfig(
        max_opts=12, record_interval=2, save_interval=4, model_dir=str(tmp_path), checkpoint_buffer=True
    )
    first = MlflowRecorder(experiment_name="border_py-test", tracking_uri=mlflow_server)
    assert first.run_id is not None
    with pytest.raises(TrainingInterrupted):
        counting_trainer(config).train(_SignallingAgent(), first)
    first.close()
    # A crash would also leave metrics past the checkpoint: the interrupted run wrote some at steps 6, 7.
    first.write(Record({"train/loss": 99.0}), step=6)
    first.write(Record({"train/loss": 99.0}), step=7)
    first.flush(7)

    resumed = MlflowRecorder(run_id=first.run_id, tracking_uri=mlflow_server)
    counting_trainer(config).train(FakeAgent(), resumed, resume_from=tmp_path / "5")
    resumed.close()

    steps = [s for s, _ in _history(MlflowClient(tracking_uri=mlflow_server), first.run_id, "train/loss")]
    assert steps == sorted(set(steps))  # no repeat
    assert steps == [2, 4, 5, 6, 7, 8, 10, 12]  # no gap: 5 (the interrupt's checkpoint), then on from 7


@pytest.mark.smoke
def test_the_cli_records_to_mlflow_and_resume_continues_its_run(
    mlflow_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MLFLOW_TRACKING_URI", mlflow_server)
    monkeypatch.setenv("MLFLOW_EXPERIMENT_NAME", "border_py-cli")
    run = tmp_path / "run"
    argv = ["--model-dir", str(run), "--recorder", "mlflow", "--no-progress"]
    assert main(["train", "--config", str(tiny_config(tmp_path)), *argv]) == 0
    run_id = (run / MLFLOW_RUN_FILE).read_text().strip()
    assert main(["resume", *argv, "--set", "trainer.max_opts=60"]) == 0
    assert (run / MLFLOW_RUN_FILE).read_text().strip() == run_id
    client = MlflowClient(tracking_uri=mlflow_server)
    data = client.get_run(run_id).data
    assert (data.tags["algo"], data.tags["env"], data.tags["seed"]) == ("dqn", "CartPole-v1", "0")
    assert data.params["agent.batch_size"] == "32"
    steps = [s for s, _ in _history(client, run_id, "train/loss")]
    assert steps == sorted(set(steps))
    assert steps[-1] == 60
    artifacts = {a.path for a in client.list_artifacts(run_id)}
    assert {"best", "checkpoints"} <= artifacts
