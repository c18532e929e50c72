"""Real processes: killed in the middle of a save, or stopped by SIGINT / SIGTERM, then resumed.

Each test runs training in a subprocess (``border-py`` with a tiny DQN experiment, or the trainer with
counting fakes) so that the kill or the signal is a real one.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
import torch

from border_py import BufferedRecorder, Trainer, TrainerConfig
from border_py.checkpoint import load_meta
from border_py.model_dir import latest_checkpoint
from border_py.testing import (
    CountingEnvConfig,
    FakeAgent,
    ListBufferConfig,
    RecordingStepProcessorConfig,
    ScriptedEvaluator,
)
from tests.run.tiny import tiny_config

ROOT = Path(__file__).parents[2]


def _tiny_config(path: Path, max_opts: int, save_interval: int) -> Path:
    trainer = {"max_opts": max_opts, "save_interval": save_interval}
    return tiny_config(path.parent, path.name, trainer=trainer, agent={"hidden": [32, 32]})


def _python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "border_py", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _qnet(path: Path) -> dict[str, torch.Tensor]:
    state: dict[str, torch.Tensor] = torch.load(path / "qnet.pt", weights_only=True)
    return state


# The second buffer save (checkpoint 40) writes its file and then the process is SIGKILLed: the save
# dies after its first file and before its rename.
_KILL_IN_SECOND_BUFFER_SAVE = """
import os, signal, sys
import numpy as np
real, calls = np.savez, []
def savez(file, **arrays):
    real(file, **arrays)
    calls.append(1)
    if len(calls) == 2:
        os.kill(os.getpid(), signal.SIGKILL)
np.savez = savez
from border_py.run.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.smoke
def test_a_kill_during_a_save_keeps_earlier_saves_and_resume_ends_as_an_unkilled_run(tmp_path: Path) -> None:
    config = _tiny_config(tmp_path / "tiny.yaml", max_opts=60, save_interval=20)
    killed_dir, whole_dir = tmp_path / "killed", tmp_path / "whole"

    killed = _python(
        _KILL_IN_SECOND_BUFFER_SAVE,
        "train",
        "--no-progress",
        "--config",
        str(config),
        "--model-dir",
        str(killed_dir),
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    names = sorted(p.name for p in killed_dir.iterdir())
    assert "20" in names
    assert "40" not in names
    assert any(n.startswith(".40.tmp-") for n in names)  # the half-written save, under a hidden name
    assert latest_checkpoint(killed_dir) == killed_dir / "20"
    assert _cli("eval", "--model-dir", str(killed_dir)).returncode == 0  # best is loadable

    resumed = _cli("resume", "--model-dir", str(killed_dir), "--no-progress")
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming from {killed_dir / '20'}" in resumed.stdout
    leftovers = [p.name for p in killed_dir.iterdir() if p.name.startswith(".") and p.name != ".lock"]
    assert leftovers == []  # the half-written save was cleaned up

    whole = _cli("train", "--config", str(config), "--model-dir", str(whole_dir), "--no-progress")
    assert whole.returncode == 0, whole.stderr
    for name in ("60", "best"):
        a, b = _qnet(killed_dir / name), _qnet(whole_dir / name)
        assert all(torch.equal(a[k], b[k]) for k in a), name
    counters = ("opt_steps", "env_steps", "score")
    killed_best, whole_best = load_meta(killed_dir / "best"), load_meta(whole_dir / "best")
    assert [killed_best[k] for k in counters] == [whole_best[k] for k in counters]


# Trains with counting fakes; the evaluator's scores make best/ be replaced at opt step 4, and the process
# is SIGKILLed between the two renames of that replacement (old best aside, new one not yet in).
_KILL_BETWEEN_RENAMES = """
import os, signal, sys
from pathlib import Path
from border_py import BufferedRecorder, Trainer, TrainerConfig
from border_py.testing import (CountingEnvConfig, FakeAgent, ListBufferConfig, RecordingStepProcessorConfig,
                               ScriptedEvaluator)
real = Path.rename
def rename(self, target):
    if self.name.startswith(".best.tmp-") and not Path(target).exists() and Path(target).name == "best":
        if any(p.name.startswith(".best.old-") for p in self.parent.iterdir()):
            os.kill(os.getpid(), signal.SIGKILL)
    return real(self, target)
Path.rename = rename
config = TrainerConfig(max_opts=8, eval_interval=2, save_interval=2, model_dir=sys.argv[1],
                       checkpoint_buffer=True)
trainer = Trainer(config, CountingEnvConfig(), RecordingStepProcessorConfig(), ListBufferConfig())
trainer.train(FakeAgent(), BufferedRecorder(), ScriptedEvaluator([1.0, 2.0]))
"""


@pytest.mark.smoke
def test_a_kill_between_the_renames_of_best_keeps_it_loadable_and_resume_repairs(tmp_path: Path) -> None:
    killed = _python(_KILL_BETWEEN_RENAMES, str(tmp_path))
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    names = sorted(p.name for p in tmp_path.iterdir())
    assert "best" not in names
    assert any(n.startswith(".best.old-") for n in names)
    assert any(n.startswith(".best.tmp-") for n in names)

    config = TrainerConfig(
        max_opts=8, eval_interval=2, save_interval=2, model_dir=str(tmp_path), checkpoint_buffer=True
    )
    trainer = Trainer(config, CountingEnvConfig(), RecordingStepProcessorConfig(), ListBufferConfig())
    checkpoint = latest_checkpoint(tmp_path)
    assert checkpoint == tmp_path / "2"  # best at 4 comes before checkpoint 4 in the same opt step
    result = trainer.train(
        FakeAgent(), BufferedRecorder(), ScriptedEvaluator([2.0, 1.0]), resume_from=checkpoint
    )
    assert result.opt_steps == 8
    assert sorted(p.name for p in tmp_path.iterdir()) == [".lock", "2", "4", "6", "8", "best"]
    assert load_meta(tmp_path / "best")["score"] == 2.0  # the new best of opt 4 (score 2.0 beats 1.0)


def _wait_for(path: Path, process: subprocess.Popen[str], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, f"{path} did not appear"
        time.sleep(0.1)


@pytest.mark.smoke
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_saves_a_checkpoint_flushes_and_exits_non_zero_then_resume_continues(
    tmp_path: Path, signum: int
) -> None:
    config = _tiny_config(tmp_path / "long.yaml", max_opts=1_000_000, save_interval=100_000)
    model_dir = tmp_path / "run"
    command = [sys.executable, "-m", "border_py", "train", "--no-progress"]
    process = subprocess.Popen(
        [*command, "--config", str(config), "--model-dir", str(model_dir)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_for(model_dir / "best", process)  # the first evaluation (opt 20) is done: training is under way
    os.kill(process.pid, signum)
    _, stderr = process.communicate(timeout=120)

    assert process.returncode == 128 + signum, stderr
    name = signal.Signals(signum).name
    assert f"{name} received: finishing the current step" in stderr
    assert f"training interrupted by {name} at opt step" in stderr
    assert f"continue with: border-py resume --model-dir {model_dir}" in stderr
    checkpoint = latest_checkpoint(model_dir)
    assert checkpoint is not None
    opt_steps = int(checkpoint.name)
    assert opt_steps >= 20
    assert load_meta(checkpoint)["opt_steps"] == opt_steps

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tensorboard's reader imports deprecated modules
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

        events = EventAccumulator(str(model_dir / "tensorboard"))
        events.Reload()
    assert max(e.step for e in events.Scalars("train/loss")) == opt_steps  # flushed before exiting

    more = f"trainer.max_opts={opt_steps + 10}"
    resumed = _cli("resume", "--model-dir", str(model_dir), "--no-progress", "--set", more)
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming from {checkpoint}" in resumed.stdout
    assert f"trained {opt_steps + 10} opt steps" in resumed.stdout
    assert latest_checkpoint(model_dir) == model_dir / str(opt_steps + 10)
