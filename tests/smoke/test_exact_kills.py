"""DQN (CartPole) and SAC (Pendulum) stopped at random moments and resumed: the final checkpoint and
``best/`` equal an uninterrupted run's, tensor by tensor (parameters, optimiser and agent state, buffer,
trainer state with every RNG).

- ``kill -9`` at random moments: sampler calls, and I/O steps of saves of ``best/``, of checkpoints and of
  the pruning of old ones (``keep_checkpoints: 2``); after each kill every visible save is whole.
- SIGTERM and SIGINT during a save, during a resume (while the checkpoint loads) and during an evaluation:
  the run stops with exit status 128 + the signal and a checkpoint, leaving nothing half-written.

`tests.kills` drives each run in a subprocess that signals itself at the chosen moment.
"""

from __future__ import annotations

import random
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

from border_py.checkpoint import checkpoint_problem, resolve_saved, saved_model_problem
from border_py.model_dir import latest_checkpoint
from border_py.replay_buffer.npz import read_npz
from tests.checkpoint_diff import checkpoint_differences
from tests.kills import Moment, drive

MAX_OPTS = 60
_TRAINER = {"max_opts": MAX_OPTS, "eval_interval": 20, "save_interval": 10, "record_interval": 10,
            "keep_checkpoints": 2}  # fmt: skip
RUNS: dict[str, tuple[str, dict[str, Any]]] = {
    # algo: env, changes (a whole run: about 160 I/O moments, 220 sampler calls for DQN, 124 for SAC)
    "dqn": (
        "CartPole-v1",
        {
            "trainer": {**_TRAINER, "warmup_period": 100},
            "replay_buffer": {"capacity": 1000},
            "agent": {"batch_size": 16, "hidden": [16], "target_update_interval": 10},
            "evaluator": {"n_episodes": 1},
        },
    ),
    "sac": (
        "Pendulum-v1",
        {
            "trainer": {**_TRAINER, "warmup_period": 64, "max_env_steps": None},
            "replay_buffer": {"capacity": 1000},
            "agent": {"batch_size": 16, "actor_hidden": [16], "critic_hidden": [16]},
            "evaluator": {"n_episodes": 1},
        },
    ),
}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """An uninterrupted run's directory per algorithm, trained once for the module."""
    done: dict[str, Path] = {}

    def run(algo: str) -> Path:
        if algo not in done:
            path = tmp_path_factory.mktemp(f"reference-{algo}")
            whole = drive(path, algo, RUNS[algo][0], RUNS[algo][1])
            assert whole.returncode == 0, whole.stderr
            done[algo] = path
        return done[algo]

    return run


def _run(
    model_dir: Path, algo: str, moment: Moment = "sample", kill_at: int = 0, signum: int = 0
) -> subprocess.CompletedProcess[str]:
    return drive(model_dir, algo, RUNS[algo][0], RUNS[algo][1], moment, kill_at, signum)


def _assert_saves_whole(model_dir: Path) -> None:
    """Every visible checkpoint and ``best/`` lists all its files, and each loads (``.pt`` as tensors,
    ``.npz`` as arrays)."""
    numbered = [p for p in model_dir.iterdir() if p.name.isdigit()]
    assert [checkpoint_problem(p) for p in numbered] == [None] * len(numbered)
    best = resolve_saved(model_dir / "best")
    assert not best.exists() or saved_model_problem(best) is None
    for file in (f for save in [*numbered, best] if save.exists() for f in save.iterdir()):
        if file.suffix == ".pt":
            torch.load(file, weights_only=True)
        elif file.suffix == ".npz":
            read_npz(file, "buffer")


def _assert_as_uninterrupted(model_dir: Path, algo: str, reference: Path) -> None:
    """Resumed to the end, ``model_dir`` ends with the very checkpoint and ``best/`` of ``reference``."""
    if latest_checkpoint(model_dir) != model_dir / str(MAX_OPTS):  # a kill may come after the last save
        last = _run(model_dir, algo)
        assert last.returncode == 0, last.stderr
    for name in (str(MAX_OPTS), "best"):
        assert checkpoint_differences(reference / name, model_dir / name) == [], name


@pytest.mark.parametrize("algo", sorted(RUNS))
def test_kill_9_at_random_moments_in_steps_saves_and_prunes_ends_as_an_uninterrupted_run(
    algo: str, reference: Callable[[str], Path], tmp_path: Path
) -> None:
    rng = random.Random(53)
    killed = tmp_path / "killed"
    # A fresh process counts its moments from 0 and resumes at the newest checkpoint: each kill lands
    # within about two saves' worth, so kills repeat work and move the run on.
    plan: list[tuple[Moment, int]] = [("io", 45), ("sample", 40), ("io", 45), ("sample", 40), ("io", 45)]
    for moment, top in plan:
        done = _run(killed, algo, moment, rng.randint(1, top), signal.SIGKILL)
        assert done.returncode in (-signal.SIGKILL, 0), done.stderr
        _assert_saves_whole(killed)
        if done.returncode == 0:  # the run ended before the kill came
            break
    _assert_as_uninterrupted(killed, algo, reference(algo))


@pytest.mark.parametrize("algo", sorted(RUNS))
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_sigterm_or_sigint_in_a_save_a_resume_and_an_evaluation_stops_cleanly_and_resumes_exactly(
    algo: str, signum: int, reference: Callable[[str], Path], tmp_path: Path
) -> None:
    rng = random.Random(signum)
    stopped = tmp_path / "stopped"
    # In a save (the first saves' I/O steps), while the checkpoint loads (1: its check in the run
    # layer, 2: the buffer and unfinished episode in the trainer), then in the next evaluation.
    plan: list[tuple[Moment, int]] = [
        ("io", rng.randint(1, 30)),
        ("restore", 1),
        ("restore", 2),
        ("evaluate", 1),
    ]
    for moment, kill_at in plan:
        newest = latest_checkpoint(stopped) if stopped.exists() else None
        done = _run(stopped, algo, moment, kill_at, signum)
        assert done.returncode == 128 + signum, done.stderr
        lines = done.stderr.splitlines()
        name = signal.Signals(signum).name
        if moment == "restore" and kill_at == 1:  # nothing loaded yet: stopped at once, in one line
            assert lines == [
                f"stopped at once by {name}: saves are atomic, so every checkpoint is whole or absent"
            ]
            assert latest_checkpoint(stopped) == newest
        else:
            assert f"training interrupted by {name} at opt step" in done.stderr
            checkpoint = latest_checkpoint(stopped)
            assert checkpoint is not None
            assert f"checkpoint saved to {checkpoint}" in done.stderr
        hidden = [p.name for p in stopped.iterdir() if p.name.startswith(".") and p.name != ".lock"]
        assert hidden == []  # no save left half-done, even aside
        _assert_saves_whole(stopped)
    _assert_as_uninterrupted(stopped, algo, reference(algo))
