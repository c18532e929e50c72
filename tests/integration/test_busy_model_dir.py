"""50 ``border-py train`` started at once on one model directory: one trains, 49 are refused in one line
naming the directory as busy (exit status 2), and nothing is half-written.

A refusal comes before torch is imported (`border_py.seeding` imports it on first use), so 49 refused
processes cost about half a CPU second each, not three.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from border_py.checkpoint import checkpoint_problem, saved_model_problem
from border_py.run.rundir import RunDir

ROOT = Path(__file__).parents[2]
STARTED = 50


def test_fifty_trains_started_at_once_on_one_model_dir_one_runs_the_others_refuse_in_one_line(
    tmp_path: Path,
) -> None:
    model_dir = tmp_path / "run"
    command = [
        sys.executable, "-m", "border_py", "train", "dqn", "--env", "CartPole-v1", "--no-progress",
        "--model-dir", str(model_dir), "--set", "trainer.max_opts=1000000", "trainer.warmup_period=100",
        "trainer.eval_interval=20", "trainer.save_interval=20", "evaluator.n_episodes=1",
        "replay_buffer.capacity=1000", "agent.hidden=[16]",
    ]  # fmt: skip
    processes = [
        subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(STARTED)
    ]
    try:
        deadline = time.monotonic() + 240
        while sum(p.poll() is None for p in processes) > 1 and time.monotonic() < deadline:
            time.sleep(0.2)
        running = [p for p in processes if p.poll() is None]
        assert len(running) == 1  # the budget outlasts every start: the others were refused
        runner = running[0]
        while checkpoint_problem(model_dir / "20") is not None:  # it trains, and saves
            assert runner.poll() is None, runner.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.2)
        os.kill(runner.pid, signal.SIGINT)
        runner.wait(timeout=120)
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
        outputs = [process.communicate() for process in processes]  # and the pipes closed
    assert runner.returncode == 128 + signal.SIGINT, outputs[processes.index(runner)]
    busy = re.compile(
        rf"error: model_dir '{re.escape(str(model_dir))}' is in use by (process {runner.pid}|another "
        r"process) \(a training run holds .*\.lock\); wait for it to finish, stop it, or train into another "
        r"model_dir"
    )
    refused = [output for p, output in zip(processes, outputs, strict=True) if p is not runner]
    assert [p.returncode for p in processes if p is not runner] == [2] * (STARTED - 1)
    assert [out for out, _ in refused] == [""] * (STARTED - 1)
    assert [err for _, err in refused if not busy.fullmatch(err.rstrip("\n"))] == []

    hidden = [p.name for p in model_dir.iterdir() if p.name.startswith(".") and p.name != ".lock"]
    assert hidden == []
    numbered = [p for p in model_dir.iterdir() if p.name.isdigit()]
    assert numbered != []
    assert [checkpoint_problem(p) for p in numbered] == [None] * len(numbered)
    assert saved_model_problem(model_dir / "best") is None
    assert RunDir(model_dir).read_config_data()["trainer"]["max_opts"] == 1_000_000


_REFUSED_WITHOUT_TORCH = """
import fcntl, os, sys
from border_py.run.cli import main
lock = os.open(os.path.join(sys.argv[1], ".lock"), os.O_RDWR | os.O_CREAT)
fcntl.flock(lock, fcntl.LOCK_EX)  # this process holds it: main's own open file is refused
status = main(["train", "dqn", "--env", "CartPole-v1", "--model-dir", sys.argv[1]])
print(status, "torch" in sys.modules)
"""


def test_a_train_refused_on_a_busy_model_dir_never_imports_torch(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _REFUSED_WITHOUT_TORCH, str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stdout == "2 False\n", done.stderr
    assert "is in use by" in done.stderr
