"""Offline training: the same cadence as online training (counting fakes), exact resume, and its refusals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from border_py import (
    ArrayDataset,
    ArrayDatasetConfig,
    BufferedRecorder,
    OfflineTrainer,
    TrainerConfig,
    TrainResult,
)
from border_py.agents import Dqn, DqnConfig
from border_py.base import Spaces
from border_py.checkpoint import load_meta
from border_py.model_dir import latest_checkpoint
from border_py.replay_buffer.storage import COLUMNS
from border_py.testing import (
    FakeAgent,
    ListDataset,
    ListDatasetConfig,
    ScriptedEvaluator,
    count_dirs,
    counting_trainer,
)


def _config(model_dir: Path, max_opts: int = 10, **changes: Any) -> TrainerConfig:
    fields: dict[str, object] = {
        "max_opts": max_opts,
        "eval_interval": 2,
        "record_interval": 3,
        "save_interval": 4,
        "model_dir": str(model_dir),
    }
    return TrainerConfig(**{**fields, **changes})


def _run_both(
    tmp_path: Path, scores: list[float], **changes: Any
) -> tuple[
    tuple[TrainResult, FakeAgent, BufferedRecorder, ScriptedEvaluator],
    tuple[TrainResult, FakeAgent, BufferedRecorder, ScriptedEvaluator],
]:
    """The same schedule online (one opt step per env step, no warm-up) and offline."""
    runs = []
    for name in ("online", "offline"):
        agent, recorder, evaluator = FakeAgent(), BufferedRecorder(), ScriptedEvaluator(scores)
        config = _config(tmp_path / name, **changes)
        if name == "online":
            result = counting_trainer(config).train(agent, recorder, evaluator)
        else:
            result = OfflineTrainer(config, ListDatasetConfig(n_items=8)).train(agent, recorder, evaluator)
        runs.append((result, agent, recorder, evaluator))
    return runs[0], runs[1]


def test_offline_evaluates_records_saves_and_stops_exactly_when_online_does(tmp_path: Path) -> None:
    online, offline = _run_both(tmp_path, [1.0, 3.0, 2.0, 5.0, 4.0])
    (on_result, on_agent, on_recorder, on_evaluator) = online
    (off_result, off_agent, off_recorder, off_evaluator) = offline

    assert off_result.opt_steps == on_result.opt_steps == 10
    assert off_result.env_steps == 0
    assert off_result.stop_reason == on_result.stop_reason == "max_opts"
    assert [(e.opt_steps, e.score) for e in off_result.evaluations] == [
        (e.opt_steps, e.score) for e in on_result.evaluations
    ]
    assert off_evaluator.calls_in_eval_mode == on_evaluator.calls_in_eval_mode == [True] * 5
    assert (off_result.best_score, off_result.last_score) == (on_result.best_score, on_result.last_score)
    # The same directories, saved in the same order: best at 2, 4 and 8; checkpoints at 4, 8 and the end.
    assert [p.name for p in off_agent.saves] == [p.name for p in on_agent.saves]
    assert [p.name.split(".")[1] for p in off_agent.saves] == ["best", "best", "4", "best", "8", "10"]
    assert count_dirs(tmp_path / "offline") == count_dirs(tmp_path / "online") == ["10", "4", "8", "best"]
    # Records flushed at the same steps with the same losses and scores; offline has no env steps to time.
    assert [s for s, _ in off_recorder.records] == [s for s, _ in on_recorder.records] == [3, 4, 6, 8, 9, 10]
    for (_, off), (_, on) in zip(off_recorder.records, on_recorder.records, strict=True):
        assert {k: off[k] for k in off if k.startswith(("train/", "eval"))} == {
            k: on[k] for k in on if k.startswith(("train/", "eval"))
        }
        assert "time/fps" not in off
        assert ("time/fps" in on) == ("env_steps" in on)


def test_stop_score_ends_both_regimes_after_the_first_evaluation_reaching_it(tmp_path: Path) -> None:
    online, offline = _run_both(tmp_path, [1.0, 3.0, 2.0, 5.0], stop_score=3.0, max_opts=100)
    for result, agent, _, evaluator in (online, offline):
        assert (result.opt_steps, result.stop_reason, evaluator.n_calls) == (4, "stop_score", 2)
        assert [p.name.split(".")[1] for p in agent.saves] == ["best", "best", "4"]  # 4: the final checkpoint
    assert load_meta(tmp_path / "offline" / "4")["score"] == 3.0


def test_offline_records_the_dataset_it_trained_on(tmp_path: Path) -> None:
    OfflineTrainer(_config(tmp_path, 4), ListDatasetConfig(n_items=8)).train(
        FakeAgent(), BufferedRecorder(), ScriptedEvaluator([1.0])
    )
    for name in ("4", "best"):
        config = load_meta(tmp_path / name)["config"]
        assert config["dataset"] == {"n_items": 8}
        assert config["dataset_size"] == 8
        assert "env" not in config


def test_offline_resume_draws_the_batches_the_uninterrupted_run_would(tmp_path: Path) -> None:
    def train(
        model_dir: Path, max_opts: int, resume_from: Path | None = None
    ) -> tuple[TrainResult, list[int]]:
        trainer = OfflineTrainer(_config(model_dir, max_opts), ListDatasetConfig(n_items=50))
        drawn: list[int] = []

        class Recording(ListDatasetConfig):
            def build(self, seed: int) -> ListDataset:
                dataset = super().build(seed)
                dataset.drawn = drawn
                return dataset

        trainer.dataset_config = Recording(n_items=50)
        result = trainer.train(
            FakeAgent(batch_size=3),
            BufferedRecorder(),
            ScriptedEvaluator([1.0, 2.0]),
            resume_from=resume_from,
        )
        return result, drawn

    whole, whole_drawn = train(tmp_path / "whole", 8)
    _, first_drawn = train(tmp_path / "split", 4)
    resumed, resumed_drawn = train(tmp_path / "split", 8, resume_from=tmp_path / "split" / "4")
    assert first_drawn + resumed_drawn == whole_drawn
    assert len(whole_drawn) == 24
    assert resumed == whole


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        (
            {"max_env_steps": 100},
            r"TrainerConfig\.max_env_steps is 100, but offline training takes no env steps",
        ),
        ({"opt_interval": 2}, r"TrainerConfig\.opt_interval is 2"),
        ({"warmup_period": 5}, r"TrainerConfig\.warmup_period is 5"),
    ],
)
def test_offline_refuses_env_step_fields(changes: dict[str, Any], match: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=match):
        OfflineTrainer(_config(tmp_path, **changes), ListDatasetConfig())


def test_an_empty_dataset_or_a_batch_larger_than_it_is_refused_before_training(tmp_path: Path) -> None:
    agent = FakeAgent(batch_size=9)
    with pytest.raises(ValueError, match=r"agent\.batch_size \(9\) is larger than the dataset \(8 items\)"):
        OfflineTrainer(_config(tmp_path, 4), ListDatasetConfig(n_items=8)).train(
            agent, BufferedRecorder(), ScriptedEvaluator([1.0])
        )
    assert agent.n_opt_calls == 0
    assert count_dirs(tmp_path) == []


def _dataset_file(path: Path, n: int = 400) -> Path:
    rng = np.random.default_rng(0)
    obs = rng.normal(size=(n, 4)).astype(np.float32)
    columns = {
        "obs": obs,
        "next_obs": obs + 0.1,
        "act": rng.integers(0, 2, n),
        "reward": rng.normal(size=n),
        "is_terminated": (rng.random(n) < 0.05).astype(np.float32),
        "is_truncated": np.zeros(n, np.float32),
        "discount": np.full(n, 0.99, np.float32),
    }
    np.savez(path, **columns)  # type: ignore[arg-type]
    return path


def test_dqn_trains_offline_and_resumes_exactly(tmp_path: Path) -> None:
    data = _dataset_file(tmp_path / "data.npz")

    def train(model_dir: Path, max_opts: int, resume_from: Path | None = None) -> Dqn:
        agent = Dqn(
            DqnConfig(hidden=(16,), batch_size=32, target_update_interval=10),
            Spaces(obs_shape=(4,), n_actions=2),
            seed=0,
        )
        config = _config(model_dir, max_opts, eval_interval=None)
        OfflineTrainer(config, ArrayDatasetConfig(path=str(data))).train(
            agent, BufferedRecorder(), resume_from=resume_from
        )
        return agent

    torch.manual_seed(0)
    whole = train(tmp_path / "whole", 40)
    train(tmp_path / "split", 20)
    assert latest_checkpoint(tmp_path / "split") == tmp_path / "split" / "20"
    resumed = train(tmp_path / "split", 40, resume_from=tmp_path / "split" / "20")
    for a, b in zip(whole.parts.net.net.parameters(), resumed.parts.net.net.parameters(), strict=True):
        assert torch.equal(a, b)
    assert load_meta(tmp_path / "split" / "40")["config"]["dataset"] == {"path": str(data)}


def test_a_saved_replay_buffer_is_a_dataset(tmp_path: Path) -> None:
    counting = tmp_path / "data.npz"
    _dataset_file(counting, n=10)
    dataset = ArrayDatasetConfig(path=str(counting)).build(seed=0)
    batch = dataset.batch(5)
    assert (len(dataset), tuple(batch.obs.shape), batch.act.dtype) == (10, (5, 4), torch.int64)
    with np.load(counting) as data:
        columns = {k: data[k] for k in COLUMNS}
    columns["reward"][3] = np.inf
    with pytest.raises(ValueError, match="column reward holds a value that is not finite"):
        ArrayDataset(columns, seed=0, source="x")
    del columns["discount"]
    with pytest.raises(ValueError, match=r"x: the columns \['discount'\] are missing"):
        ArrayDataset(columns, seed=0, source="x")
