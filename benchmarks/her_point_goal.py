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

The SB3 side runs in the peers' virtualenv (``benchmarks/peers_venv.sh``), which has no border_py: it loads
the env's module by its path. Each run writes ``<out>/<side>/seed<N>.json``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

ENV = "border_py/PointGoal-v0"
ENV_FILE = Path(__file__).resolve().parents[1] / "border_py" / "envs" / "goal_envs.py"
STEPS = 5_000
EPISODES = 100
EVAL_SEED = 10_000
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


def play(predict: Callable[[dict[str, Any]], Any]) -> dict[str, float]:
    """The success rate and mean return of ``predict`` over the benchmark's episodes."""
    register_env()
    env: Any = gym.make(ENV, reward_type="sparse")
    successes, returns = 0, []
    for i in range(EPISODES):
        obs, _ = env.reset(seed=EVAL_SEED + i)
        total, done, info = 0.0, False, {}
        while not done:
            obs, reward, terminated, truncated, info = env.step(predict(obs))
            total, done = total + float(reward), terminated or truncated
        successes += bool(info["is_success"])
        returns.append(total)
    env.close()
    return {"success_rate": successes / EPISODES, "mean_return": float(np.mean(returns))}


def ours(variant: str, seed: int) -> dict[str, Any]:
    """Trains the zoo's entry (``variant``) with ``seed``; plays its final and best models."""
    from border_py.run import TrainOptions, load_policy, train, zoo

    with tempfile.TemporaryDirectory() as model_dir:
        experiment = zoo.experiment("sac", ENV, model_dir, variant=variant, trainer={"seed": seed})
        start = time.perf_counter()
        result = train(experiment, TrainOptions(progress=False, quiet=True))
        seconds = time.perf_counter() - start
        final = load_policy(model_dir, str(result.opt_steps))
        best = load_policy(model_dir)
        row = {"final": play(final.predict), "best": play(best.predict), "seconds": seconds}
    return {**row, "opt_steps": result.opt_steps, "env_steps": result.env_steps}


def sb3(seed: int, steps: int = STEPS) -> dict[str, Any]:
    """Trains SB3's SAC + HerReplayBuffer with ``seed``; plays its final model."""
    import torch
    from stable_baselines3 import SAC, HerReplayBuffer

    torch.set_num_threads(1)
    register_env()
    env = gym.make(ENV, reward_type="sparse")
    model = SAC(
        "MultiInputPolicy", env, replay_buffer_class=HerReplayBuffer, seed=seed, device="cpu", **SB3_SETTINGS
    )
    start = time.perf_counter()
    model.learn(steps)
    seconds = time.perf_counter() - start
    final = play(lambda obs: model.predict(obs, deterministic=True)[0])
    return {"final": final, "seconds": seconds, "env_steps": steps}


def table(out: Path) -> str:
    """One markdown row per side: success rate and return of the final models (mean over seeds, and each
    seed's), and the mean wall-clock."""
    lines = [
        "| side | seeds | success rate (final) | mean return (final) | wall-clock s |",
        "|---|---|---|---|---|",
    ]
    for side in sorted(p.name for p in out.iterdir() if p.is_dir()):
        rows = [json.loads(f.read_text()) for f in sorted((out / side).glob("seed*.json"))]
        if not rows:
            continue
        rates = [r["final"]["success_rate"] for r in rows]
        returns = [r["final"]["mean_return"] for r in rows]
        seconds = statistics.mean(r["seconds"] for r in rows)
        each = ", ".join(f"{x:.2f}" for x in rates)
        rate, mean_return = statistics.mean(rates), statistics.mean(returns)
        lines.append(f"| {side} | {len(rows)} | {rate:.2f} ({each}) | {mean_return:.1f} | {seconds:.0f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("side", choices=["ours", "sb3", "table"])
    parser.add_argument("--variant", choices=["her", "sparse"], default="her")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--out", type=Path, default=Path("runs/her_point_goal"))
    args = parser.parse_args(argv)
    if args.side == "table":
        print(table(args.out))
        return 0
    name = args.variant if args.side == "ours" else "sb3_her"
    for seed in args.seeds:
        row = ours(args.variant, seed) if args.side == "ours" else sb3(seed)
        path = args.out / name / f"seed{seed}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(row, indent=1))
        print(name, seed, json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
