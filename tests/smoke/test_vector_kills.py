"""PPO in the zoo's CartPole vector env (8 sub-envs), killed at random moments (SIGKILL, and SIGTERM, which
saves a checkpoint in the middle of a rollout) and resumed after each with ``resume``: its final
checkpoint equals an uninterrupted run's, tensor by tensor. A moment is one sampler call, drawn at random
for each run; the run saves every 2 rollouts."""

from __future__ import annotations

import random
import signal
import subprocess
from pathlib import Path

import pytest

from tests.checkpoint_diff import checkpoint_differences
from tests.kills import drive

MAX_OPTS = 8
CHANGES = {
    "trainer": {"max_opts": MAX_OPTS, "max_env_steps": None, "eval_interval": 3, "record_interval": 1,
                "save_interval": 2},
    "evaluator": {"n_episodes": 2},
}  # fmt: skip


def _drive(model_dir: Path, kill_at: int, signum: int) -> subprocess.CompletedProcess[str]:
    return drive(model_dir, "ppo", "CartPole-v1", CHANGES, "sample", kill_at, signum)


@pytest.mark.smoke
def test_ppo_in_a_vector_env_killed_at_random_moments_ends_as_an_uninterrupted_run(tmp_path: Path) -> None:
    reference = _drive(tmp_path / "reference", kill_at=0, signum=0)
    assert reference.returncode == 0, reference.stderr
    rng = random.Random(0)
    killed = tmp_path / "killed"
    finished = False
    for signum in (signal.SIGKILL, signal.SIGTERM, signal.SIGKILL, signal.SIGTERM):
        # A fresh process counts sampler calls from 0 and resumes at the newest checkpoint (a save every
        # 64 calls): up to 1.5 saves' worth, so some kills repeat work and others move the run on.
        done = _drive(killed, kill_at=rng.randint(1, 96), signum=signum)
        expected = -signal.SIGKILL if signum == signal.SIGKILL else 128 + signum
        assert done.returncode in (expected, 0), done.stdout + done.stderr
        finished = done.returncode == 0  # the run ended before its kill came
        if finished:
            break
    if not finished:
        final = _drive(killed, kill_at=0, signum=0)
        assert final.returncode == 0, final.stderr
    assert checkpoint_differences(tmp_path / "reference" / str(MAX_OPTS), killed / str(MAX_OPTS)) == []
