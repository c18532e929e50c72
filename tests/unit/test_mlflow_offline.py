"""An MLflow recorder whose server is gone before its run is made: training goes on, and the spill file
holds what making the run needs (experiment, name, tags, params, config file), then the records and the
end, in order, none of it naming a run yet."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from border_py import Record

pytest.importorskip("mlflow", reason="the mlflow extra is not installed (pip install 'border_py[mlflow]')")


def _closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (connections are refused at once)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_server_gone_before_the_run_is_made_leaves_the_whole_run_in_the_spill_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from border_py.recorders import MlflowRecorder

    (tmp_path / "config.yaml").write_text("seed: 0\n")
    spill = tmp_path / "mlflow_unsent.jsonl"
    made: list[str] = []
    recorder = MlflowRecorder(
        experiment_name="dqn-CartPole-v1",
        run_name="late",
        tags={"algo": "dqn"},
        tracking_uri=f"http://127.0.0.1:{_closed_port()}",
        spill_file=spill,
        on_created=made.append,
    )
    recorder.sender.close_timeout = 0.2
    assert recorder.run_id is None
    recorder.log_params({"trainer": {"max_opts": 40}})
    recorder.log_file(tmp_path / "config.yaml")
    recorder.store(Record({"train/loss": 1.5}), 10)
    recorder.flush(10)
    recorder.log_artifacts(tmp_path, "best")
    recorder.end_status = "KILLED"
    recorder.close()
    entries = [json.loads(line) for line in spill.read_text().splitlines()]
    for entry in entries:
        for metric in entry.get("metrics", []):
            metric[2] = "ms"  # the time stamp
    create = {"experiment": "dqn-CartPole-v1", "run_name": "late", "tags": {"algo": "dqn"}}
    assert entries == [
        {"run_id": None, "create": create},
        {"run_id": None, "params": {"trainer.max_opts": "40"}},
        {"run_id": None, "files": {"config.yaml": None}},
        {"run_id": None, "metrics": [["train/loss", 1.5, "ms", 10]], "tags": {}},
        {"run_id": None, "artifacts": {"best": "."}},
        {"run_id": None, "status": "KILLED"},
    ]  # fmt: skip
    assert made == []
    assert capsys.readouterr().err.count("the tracking server is unreachable") == 1
