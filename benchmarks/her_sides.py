"""What the goal-relabelling benchmarks share (``benchmarks.her_point_goal``, ``benchmarks.her_fetch``):
border_py's zoo entry and Stable-Baselines3's SAC (or sb3-contrib's TQC, `Task.algo`) + ``HerReplayBuffer``
trained at the same settings and budget, seed by seed, each final model playing the same deterministic
episodes (reset seeds ``eval_seed + i``): the success rate (``info["is_success"]``, or the task's
``success_key``, at the episode's last step), the mean return, and the training wall-clock and CPU time
(ours includes the zoo entry's evaluations and saves; SB3's is ``learn``; the process's CPU time is
steadier than the wall-clock when others' runs share the cores).

The SB3 side runs in the peers' virtualenv (``benchmarks/peers_venv.sh``): `Task.register` makes the env
id known there as border_py's env path would. Each run writes ``<out>/<side>/seed<N>.json``; ``table``
reads them back.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

Predict = Callable[[dict[str, Any]], Any]
"""A greedy policy on the env's dict observation."""

SB3_CLASSES = {"sac": ("stable_baselines3", "SAC"), "tqc": ("sb3_contrib", "TQC")}
"""The peers' class (module, name) for each algorithm a `Task` may name."""


@dataclass(frozen=True)
class Task:
    """One goal-conditioned benchmark: the env, the budget, the zoo entry and SB3's same settings."""

    env: str
    """The Gymnasium id (the zoo entry's key)."""
    register: Callable[[], None]
    """Makes ``env`` known to Gymnasium in a process (either virtualenv)."""
    steps: int
    """In env steps: each side's budget."""
    sb3_settings: dict[str, Any]
    """The SB3 class's keyword arguments: the zoo entry's settings in SB3's names."""
    variants: tuple[str, ...]
    """The zoo variants ``ours`` may train (``""``: the entry itself)."""
    out: Path
    """Where the runs' JSON files go by default."""
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    """Keyword arguments of ``gymnasium.make``, both sides and the evaluation."""
    episodes: int = 100
    """The evaluation episodes each final model plays."""
    eval_seed: int = 10_000
    """Episode ``i`` is reset with seed ``eval_seed + i``."""
    success_key: str = "is_success"
    """The ``info`` key that says, at an episode's last step, whether it reached its goal (a maze's:
    ``success``)."""
    algo: str = "sac"
    """The zoo file ``ours`` trains from and the SB3 class ``sb3`` trains (a key of `SB3_CLASSES`)."""

    def __post_init__(self) -> None:
        if self.algo not in SB3_CLASSES:
            raise ValueError(f"algo {self.algo!r} is none of {sorted(SB3_CLASSES)}")


def play(task: Task, predict: Predict) -> dict[str, float]:
    """The success rate and mean return of ``predict`` over the task's evaluation episodes."""
    task.register()
    env: Any = gym.make(task.env, **task.env_kwargs)
    successes, returns = 0, []
    for i in range(task.episodes):
        obs, _ = env.reset(seed=task.eval_seed + i)
        total, done, info = 0.0, False, {}
        while not done:
            obs, reward, terminated, truncated, info = env.step(predict(obs))
            total, done = total + float(reward), terminated or truncated
        successes += bool(info[task.success_key])
        returns.append(total)
    env.close()
    return {"success_rate": successes / task.episodes, "mean_return": float(np.mean(returns))}


def ours(task: Task, variant: str, seed: int) -> dict[str, Any]:
    """Trains the zoo's entry (``variant``, ``""`` for the entry itself) with ``seed``; plays its final
    and best models."""
    from border_py.run import TrainOptions, load_policy, train, zoo

    with tempfile.TemporaryDirectory() as model_dir:
        experiment = zoo.experiment(
            task.algo,
            task.env,
            model_dir,
            variant=variant or None,
            trainer={"seed": seed, "max_env_steps": task.steps},
        )
        start, cpu = time.perf_counter(), time.process_time()
        result = train(experiment, TrainOptions(progress=False, quiet=True))
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        final = load_policy(model_dir, str(result.opt_steps))
        best = load_policy(model_dir)
        row = {"final": play(task, final.predict), "best": play(task, best.predict), "seconds": seconds}
    return {**row, "cpu_seconds": cpu, "opt_steps": result.opt_steps, "env_steps": result.env_steps}


def sb3(task: Task, seed: int, normalize: bool = False) -> dict[str, Any]:
    """Trains SB3's SAC (or sb3-contrib's TQC, ``task.algo``) + HerReplayBuffer with ``seed``; plays its
    final model. ``normalize``: observations and rewards through ``VecNormalize`` (RL Zoo's ``normalize:
    true``), frozen for the evaluation."""
    import torch
    from stable_baselines3 import HerReplayBuffer
    from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

    torch.set_num_threads(1)
    task.register()
    env: Any = gym.make(task.env, **task.env_kwargs)
    if normalize:
        env = VecNormalize(DummyVecEnv([lambda: env]), gamma=task.sb3_settings["gamma"])
    module, name = SB3_CLASSES[task.algo]
    algorithm = getattr(importlib.import_module(module), name)
    model = algorithm(
        "MultiInputPolicy", env, replay_buffer_class=HerReplayBuffer, seed=seed, device="cpu",
        **task.sb3_settings,
    )  # fmt: skip
    start, cpu = time.perf_counter(), time.process_time()
    model.learn(task.steps)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    if normalize:
        env.training = False
    scale = env.normalize_obs if normalize else lambda obs: obs
    final = play(task, lambda obs: model.predict(scale(obs), deterministic=True)[0])
    return {"final": final, "seconds": seconds, "cpu_seconds": cpu, "env_steps": task.steps}


def table(out: Path) -> str:
    """One markdown row per side: success rate and return of the final models (mean over seeds, and each
    seed's), the mean wall-clock and the mean CPU time (``-`` where a run did not record it)."""
    lines = [
        "| side | seeds | success rate (final) | mean return (final) | wall-clock s | CPU s |",
        "|---|---|---|---|---|---|",
    ]
    for side in sorted(p.name for p in out.iterdir() if p.is_dir()):
        rows = [json.loads(f.read_text()) for f in sorted((out / side).glob("seed*.json"))]
        if not rows:
            continue
        rates = [r["final"]["success_rate"] for r in rows]
        returns = [r["final"]["mean_return"] for r in rows]
        seconds = statistics.mean(r["seconds"] for r in rows)
        cpus = [r["cpu_seconds"] for r in rows if "cpu_seconds" in r]
        cpu = f"{statistics.mean(cpus):.0f}" if len(cpus) == len(rows) else "-"
        each = ", ".join(f"{x:.2f}" for x in rates)
        rate, mean_return = statistics.mean(rates), statistics.mean(returns)
        row = f"| {side} | {len(rows)} | {rate:.2f} ({each}) | {mean_return:.1f} | {seconds:.0f} | {cpu} |"
        lines.append(row)
    return "\n".join(lines)


def main(task: Task, doc: str | None, argv: list[str] | None = None, others: Sequence[Task] = ()) -> int:
    """The benchmark's command line: ``ours [--variant V]``, ``sb3 [--normalize]`` or ``table``, over
    ``--seeds``, into ``--out`` (the task's own by default); ``--steps`` gives both sides another budget
    (ours: the zoo entry's ``trainer.max_env_steps``). ``--algo`` picks ``task`` or one of ``others`` (the
    same benchmark with another algorithm) by its `Task.algo`."""
    tasks = {t.algo: t for t in (task, *others)}
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("side", choices=["ours", "sb3", "table"])
    parser.add_argument("--algo", choices=list(tasks), default=task.algo, help="both sides' algorithm")
    variants = sorted({v for t in tasks.values() for v in t.variants})
    parser.add_argument("--variant", choices=variants, help="the zoo variant ours trains (the task's first)")
    parser.add_argument("--normalize", action="store_true", help="SB3 with VecNormalize (RL Zoo's)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--steps", type=int, help="both sides' budget in env steps (the task's by default)")
    parser.add_argument("--out", type=Path, help="the runs' folder (the task's by default)")
    args = parser.parse_args(argv)
    task = tasks[args.algo]
    steps, out = task.steps if args.steps is None else args.steps, args.out or task.out
    task = replace(task, steps=steps, out=out)
    variant = task.variants[0] if args.variant is None else args.variant
    if variant not in task.variants:
        parser.error(f"--variant {variant!r}: {task.algo}'s are {list(task.variants)}")
    if args.side == "table":
        print(table(task.out))
        return 0
    sb3_name = "sb3_her_normalized" if args.normalize else "sb3_her"
    name = (variant or "ours") if args.side == "ours" else sb3_name
    for seed in args.seeds:
        row = ours(task, variant, seed) if args.side == "ours" else sb3(task, seed, args.normalize)
        path = task.out / name / f"seed{seed}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(row, indent=1))
        print(name, seed, json.dumps(row), flush=True)
    return 0
