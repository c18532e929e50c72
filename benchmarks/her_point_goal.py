"""Goal relabelling side by side on ``border_py/PointGoal-v0``'s sparse reward (0 within 0.05 of the goal,
else -1): border_py's SAC with HER (the zoo's ``sac`` entry, variant ``her``), the same SAC without it
(variant ``sparse``), and Stable-Baselines3's SAC + ``HerReplayBuffer`` at the same settings and budget
(5,000 env steps; learning rates 1e-3, 256x256, batch 256, tau 0.005, gamma 0.99, 256 warm-up steps, a
100,000 buffer, ``future`` with k = 4), seed by seed. Each final model plays the same 100 deterministic
episodes (reset seeds 10,000 + i): the success rate (``info["is_success"]`` at the episode's last step)
and the mean return; with the training wall-clock (ours includes the zoo entry's evaluations and saves).

    nice -n 10 .venv/bin/python -m benchmarks.her_point_goal ours --variant her --seeds 0 1 2
    nice -n 10 .venv/bin/python -m benchmarks.her_point_goal ours --variant sparse --seeds 0 1 2
    nice -n 10 .venv-peers/bin/python -m benchmarks.her_point_goal sb3 --seeds 0 1 2
    .venv/bin/python -m benchmarks.her_point_goal table

The SB3 side runs in the peers' virtualenv (``benchmarks/peers_venv.sh``), loading the env's module by its
path. Each run writes ``<out>/<side>/seed<N>.json``; the sides are ``benchmarks.her_sides``'s.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym

from benchmarks.her_sides import Task, main

ENV = "border_py/PointGoal-v0"
ENV_FILE = Path(__file__).resolve().parents[1] / "border_py" / "envs" / "goal_envs.py"
SB3_SETTINGS: dict[str, Any] = {
    "learning_rate": 1e-3,
    "buffer_size": 100_000,
    "learning_starts": 256,
    "batch_size": 256,
    "tau": 0.005,
    "gamma": 0.99,
    "train_freq": 1,
    "gradient_steps": 1,
    "policy_kwargs": {"net_arch": [256, 256]},
    "replay_buffer_kwargs": {"n_sampled_goal": 4, "goal_selection_strategy": "future"},
}
"""The zoo's sac entry for the env (border_py/zoo/sac.yaml, variant her) in SB3's names."""


def register_env() -> None:
    """Registers ``border_py/PointGoal-v0`` from its file (no border_py needed)."""
    if ENV in gym.registry:
        return
    spec = importlib.util.spec_from_file_location("point_goal_envs", ENV_FILE)
    assert spec is not None
    assert spec.loader is not None
    spec.loader.exec_module(importlib.util.module_from_spec(spec))


POINT_GOAL = Task(
    env=ENV,
    register=register_env,
    steps=5_000,
    sb3_settings=SB3_SETTINGS,
    variants=("her", "sparse"),
    out=Path("runs/her_point_goal"),
    env_kwargs={"reward_type": "sparse"},
)


if __name__ == "__main__":
    sys.exit(main(POINT_GOAL, __doc__))
