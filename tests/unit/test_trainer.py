"""The trainer's cadence, checked exactly with a counting env and a fake agent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from border_py import (
    BufferedRecorder,
    GymEnvConfig,
    ModelDirBusyError,
    Policy,
    Record,
    SimpleReplayBufferConfig,
    SimpleStepProcessorConfig,
    Trainer,
    TrainerConfig,
)
from border_py.agents import Dqn, DqnConfig
from border_py.base import Spaces
from border_py.checkpoint import load_meta
from border_py.model_dir import clear_checkpoints
from border_py.testing import (
    FakeAgent,
    ScriptedEvaluator,
    count_dirs,
    counting_trainer,
)
from border_py.trainer.interrupts import TrainingStalledError


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
    # Where the time went since the last record: every part measured, none counted twice.
    for part in ("act", "env", "opt", "eval"):
        assert first.get_scalar(f"time/{part}_seconds") > 0.0


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


def test_intervals_in_env_steps_run_at_the_opt_step_that_reaches_them(tmp_path: Path) -> None:
    """Issue 51, item 6: evaluation and checkpoint intervals said in env steps, rounded up to whole opt
    steps (here 2 env steps each): every 5 env steps is every 3 opt steps, every 8 every 4."""
    config = TrainerConfig(
        max_opts=8,
        opt_interval=2,
        eval_interval_env_steps=5,
        save_interval_env_steps=8,
        model_dir=str(tmp_path),
    )
    assert (config.eval_every, config.save_every) == (3, 4)
    evaluator = ScriptedEvaluator([1.0, 2.0])
    counting_trainer(config).train(FakeAgent(), BufferedRecorder(), evaluator)
    assert evaluator.n_calls == 2  # at opt steps 3 and 6
    assert count_dirs(tmp_path) == ["4", "8", "best"]


def test_an_interval_in_both_units_or_in_env_steps_offline_is_refused() -> None:
    with pytest.raises(ValueError, match=r"set eval_interval \(in opt steps\) or eval_interval_env_steps"):
        TrainerConfig(max_opts=4, eval_interval=2, eval_interval_env_steps=100)
    with pytest.raises(ValueError, match=r"set save_interval \(in opt steps\) or save_interval_env_steps"):
        TrainerConfig(max_opts=4, save_interval=2, save_interval_env_steps=100)
    from border_py.trainer.offline import OfflineTrainer

    with pytest.raises(ValueError, match="eval_interval_env_steps is 100, but offline training takes no env"):
        OfflineTrainer(TrainerConfig(max_opts=4, eval_interval_env_steps=100), None)  # type: ignore[arg-type]


def test_nothing_is_saved_without_model_dir() -> None:
    agent = FakeAgent()
    counting_trainer(TrainerConfig(max_opts=4, eval_interval=1)).train(
        agent, BufferedRecorder(), ScriptedEvaluator([1.0])
    )
    assert agent.saves == []


def test_a_save_interval_without_model_dir_is_refused_before_training() -> None:
    # The config alone is a template (the run layer gives it a directory); a run that saves needs one.
    config = TrainerConfig(max_opts=4, save_interval=2)
    agent = FakeAgent()
    with pytest.raises(ValueError, match="save_interval is set but model_dir is None"):
        counting_trainer(config).train(agent, BufferedRecorder())
    assert agent.n_opt_calls == 0


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


def test_max_env_steps_stops_after_the_opt_steps_due_at_the_last_env_step() -> None:
    # Opt steps at env steps 4, 6, 8, 10 (warm-up 3, every 2nd): the budget of 10 env steps allows 4.
    agent = FakeAgent()
    config = TrainerConfig(max_env_steps=10, opt_interval=2, warmup_period=3)
    result = counting_trainer(config).train(agent, BufferedRecorder())
    assert (result.env_steps, result.opt_steps, result.stop_reason) == (10, 4, "max_env_steps")
    assert agent.opt_buffer_lens == [4, 6, 8, 10]
    # With both budgets, whichever comes first ends training.
    both = TrainerConfig(max_env_steps=10, max_opts=2, opt_interval=2, warmup_period=3)
    result = counting_trainer(both).train(FakeAgent(), BufferedRecorder())
    assert (result.env_steps, result.opt_steps, result.stop_reason) == (6, 2, "max_opts")


def test_an_agent_that_keeps_skipping_stops_training_with_an_error_saying_so() -> None:
    agent = FakeAgent(skip_first=10**9)
    config = TrainerConfig(max_opts=5, warmup_period=7, max_skipped_opts=50)
    with pytest.raises(
        TrainingStalledError, match=r"agent\.opt skipped 50 calls in a row \(up to env step 57, opt step 0"
    ):
        counting_trainer(config).train(agent, BufferedRecorder())
    assert agent.n_opt_calls == 50


def test_a_batch_larger_than_the_buffer_capacity_is_refused_naming_both_fields(tmp_path: Path) -> None:
    trainer = Trainer(
        TrainerConfig(max_opts=5, model_dir=str(tmp_path / "run")),
        GymEnvConfig(name="CartPole-v1"),
        SimpleStepProcessorConfig(),
        SimpleReplayBufferConfig(capacity=100),
    )
    agent = Dqn(DqnConfig(batch_size=256), Spaces(obs_shape=(4,), n_actions=2), seed=0)
    with pytest.raises(
        ValueError, match=r"agent\.batch_size \(256\) is larger than replay_buffer\.capacity \(100\)"
    ):
        trainer.train(agent, BufferedRecorder())
    assert not (tmp_path / "run").exists()  # refused before anything was written


def test_a_model_dir_holding_another_run_is_refused_unless_resumed_or_cleared(tmp_path: Path) -> None:
    config = TrainerConfig(max_opts=4, eval_interval=2, save_interval=2, model_dir=str(tmp_path))
    counting_trainer(config).train(FakeAgent(), BufferedRecorder(), ScriptedEvaluator([1.0]))
    agent = FakeAgent()
    with pytest.raises(FileExistsError, match=r"holds another run \(best/, 2/, 4/\): resume it"):
        counting_trainer(config).train(agent, BufferedRecorder(), ScriptedEvaluator([2.0]))
    assert agent.n_opt_calls == 0
    assert load_meta(tmp_path / "best")["score"] == 1.0  # the first run's best is untouched

    assert [p.name for p in clear_checkpoints(tmp_path)] == ["2", "4", "best"]
    counting_trainer(config).train(agent, BufferedRecorder(), ScriptedEvaluator([2.0]))
    assert load_meta(tmp_path / "best")["score"] == 2.0


_HOLD_LOCK = """
import sys, time
from pathlib import Path
from border_py.lock import model_dir_lock
with model_dir_lock(Path(sys.argv[1])):
    print("locked", flush=True)
    time.sleep(60)
"""


def test_a_second_run_on_a_busy_model_dir_is_refused_naming_the_holder(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD_LOCK, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "locked\n"
        agent = FakeAgent()
        with pytest.raises(ModelDirBusyError, match=rf"in use by process {holder.pid}"):
            counting_trainer(TrainerConfig(max_opts=2, model_dir=str(tmp_path))).train(
                agent, BufferedRecorder()
            )
        assert agent.n_opt_calls == 0
    finally:
        holder.kill()
        holder.communicate()
    # The kernel released the killed holder's lock: the directory is free again.
    counting_trainer(TrainerConfig(max_opts=2, model_dir=str(tmp_path))).train(
        FakeAgent(), BufferedRecorder()
    )
