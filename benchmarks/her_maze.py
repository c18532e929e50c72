"""Goal relabelling side by side on gymnasium-robotics' ``PointMaze_UMaze-v3`` (the robotics extra), a harder
goal task than ``FetchReach-v4``: a point mass must go round the U's wall to goals up to ~6 units away.
border_py's SAC with HER (the zoo's ``sac`` entry for the env) and Stable-Baselines3's SAC +
``HerReplayBuffer`` at the same settings and budget (``future`` with k = 4, learning rates 1e-3, 256x256,
batch 256, tau 0.005, gamma 0.99, 1,000 warm-up steps; RL Zoo has no maze entry, see the zoo entry), seed
by seed, on the env's defaults spelled out (sparse reward: 1 within 0.45 of the goal, else 0; the goal stays
put when reached; an episode ends only by truncation at 300 steps).

Each side records the learning curve: the model every ``--interval`` env steps after the 1,000 warm-up
ones, and the final one (ours: its checkpoints; SB3: a copy of its policy's weights), plays the same 50
deterministic episodes (reset seeds 10,000 + i) after training, so the wall-clock is training alone (ours
with the zoo entry's own evaluations, 10 episodes every 5,000 opt steps, and its saves). The success rate
is ``info["success"]`` at an episode's last step: being at the goal after 300 steps. ``baseline`` plays
uniformly random actions on the same episodes (a goal may lie next to the start).

    nice -n 10 taskset -c 1 .venv/bin/python -m benchmarks.her_maze ours --seeds 0
    nice -n 10 taskset -c 1 .venv-peers/bin/python -m benchmarks.her_maze sb3 --seeds 0
    .venv/bin/python -m benchmarks.her_maze baseline
    .venv/bin/python -m benchmarks.her_maze table      # and `curves`: success rate by env steps

Each run writes ``<out>/<side>/seed<N>.json`` (``final``, ours' ``best``, ``curve``: rows of env steps,
success rate, mean return; ``seconds``, ``cpu_seconds`` (the process's CPU time, steadier than the
wall-clock on a shared machine), ``env_steps_per_s``). Both virtualenvs need gymnasium-robotics.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from benchmarks import her_fetch
from benchmarks.her_sides import Task, play, table
from border_py.envs.robotics import import_robotics

ENV = "PointMaze_UMaze-v3"
ENV_KWARGS: dict[str, Any] = {"reward_type": "sparse", "continuing_task": True, "reset_target": False}
"""The env's defaults, spelled out as the zoo entry does: both sides and the evaluation."""
SB3_SETTINGS: dict[str, Any] = {
    **her_fetch.SB3_SETTINGS,
    "gamma": 0.99,
    "policy_kwargs": {"net_arch": [256, 256]},
}
"""The zoo's sac entry for the env (border_py/zoo/sac.yaml) in SB3's names: FetchReach's, with gamma 0.99 and
256x256 networks."""
STEPS = 50_000
INTERVAL = 5_000


def register_env() -> None:
    """Imports gymnasium-robotics (its ids register) with border_py's fix for mujoco 4."""
    import_robotics(ENV)


POINT_MAZE = Task(
    env=ENV,
    register=register_env,
    steps=STEPS,
    sb3_settings=SB3_SETTINGS,
    variants=("",),
    out=Path("runs/her_maze"),
    env_kwargs=ENV_KWARGS,
    episodes=50,
    success_key="success",
)


def curve_row(env_steps: int, scores: dict[str, float]) -> list[float]:
    """One point of a curve: env steps, success rate, mean return."""
    return [env_steps, scores["success_rate"], scores["mean_return"]]


def ours(task: Task, seed: int, interval: int) -> dict[str, Any]:
    """Trains the zoo's entry with ``seed``, a checkpoint every ``interval`` env steps (no buffer in them);
    plays each checkpoint, the final model and the best (by the entry's own evaluations)."""
    from border_py.run import TrainOptions, load_policy, train, zoo

    trainer = {"seed": seed, "max_env_steps": task.steps, "save_interval": None,
               "save_interval_env_steps": interval, "checkpoint_buffer": False}  # fmt: skip
    with tempfile.TemporaryDirectory() as model_dir:
        experiment = zoo.experiment("sac", task.env, model_dir, trainer=trainer)
        start, cpu = time.perf_counter(), time.process_time()
        result = train(experiment, TrainOptions(progress=False, quiet=True))
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        saved = sorted((p for p in Path(model_dir).iterdir() if p.name.isdigit()), key=lambda p: int(p.name))
        curve = []
        for path in saved:  # the final model's checkpoint last
            env_steps = int(yaml.safe_load((path / "meta.yaml").read_text())["env_steps"])
            curve.append(curve_row(env_steps, play(task, load_policy(model_dir, path.name).predict)))
        final = {"success_rate": curve[-1][1], "mean_return": curve[-1][2]}
        best = play(task, load_policy(model_dir).predict)
    return {"final": final, "best": best, "curve": curve, "seconds": seconds, "cpu_seconds": cpu,
            "env_steps": result.env_steps, "opt_steps": result.opt_steps,
            "env_steps_per_s": result.env_steps / seconds}  # fmt: skip


def sb3(task: Task, seed: int, interval: int) -> dict[str, Any]:
    """Trains SB3's SAC + HerReplayBuffer with ``seed``, copying its policy's weights every ``interval`` env
    steps; plays each copy and the final model."""
    import torch
    from stable_baselines3 import SAC, HerReplayBuffer
    from stable_baselines3.common.callbacks import BaseCallback

    class Snapshots(BaseCallback):  # type: ignore[misc]
        """Keeps a copy of the policy's weights every ``interval`` env steps."""

        def __init__(self) -> None:
            super().__init__()
            self.saved: list[tuple[int, dict[str, Any]]] = []

        def _on_step(self) -> bool:
            since = self.num_timesteps - task.sb3_settings["learning_starts"]
            if since > 0 and since % interval == 0 and self.num_timesteps < task.steps:
                self.saved.append((self.num_timesteps, copy.deepcopy(self.model.policy.state_dict())))
            return True

    torch.set_num_threads(1)
    task.register()
    import gymnasium as gym

    env = gym.make(task.env, **task.env_kwargs)
    model = SAC("MultiInputPolicy", env, replay_buffer_class=HerReplayBuffer, seed=seed, device="cpu",
                **task.sb3_settings)  # fmt: skip
    snapshots = Snapshots()
    start, cpu = time.perf_counter(), time.process_time()
    model.learn(task.steps, callback=snapshots)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    final_weights = copy.deepcopy(model.policy.state_dict())

    def predict(obs: dict[str, Any]) -> Any:
        return model.predict(obs, deterministic=True)[0]

    curve = []
    for env_steps, weights in snapshots.saved:
        model.policy.load_state_dict(weights)
        curve.append(curve_row(env_steps, play(task, predict)))
    model.policy.load_state_dict(final_weights)
    final = play(task, predict)
    curve.append(curve_row(task.steps, final))
    return {"final": final, "curve": curve, "seconds": seconds, "cpu_seconds": cpu, "env_steps": task.steps,
            "env_steps_per_s": task.steps / seconds}  # fmt: skip


def baseline(task: Task) -> dict[str, Any]:
    """Uniformly random actions (seeded) on the evaluation episodes."""
    rng = np.random.default_rng(0)
    final = play(task, lambda obs: rng.uniform(-1.0, 1.0, size=2).astype(np.float32))
    return {"final": final, "seconds": 0.0}


def curve_table(out: Path) -> str:
    """The curves as markdown: a row per env step, a column per side, each seed's success rate."""
    sides = sorted(p.name for p in out.iterdir() if p.is_dir() and p.name != "random")
    curves = {
        side: [json.loads(f.read_text())["curve"] for f in sorted((out / side).glob("seed*.json"))]
        for side in sides
    }
    steps = sorted({int(row[0]) for side in sides for curve in curves[side] for row in curve})
    lines = ["| env steps | " + " | ".join(sides) + " |", "|---" * (len(sides) + 1) + "|"]
    for step in steps:
        cells = [
            ", ".join(f"{row[1]:.2f}" for curve in curves[side] for row in curve if int(row[0]) == step)
            for side in sides
        ]
        lines.append(f"| {step:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``ours``, ``sb3`` or ``baseline`` over ``--seeds`` into ``--out``; ``table`` and ``curves`` read them
    back."""
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("side", choices=["ours", "sb3", "baseline", "table", "curves"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--steps", type=int, default=STEPS, help="both sides' budget in env steps")
    parser.add_argument("--interval", type=int, default=INTERVAL, help="env steps between curve points")
    parser.add_argument("--out", type=Path, default=POINT_MAZE.out)
    args = parser.parse_args(argv)
    task = replace(POINT_MAZE, steps=args.steps)
    if args.side in ("table", "curves"):
        print(table(args.out) if args.side == "table" else curve_table(args.out))
        return 0
    name = {"ours": "ours", "sb3": "sb3_her", "baseline": "random"}[args.side]
    for seed in args.seeds if args.side != "baseline" else [0]:
        if args.side == "baseline":
            row = baseline(task)
        else:
            row = (ours if args.side == "ours" else sb3)(task, seed, args.interval)
        path = args.out / name / f"seed{seed}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(row, indent=1))
        print(name, seed, json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
