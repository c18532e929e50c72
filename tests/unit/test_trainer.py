"""The trainer's cadence, checked exactly with a counting env and a fake agent."""

from __future__ import annotations

from pathlib import Path

import pytest

from border_py import BufferedRecorder, Policy, Record, TrainerConfig
from border_py.checkpoint import load_meta
from border_py.testing import (
    FakeAgent,
    ScriptedEvaluator,
    count_dirs,
    counting_trainer,
)


def test_opt_eval_record_and_save_happen_exactly_on_schedule(tmp_path: Path) -> None:
    config = TrainerConfig(
        max_opts=6,
        opt_interval=2,
        warmup_period=3,
        eval_interval=2,
        record_interval=3,
        save_interval=4,
        model_dir=str(tmp_path),
    )
    agent, recorder, evaluator = FakeAgent(), BufferedRecorder(), ScriptedEvaluator([1.0, 3.0, 2.0])
    result = counting_trainer(config).train(agent, recorder, evaluator)

    # Opt steps at env steps 4, 6, ..., 14: after the warm-up of 3, every 2nd env step.
    assert agent.opt_buffer_lens == [4, 6, 8, 10, 12, 14]
    assert (result.opt_steps, result.env_steps) == (6, 14)
    # Evaluations at opt steps 2, 4, 6, always in eval mode; the agent ends in train mode.
    assert evaluator.n_calls == 3
    assert evaluator.calls_in_eval_mode == [True, True, True]
    assert agent.is_train()
    assert (result.best_score, result.last_score) == (3.0, 2.0)
    # best/ saved at opt 2 (score 1) and replaced at opt 4 (score 3), not at 6 (score 2); 4/ at opt 4 and
    # 6/ at the end (the final state, to continue from).
    assert count_dirs(tmp_path) == ["4", "6", "best"]
    assert len(agent.saves) == 4
    best = load_meta(tmp_path / "best")
    assert (best["opt_steps"], best["env_steps"], best["score"]) == (4, 10, 3.0)
    assert best["config"]["trainer"]["max_opts"] == 6
    assert load_meta(tmp_path / "4")["opt_steps"] == 4
    # Records flushed at opt steps 3 and 6 with the counters and the aggregated losses, and at the
    # checkpoint at 4 (what a resumed run would never write).
    assert [step for step, _ in recorder.records] == [3, 4, 6]
    first, at_save, second = (r for _, r in recorder.records)
    assert (at_save["train/loss"], at_save["eval/episode_return"]) == (4.0, 3.0)
    assert "env_steps" not in at_save
    assert (first["env_steps"], first["opt_steps"]) == (8.0, 3.0)
    assert first["train/loss"] == 2.0
    assert first["train/loss_max"] == 3.0
    assert first["eval/episode_return"] == 1.0
    assert first["eval_reward"] == 1.0
    assert first["env/episode_return"] == 5.0  # the episode that ended at env step 5
    assert second["eval/episode_return"] == 2.0  # opt 6
    assert first.get_scalar("time/fps") > 0.0
    assert first.get_scalar("time/opt_steps_per_sec") > 0.0


def test_skipped_opts_are_not_opt_steps() -> None:
    agent = FakeAgent(skip_first=2)
    result = counting_trainer(TrainerConfig(max_opts=3, opt_interval=2)).train(agent, BufferedRecorder())
    assert agent.n_opt_calls == 5
    assert agent.opt_buffer_lens == [6, 8, 10]
    assert result.env_steps == 10


def test_last_records_are_flushed_when_max_opts_is_off_the_record_cadence() -> None:
    recorder = BufferedRecorder()
    counting_trainer(TrainerConfig(max_opts=7, record_interval=3)).train(FakeAgent(), recorder)
    assert [step for step, _ in recorder.records] == [3, 6, 7]
    assert recorder.records[-1][1]["train/loss"] == 7.0


def test_episode_records_between_opt_steps_are_kept() -> None:
    recorder = BufferedRecorder()
    counting_trainer(TrainerConfig(max_opts=2, opt_interval=5, record_interval=2), episode_length=3).train(
        FakeAgent(), recorder
    )
    # Episodes end at env steps 3, 6, 9 (none on an opt step, which are 5 and 10): all three are recorded.
    ((_, record),) = recorder.records
    assert record["env/episode_length"] == 3.0
    assert record["env/episode_length_min"] == 3.0
    assert record["env/episode_return"] == 3.0


def test_nothing_is_saved_without_model_dir() -> None:
    agent = FakeAgent()
    counting_trainer(TrainerConfig(max_opts=4, eval_interval=1)).train(
        agent, BufferedRecorder(), ScriptedEvaluator([1.0])
    )
    assert agent.saves == []


def test_eval_interval_without_evaluator_is_refused_before_training() -> None:
    agent = FakeAgent()
    with pytest.raises(ValueError, match="no evaluator"):
        counting_trainer(TrainerConfig(max_opts=4, eval_interval=2)).train(agent, BufferedRecorder())
    assert agent.n_opt_calls == 0


def test_unwritable_model_dir_is_refused_before_the_first_env_step(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    agent = FakeAgent()
    with pytest.raises(PermissionError, match="file/models"):
        counting_trainer(TrainerConfig(max_opts=4, model_dir=str(tmp_path / "file" / "models"))).train(
            agent, BufferedRecorder()
        )
    assert agent.n_opt_calls == 0


def test_evaluator_failure_leaves_the_agent_in_train_mode() -> None:
    class Failing(ScriptedEvaluator):
        def evaluate(self, policy: Policy[int, int]) -> tuple[float, Record]:
            raise RuntimeError("eval env crashed")

    agent = FakeAgent()
    with pytest.raises(RuntimeError, match="eval env crashed"):
        counting_trainer(TrainerConfig(max_opts=4, eval_interval=1)).train(
            agent, BufferedRecorder(), Failing([0.0])
        )
    assert agent.is_train()
