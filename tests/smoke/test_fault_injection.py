"""SIGKILL at random moments inside saves of ``best/``, periodic checkpoints and their pruning; resume
after each kill. Every time: each visible checkpoint is complete and loads, ``best/`` evaluates, and in
the end the parameters equal an uninterrupted run's.

A "moment" is one I/O step of a save or a removal (a file flushed to disk, a rename, a file deleted):
the driver counts them and kills itself at the k-th, with k drawn at random for each run. The default
suite kills 4 times; ``-m slow`` kills 20 times.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from border_py import DefaultEvaluatorConfig, GymEnvConfig
from border_py.agents import Dqn, DqnConfig
from border_py.base import Spaces
from border_py.checkpoint import checkpoint_problem, resolve_saved, saved_model_problem
from border_py.model_dir import periodic_checkpoints

ROOT = Path(__file__).parents[2]

_DRIVER = """
import os, shutil, signal, sys
from pathlib import Path
import torch
import border_py.checkpoint as checkpoint
from border_py.model_dir import clear_checkpoints, latest_checkpoint
from border_py import (BufferedRecorder, DefaultEvaluatorConfig, GymEnvConfig, NStepStepProcessorConfig,
                       SimpleReplayBufferConfig, Trainer, TrainerConfig, configure_torch, seed_everything)
from border_py.agents import Dqn, DqnConfig, EpsilonGreedyConfig
from border_py.base import Spaces

model_dir, kill_at, max_opts = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
events = 0

def event() -> None:
    global events
    events += 1
    if events == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)

def counted(function):
    def wrapped(*args, **kwargs):
        event()
        result = function(*args, **kwargs)
        event()
        return result
    return wrapped

def rmtree(path, ignore_errors=False):  # file by file, a moment after each
    for root, dirs, files in os.walk(path, topdown=False):
        for name in files:
            os.unlink(os.path.join(root, name)); event()
        for name in dirs:
            os.rmdir(os.path.join(root, name))
    if os.path.isdir(path):
        os.rmdir(path)

checkpoint._fsync = counted(checkpoint._fsync)
checkpoint.shutil = type("S", (), {"rmtree": staticmethod(rmtree)})
Path.rename = counted(Path.rename)

configure_torch(1)
seed_everything(0)
config = TrainerConfig(max_opts=max_opts, warmup_period=50, eval_interval=5, save_interval=10,
                       keep_checkpoints=2, model_dir=str(model_dir), seed=3, checkpoint_buffer=True)
trainer = Trainer(config, GymEnvConfig(name="CartPole-v1"), NStepStepProcessorConfig(n_steps=2),
                  SimpleReplayBufferConfig(capacity=300))
agent = Dqn(DqnConfig(hidden=(16,), batch_size=16, target_update_interval=10,
                      explorer=EpsilonGreedyConfig(final_step=200)),
            Spaces(obs_shape=(4,), n_actions=2), seed=3)
eval_env = GymEnvConfig(name="CartPole-v1").build(seed=4)
resume_from = latest_checkpoint(model_dir)
if resume_from is None:
    clear_checkpoints(model_dir) if model_dir.is_dir() else None
trainer.train(agent, BufferedRecorder(), DefaultEvaluatorConfig(n_episodes=1).build(eval_env),
              resume_from=resume_from)
torch.save(agent.parts.net.net.state_dict(), model_dir / "final_qnet.pt")
print("events", events)
"""


def _drive(model_dir: Path, kill_at: int, max_opts: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _DRIVER, str(model_dir), str(kill_at), str(max_opts)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _agent() -> Dqn:
    return Dqn(DqnConfig(hidden=(16,), batch_size=16), Spaces(obs_shape=(4,), n_actions=2), seed=0)


def _check_visible_saves(model_dir: Path) -> None:
    """Each visible checkpoint is complete and loads; ``best`` loads and evaluates."""
    numbered = [p for p in model_dir.iterdir() if p.name.isdigit()]
    assert [checkpoint_problem(p) for p in numbered] == [None] * len(numbered)
    assert numbered == [] or periodic_checkpoints(model_dir) != []
    for path in numbered:
        _agent().load_params(path)
    best = resolve_saved(model_dir / "best")
    if best.exists():
        assert saved_model_problem(best) is None
        agent = _agent()
        agent.load_params(best)
        agent.eval()
        env = GymEnvConfig(name="CartPole-v1").build(seed=4)
        score, _ = DefaultEvaluatorConfig(n_episodes=1).build(env).evaluate(agent)
        env.close()
        assert score >= 1.0


def _kill_and_resume(tmp_path: Path, kills: int, seed: int) -> None:
    # About 5 checkpoints of progress per 2 kills (below): enough opt steps that every kill lands in the run.
    max_opts = 30 * kills
    reference = _drive(tmp_path / "reference", kill_at=0, max_opts=max_opts)
    assert reference.returncode == 0, reference.stderr
    events = int(reference.stdout.split()[-1])
    per_checkpoint = events / (max_opts // 10)
    assert per_checkpoint > 20  # best saves, checkpoints and prunes all count moments

    rng = random.Random(seed)
    killed_dir = tmp_path / "killed"
    for _ in range(kills):
        # A fresh process counts its moments from 0 and resumes at the newest checkpoint: a kill within
        # the first checkpoint's worth of moments repeats work, a later one moves the run on.
        done = _drive(killed_dir, kill_at=rng.randint(1, int(3 * per_checkpoint)), max_opts=max_opts)
        assert done.returncode == -signal.SIGKILL, done.stdout + done.stderr
        _check_visible_saves(killed_dir)
    final = _drive(killed_dir, kill_at=0, max_opts=max_opts)
    assert final.returncode == 0, final.stderr
    _check_visible_saves(killed_dir)

    ref = torch.load(tmp_path / "reference" / "final_qnet.pt", weights_only=True)
    got = torch.load(killed_dir / "final_qnet.pt", weights_only=True)
    assert [k for k in ref if not torch.equal(ref[k], got[k])] == []


@pytest.mark.smoke
def test_four_kills_in_saves_and_prunes_never_break_a_visible_checkpoint(tmp_path: Path) -> None:
    _kill_and_resume(tmp_path, kills=4, seed=0)


@pytest.mark.slow
def test_twenty_kills_in_saves_and_prunes_never_break_a_visible_checkpoint(tmp_path: Path) -> None:
    _kill_and_resume(tmp_path, kills=20, seed=1)
