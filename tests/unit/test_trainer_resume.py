"""Checkpoints, resume, rotation, interrupts and failed saves of the trainer, with counting fakes."""

from __future__ import annotations

import base64
import errno
import json
import os
import pickle
import signal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from border_py import BufferedRecorder, Record, TrainerConfig, TrainingInterrupted
from border_py.base.replay_buffer import ReplayBuffer
from border_py.checkpoint import TRAINER_STATE_FILE, load_meta
from border_py.model_dir import latest_checkpoint
from border_py.testing import (
    FakeAgent,
    FakeItem,
    ScriptedEvaluator,
    count_dirs,
    counting_trainer,
)


def _config(tmp_path: Path, max_opts: int, **changes: object) -> TrainerConfig:
    fields: dict[str, object] = {
        "max_opts": max_opts,
        "opt_interval": 2,
        "warmup_period": 3,
        "eval_interval": 2,
        "record_interval": 3,
        "save_interval": 4,
        "model_dir": str(tmp_path),
        "checkpoint_buffer": True,
    }
    return TrainerConfig(**{**fields, **changes})  # type: ignore[arg-type]


class _SignallingAgent(FakeAgent):
    """Sends itself ``signum`` during opt step ``at``."""

    def __init__(self, at: int, signum: int) -> None:
        super().__init__()
        self.at, self.signum = at, signum

    def opt(self, buffer: ReplayBuffer[list[FakeItem]]) -> Record | None:
        record = super().opt(buffer)
        if self.n_opts == self.at:
            os.kill(os.getpid(), self.signum)
        return record


def test_resume_continues_counters_evaluations_buffer_and_episode(tmp_path: Path) -> None:
    whole_agent = FakeAgent()
    whole = counting_trainer(_config(tmp_path / "whole", 10)).train(
        whole_agent, BufferedRecorder(), ScriptedEvaluator([1.0, 3.0, 2.0, 5.0, 4.0])
    )

    counting_trainer(_config(tmp_path / "split", 4)).train(
        FakeAgent(), BufferedRecorder(), ScriptedEvaluator([1.0, 3.0])
    )
    agent, recorder = FakeAgent(), BufferedRecorder()
    resumed = counting_trainer(_config(tmp_path / "split", 10)).train(
        agent, recorder, ScriptedEvaluator([2.0, 5.0, 4.0]), resume_from=tmp_path / "split" / "4"
    )

    assert resumed == whole
    assert agent.n_opts == whole_agent.n_opts == 10
    # The buffer came back (8 items at opt 4, pushed up to env step 10) and grew as in the whole run.
    assert agent.opt_buffer_lens == whole_agent.opt_buffer_lens[4:]
    assert [step for step, _ in recorder.records] == [6, 8, 9, 10]
    assert load_meta(tmp_path / "split" / "best")["score"] == 5.0


def test_resume_without_a_saved_buffer_warms_up_again(tmp_path: Path) -> None:
    counting_trainer(_config(tmp_path, 4, checkpoint_buffer=False)).train(
        FakeAgent(), BufferedRecorder(), ScriptedEvaluator([1.0])
    )
    assert sorted(p.name for p in (tmp_path / "4").iterdir()) == [
        "fake_agent.json",
        "meta.yaml",
        TRAINER_STATE_FILE,
    ]
    agent = FakeAgent()
    result = counting_trainer(_config(tmp_path, 6, checkpoint_buffer=False)).train(
        agent, BufferedRecorder(), ScriptedEvaluator([1.0]), resume_from=tmp_path / "4"
    )
    # Checkpoint at env step 10; the empty buffer refills up to env step 13, so the opt steps are at env
    # steps 14 and 16 (every 2nd), with 4 and 6 items.
    assert agent.opt_buffer_lens == [4, 6]
    assert result.env_steps == 16


def test_resume_refuses_another_env_naming_the_field(tmp_path: Path) -> None:
    counting_trainer(_config(tmp_path, 4)).train(FakeAgent(), BufferedRecorder(), ScriptedEvaluator([1.0]))
    with pytest.raises(ValueError, match=r"cannot resume from .*4: env\.episode_length is 5 vs 7"):
        counting_trainer(_config(tmp_path, 8), episode_length=7).train(
            FakeAgent(), BufferedRecorder(), ScriptedEvaluator([1.0]), resume_from=tmp_path / "4"
        )
    with pytest.raises(ValueError, match=r"trainer\.seed is 0 vs 1"):
        counting_trainer(_config(tmp_path, 8, seed=1)).train(
            FakeAgent(), BufferedRecorder(), ScriptedEvaluator([1.0]), resume_from=tmp_path / "4"
        )


@pytest.mark.parametrize(
    ("damage", "error", "match"),
    [
        ("truncate", ValueError, r"4/trainer_state\.json is not a readable training state"),
        ("garbage", ValueError, r"4/trainer_state\.json is not a training state: expected the keys"),
        ("format", ValueError, r"4/trainer_state\.json has format 99"),
        (
            "regime",
            ValueError,
            r"4/trainer_state\.json is a checkpoint of 'offline' training, not of 'online'",
        ),
        ("object-array", ValueError, r"arrays of dtype object are refused"),
        ("short-array", ValueError, r"bytes do not make an array"),
        (
            "delete",
            FileNotFoundError,
            r"4 is not a complete training checkpoint: .*trainer_state\.json not found",
        ),
    ],
)
def test_a_damaged_training_state_is_refused_naming_the_file(
    tmp_path: Path, damage: str, error: type[Exception], match: str
) -> None:
    counting_trainer(_config(tmp_path, 4)).train(FakeAgent(), BufferedRecorder(), ScriptedEvaluator([1.0]))
    file = tmp_path / "4" / TRAINER_STATE_FILE
    data = file.read_text()
    state = json.loads(data)
    array = {"__ndarray__": base64.b64encode(b"\0" * 8).decode(), "dtype": "|O", "shape": [1]}
    if damage == "truncate":
        file.write_text(data[: len(data) // 2])
    elif damage == "garbage":
        file.write_text("[1, 2, 3]")
    elif damage in ("format", "regime"):
        file.write_text(
            json.dumps({**state, **({"format": 99} if damage == "format" else {"regime": "offline"})})
        )
    elif damage == "object-array":
        file.write_text(json.dumps({**state, "rng": {**state["rng"], "torch": array}}))
    elif damage == "short-array":
        file.write_text(
            json.dumps({**state, "rng": {**state["rng"], "torch": {**array, "dtype": "<f8", "shape": [5]}}})
        )
    else:
        file.unlink()
    agent = FakeAgent()
    with pytest.raises(error, match=match):
        counting_trainer(_config(tmp_path, 8)).train(
            agent, BufferedRecorder(), ScriptedEvaluator([1.0]), resume_from=tmp_path / "4"
        )
    assert agent.n_opts == 0  # nothing was loaded into the agent


@pytest.mark.parametrize(
    ("books", "match"),
    [
        ({"opt_steps": "1e400"}, r"books\.opt_steps must be a whole number in \[0, 2\*\*63 - 1\], got inf"),
        ({"opt_steps": "-500"}, r"books\.opt_steps must be a whole number .*got -500"),
        (
            {"env_steps": str(10**30)},
            r"books\.env_steps must be a whole number .*got 1000000000000000000000000000000",
        ),
        ({"warmup_end": "true"}, r"books\.warmup_end must be a whole number .*got True"),
        ({"best_score": "NaN"}, r"books\.best_score is nan, but the best evaluation scored 1\.0"),
        ({"best_score": "7.0"}, r"books\.best_score is 7\.0, but the best evaluation scored 1\.0"),
        (
            {"evaluations": "[[2, 4, NaN]]"},
            r"books\.evaluations\[0\] has a score that is not a finite number",
        ),
        ({"evaluations": "[[99, 4, 1.0]]"}, r"books\.evaluations\[0\] = \[99, 4, 1\.0\] lies after"),
        ({"opt_steps": "5"}, r"books\.opt_steps is 5, but the checkpoint is 4/"),
        (
            {"env_steps": "12"},
            r"the counters \(opt_steps 4, env_steps 12\) differ from .*meta\.yaml's \(4, 10\)",
        ),
    ],
)
def test_trainer_state_values_are_checked_before_anything_is_loaded(
    tmp_path: Path, books: dict[str, str], match: str
) -> None:
    counting_trainer(_config(tmp_path, 4)).train(FakeAgent(), BufferedRecorder(), ScriptedEvaluator([1.0]))
    file = tmp_path / "4" / TRAINER_STATE_FILE
    state = json.loads(file.read_text())
    placeholders = {key: f"@{key}@" for key in books}
    text = json.dumps({**state, "books": {**state["books"], **placeholders}})
    for key, raw in books.items():
        text = text.replace(f'"@{key}@"', raw)  # raw JSON, as a hostile file can hold it (1e400, NaN)
    file.write_text(text)
    agent = FakeAgent()
    with pytest.raises(ValueError, match=match):
        counting_trainer(_config(tmp_path, 8)).train(
            agent, BufferedRecorder(), ScriptedEvaluator([1.0]), resume_from=tmp_path / "4"
        )
    assert agent.n_opts == 0


def test_keep_checkpoints_rotates_periodic_ones_but_not_best(tmp_path: Path) -> None:
    config = _config(tmp_path, 10, save_interval=2, keep_checkpoints=2)
    counting_trainer(config).train(FakeAgent(), BufferedRecorder(), ScriptedEvaluator([9.0, 1.0]))
    assert count_dirs(tmp_path) == ["10", "8", "best"]
    assert load_meta(tmp_path / "best")["opt_steps"] == 2


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_finishes_the_step_saves_flushes_and_raises(tmp_path: Path, signum: int) -> None:
    previous = signal.getsignal(signum)
    agent, recorder = _SignallingAgent(at=5, signum=signum), BufferedRecorder()
    with pytest.raises(TrainingInterrupted, match=rf"{signal.Signals(signum).name} at opt step 5") as info:
        counting_trainer(_config(tmp_path, 100)).train(agent, recorder, ScriptedEvaluator([1.0]))
    assert (info.value.signum, info.value.opt_steps, info.value.checkpoint) == (signum, 5, tmp_path / "5")
    assert agent.n_opts == 5
    assert latest_checkpoint(tmp_path) == tmp_path / "5"
    assert recorder.records[-1][0] == 5  # the opt-5 record was flushed with the checkpoint
    assert signal.getsignal(signum) is previous  # the handlers are restored

    resumed = counting_trainer(_config(tmp_path, 8)).train(
        FakeAgent(), BufferedRecorder(), ScriptedEvaluator([1.0]), resume_from=tmp_path / "5"
    )
    assert resumed.opt_steps == 8


def test_a_full_disk_during_a_save_stops_training_and_keeps_the_previous_checkpoints(tmp_path: Path) -> None:
    class _DiskFills(FakeAgent):
        def save_params(self, path: Path) -> list[Path]:
            if self.n_opts >= 8:
                raise OSError(errno.ENOSPC, "No space left on device")
            return super().save_params(path)

    with pytest.raises(OSError, match=r"could not save .*8.*No space left") as info:
        counting_trainer(_config(tmp_path, 12)).train(
            _DiskFills(), BufferedRecorder(), ScriptedEvaluator([1.0, 2.0])
        )
    assert info.value.errno == errno.ENOSPC
    assert count_dirs(tmp_path) == ["4", "best"]
    assert load_meta(tmp_path / "best")["opt_steps"] == 4
    assert latest_checkpoint(tmp_path) == tmp_path / "4"


def test_training_recovers_what_a_crash_between_renames_left(tmp_path: Path) -> None:
    counting_trainer(_config(tmp_path, 4)).train(FakeAgent(), BufferedRecorder(), ScriptedEvaluator([7.0]))
    (tmp_path / "best").rename(tmp_path / ".best.old-99")
    (tmp_path / ".8.tmp-99").mkdir()
    counting_trainer(_config(tmp_path, 6)).train(
        FakeAgent(), BufferedRecorder(), ScriptedEvaluator([1.0]), resume_from=tmp_path / "4"
    )
    assert count_dirs(tmp_path) == ["4", "6", "best"]
    assert load_meta(tmp_path / "best")["score"] == 7.0  # the recovered best was not beaten by 1.0


def test_a_signal_during_the_last_opt_step_is_still_reported(tmp_path: Path) -> None:
    agent = _SignallingAgent(at=8, signum=signal.SIGINT)
    with pytest.raises(TrainingInterrupted, match="SIGINT at opt step 8") as info:
        counting_trainer(_config(tmp_path, 8)).train(agent, BufferedRecorder(), ScriptedEvaluator([1.0]))
    assert info.value.checkpoint == tmp_path / "8"  # the final checkpoint, saved once
    assert len([p for p in agent.saves if p.name.startswith(".8.tmp")]) == 1


class _Exploit:
    """Pickles into a call of ``os.system``: what a crafted checkpoint file would hold."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return os.system, (f"touch {self.marker}",)


def test_a_pickled_trainer_state_is_never_loaded_so_a_crafted_one_runs_no_code(tmp_path: Path) -> None:
    counting_trainer(_config(tmp_path, 4)).train(FakeAgent(), BufferedRecorder(), ScriptedEvaluator([1.0]))
    checkpoint = tmp_path / "4"
    marker = tmp_path / "pwned"
    # A checkpoint of border_py 0.1 (trainer_state.pkl), with an exploit hidden in an extra key.
    (checkpoint / TRAINER_STATE_FILE).unlink()
    (checkpoint / "trainer_state.pkl").write_bytes(pickle.dumps({"format": 1, "extra": _Exploit(marker)}))
    with pytest.raises(FileNotFoundError, match=r"trainer_state\.pkl of an older border_py, never loaded"):
        counting_trainer(_config(tmp_path, 8)).train(
            FakeAgent(), BufferedRecorder(), ScriptedEvaluator([1.0]), resume_from=checkpoint
        )
    assert not marker.exists()
    assert latest_checkpoint(tmp_path) is None  # and it is never offered as a resume point


def test_a_pickle_disguised_as_the_json_state_is_refused_without_running_it(tmp_path: Path) -> None:
    counting_trainer(_config(tmp_path, 4)).train(FakeAgent(), BufferedRecorder(), ScriptedEvaluator([1.0]))
    marker = tmp_path / "pwned"
    (tmp_path / "4" / TRAINER_STATE_FILE).write_bytes(pickle.dumps(_Exploit(marker)))
    with pytest.raises(ValueError, match=r"trainer_state\.json is not a readable training state"):
        counting_trainer(_config(tmp_path, 8)).train(
            FakeAgent(), BufferedRecorder(), ScriptedEvaluator([1.0]), resume_from=tmp_path / "4"
        )
    assert not marker.exists()


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"dtype": {"a": []}}, "not a dtype"),  # numpy reads a mapping as the fields of a record
        ({"__ndarray__": "é"}, "array data is not base64"),  # base64 refuses non-ASCII with a ValueError
    ],
)
def test_a_malformed_array_is_a_checkpoint_error_naming_where(change: dict[str, object], says: str) -> None:
    """Issue 53 (found by tests/fuzz): both were plain ValueErrors that named no file."""
    from border_py.checkpoint import CheckpointError
    from border_py.trainer.state import decode

    array = {"__ndarray__": "AAAAAAAAAAA=", "dtype": "<i8", "shape": [1], **change}
    with pytest.raises(CheckpointError, match=rf"^f\.json\.rng: {says}"):
        decode({"rng": array}, "f.json")


class _LoadCountingBuffer:
    def __init__(self) -> None:
        self.loads = 0

    def load(self, path: Path) -> None:
        self.loads += 1


@pytest.mark.parametrize(
    ("source", "says"),
    [
        ([], r"source must hold 'buffer_saved' \(true or false\), 'version' and 'restarts'"),
        ({"buffer_saved": "no", "version": 3, "restarts": []}, r"source must hold 'buffer_saved'"),
        (
            {"buffer_saved": True, "version": -5, "restarts": []},
            r"source\.version must be .*\[-1, 2\*\*63 - 1\]",
        ),
        ({"buffer_saved": True, "version": 1.7, "restarts": []}, r"source\.version must be .*got 1\.7"),
        (
            {"buffer_saved": True, "version": 3, "restarts": "ab"},
            r"source\.restarts must be a list .*got 'ab'",
        ),
        ({"buffer_saved": True, "version": 3, "restarts": [0, -2]}, r"source\.restarts must be .*\[0, -2\]"),
    ],
    ids=["not-a-mapping", "buffer_saved", "version-5", "version1.7", "restarts-text", "restarts-2"],
)
def test_the_asynchronous_regime_checks_its_source_before_it_loads_the_buffer(
    tmp_path: Path, source: object, says: str
) -> None:
    """Each was taken (a version of -5 or 1.7, a negative restart count) or a traceback (``int('a')``), the
    buffer loaded first; `OnlineRegime.restore` refuses its own in one line naming the file and key."""
    from border_py.checkpoint import CheckpointError
    from border_py.distributed.regime import AsyncRegime

    # The regime's restore on a stand-in for the regime: no Ray cluster, no actors started.
    restore: Any = AsyncRegime.restore
    buffer = _LoadCountingBuffer()
    regime = SimpleNamespace(buffer=buffer, actors=[None, None], version=-1, restarts=[0, 0])
    books = SimpleNamespace(env_steps=0, warmup_end=0)
    with pytest.raises(CheckpointError, match=rf"^{tmp_path / TRAINER_STATE_FILE}: {says}"):
        restore(regime, tmp_path, source, books)
    assert (buffer.loads, regime.version, regime.restarts) == (0, -1, [0, 0])
    restore(regime, tmp_path, {"buffer_saved": True, "version": 7, "restarts": [1]}, books)
    assert (buffer.loads, regime.version, regime.restarts) == (1, 7, [1, 0])
