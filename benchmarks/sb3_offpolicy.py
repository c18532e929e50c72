"""Stable-Baselines3's TD3 or SAC on a MuJoCo env with RL Zoo's settings, evaluated as the MuJoCo campaign
evaluates border_py (5 deterministic episodes every 10,000 env steps, 10 at the end, with the distance
travelled): the side-by-side run that says which side a gap to RL Zoo's table is on (issue 37, item 2).

    nice -n 19 .venv/bin/python -m benchmarks.sb3_offpolicy --algo td3 --env Hopper-v5 --seed 0
    .venv/bin/python -m benchmarks.sb3_offpolicy --algo td3 --env Hopper-v5 --seed 0 \
        --ours runs/mujoco/td3/Hopper-v5/seed0 --figure docs/images/td3_Hopper-v5_sb3.png

A 1M run takes hours, so it saves the model, its replay buffer and the evaluations so far every
``--save-every`` env steps (and on SIGTERM or Ctrl-C, at the next evaluation point) under
``<out>/<algo>/<env>/seed<N>/``, and the same command carries on from there. Carrying on is not bit for
bit: SB3 does not save its random generators' states, and the env starts a new episode. When the command
stops it writes ``seed<N>.json`` beside that folder: the evaluations (env steps, return, forward distance
an episode), the best, the wall-clock and its split into collecting env steps (acting and stepping), the
rest of ``learn`` (gradient steps) and evaluation; ``final`` appears once the run has reached ``--steps``.
With ``--ours`` it trains nothing: it prints both sides' evaluations every 100,000 env steps (as far as
SB3's run got) and, with ``--figure``, draws both curves.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch

from benchmarks.sb3_mujoco import _rollout_timer
from campaigns.jobs import JOBS

# RL Zoo's hyperparams/td3.yml and sac.yml for HalfCheetah, Hopper and Walker2d (v3): SB3's defaults (one
# update per env step, batch 256, tau 0.005, gamma 0.99, buffer 1e6) but 10,000 warm-up env steps, and
# for TD3 [400, 300] networks, lr 1e-3 and Gaussian exploration of std 0.1. The same as the zoo's
# border_py/zoo/td3.yaml and sac.yaml.
SETTINGS: dict[str, dict[str, Any]] = {
    "td3": {"learning_starts": 10_000, "learning_rate": 1e-3, "policy_kwargs": {"net_arch": [400, 300]}},
    "sac": {"learning_starts": 10_000},
}
ENVS = ["HalfCheetah-v5", "Hopper-v5", "Walker2d-v5"]


def evaluate(model: Any, env_id: str, episodes: int, seed: int) -> tuple[float, float]:
    """The mean return of ``episodes`` deterministic episodes (reset seeds ``seed + i``) and the mean
    distance travelled along x an episode (``x_position`` at the end less the body's ``qpos[0]`` after
    the reset), so that standing still cannot pass for learning."""
    env: Any = gym.make(env_id)
    returns: list[float] = []
    distances: list[float] = []
    for i in range(episodes):
        obs, _ = env.reset(seed=seed + i)
        start, total, done, info = float(env.unwrapped.data.qpos[0]), 0.0, False, {}
        while not done:
            action, _ = model.predict(obs, deterministic=True)
            obs, reward, terminated, truncated, info = env.step(action)
            total += float(reward)
            done = terminated or truncated
        returns.append(total)
        distances.append(float(info["x_position"]) - start)
    env.close()
    return float(np.mean(returns)), float(np.mean(distances))


def build(algo: str, env_id: str, seed: int) -> Any:
    """A new SB3 model with RL Zoo's settings."""
    from stable_baselines3 import SAC, TD3
    from stable_baselines3.common.noise import NormalActionNoise

    settings = dict(SETTINGS[algo])
    env = gym.make(env_id)
    if algo == "td3":
        shape = env.action_space.shape
        assert shape is not None
        settings["action_noise"] = NormalActionNoise(np.zeros(shape), 0.1 * np.ones(shape))
    cls = TD3 if algo == "td3" else SAC
    return cls("MlpPolicy", env, seed=seed, device="cpu", verbose=0, **settings)


class Saved:
    """The run's folder: the model, its replay buffer and ``state.json`` (evaluations and seconds). A save
    is written whole into ``<folder>.tmp`` and swapped in by renames, the last save kept as ``<folder>.old``
    until then, so a kill at any point leaves one complete save to carry on from."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.tmp = folder.with_name(folder.name + ".tmp")
        self.old = folder.with_name(folder.name + ".old")

    def load(self, algo: str, env_id: str) -> tuple[Any, dict[str, Any]] | None:
        """The saved model (with its replay buffer) and state, or ``None`` when nothing was saved."""
        from stable_baselines3 import SAC, TD3

        folder = self.folder if (self.folder / "state.json").exists() else self.old
        if not (folder / "state.json").exists():
            return None
        state = json.loads((folder / "state.json").read_text())
        cls = TD3 if algo == "td3" else SAC
        model = cls.load(folder / "model.zip", env=gym.make(env_id), device="cpu")
        model.load_replay_buffer(folder / "replay.pkl")
        if model.num_timesteps != state["env_steps"]:
            raise SystemExit(
                f"{folder}: model.zip is at {model.num_timesteps} env steps, state.json at "
                f"{state['env_steps']}: not one save; remove the folder to start again"
            )
        return model, state

    def save(self, model: Any, state: dict[str, Any]) -> None:
        """Writes a whole save beside the last one, then swaps it in."""
        shutil.rmtree(self.tmp, ignore_errors=True)
        self.tmp.mkdir(parents=True)
        model.save(self.tmp / "model.zip")
        model.save_replay_buffer(self.tmp / "replay.pkl")
        (self.tmp / "state.json").write_text(json.dumps({**state, "env_steps": model.num_timesteps}))
        if (self.folder / "state.json").exists():
            shutil.rmtree(self.old, ignore_errors=True)
            self.folder.replace(self.old)
        shutil.rmtree(self.folder, ignore_errors=True)  # a folder without state.json holds no save
        self.tmp.replace(self.folder)
        shutil.rmtree(self.old, ignore_errors=True)


def train(args: argparse.Namespace, saved: Saved, stop: dict[str, bool]) -> dict[str, Any]:
    """Learns to ``args.steps`` from the last save (or from scratch), evaluating every ``args.every``."""
    loaded = saved.load(args.algo, args.env)
    fresh: dict[str, Any] = {"evaluations": [], "seconds": {"learn": 0.0, "rollouts": 0.0, "eval": 0.0}}
    model, state = loaded if loaded is not None else (build(args.algo, args.env, args.seed), fresh)
    if loaded is not None:
        print(f"carrying on from {model.num_timesteps} env steps", flush=True)
    seconds = state["seconds"]
    timer = _rollout_timer(seconds)
    while model.num_timesteps < args.steps and not stop["now"]:
        tick = time.perf_counter()
        model.learn(min(args.every, args.steps - model.num_timesteps), reset_num_timesteps=False,
                    callback=timer)  # fmt: skip
        seconds["learn"] += time.perf_counter() - tick
        tick = time.perf_counter()
        done = model.num_timesteps >= args.steps
        score, distance = evaluate(model, args.env, 10 if done else 5, 10_000 * (args.seed + 1))
        seconds["eval"] += time.perf_counter() - tick
        state["evaluations"].append((model.num_timesteps, score, distance))
        print(f"{args.algo} {args.env} seed {args.seed}: {model.num_timesteps} env steps, eval {score:.1f}, "
              f"{distance:.1f} m", flush=True)  # fmt: skip
        if done or stop["now"] or model.num_timesteps % args.save_every < args.every:
            saved.save(model, state)
    return {**state, "env_steps": model.num_timesteps}


def summary(args: argparse.Namespace, state: dict[str, Any]) -> dict[str, Any]:
    """The JSON written beside the run's folder."""
    evaluations = state["evaluations"]
    seconds = state["seconds"]
    result = {
        "algo": args.algo,
        "env": args.env,
        "seed": args.seed,
        "env_steps": state["env_steps"],
        "evaluations": evaluations,
        "best": max(score for _, score, _ in evaluations),
        "seconds": {
            "rollouts": seconds["rollouts"],
            "gradient_steps": seconds["learn"] - seconds["rollouts"],
            "eval": seconds["eval"],
            "total": seconds["learn"] + seconds["eval"],
        },
    }
    if state["env_steps"] >= args.steps:
        result["final"], result["final_distance"] = evaluations[-1][1], evaluations[-1][2]
    return result


def compare(ours_dir: Path, result: dict[str, Any], figure: Path | None, every: int = 100_000) -> str:
    """A Markdown table of both sides' evaluations at every ``every`` env steps that SB3's run reached and
    at its last (each side's last evaluation at or before it, and the best so far), and, with ``figure``,
    both curves drawn by ``border_py.plot`` with RL Zoo's number."""
    from border_py import plot

    ours = plot.read_curve(ours_dir, "eval/episode_return")
    rows = np.asarray(result["evaluations"], dtype=np.float64)
    theirs = plot.Curve(Path("sb3"), rows[:, 0], rows[:, 0], rows[:, 1])

    def at(curve: plot.Curve, steps: float) -> tuple[float, float]:
        mask = curve.env_steps <= steps
        return float(curve.values[mask][-1]), float(curve.values[mask].max())

    lines = ["| env steps | border_py eval | SB3 eval | border_py best so far | SB3 best so far |",
             "|---|---|---|---|---|"]  # fmt: skip
    last = int(rows[-1, 0])
    for steps in sorted({*range(every, last + 1, every), last}):
        (ours_now, ours_best), (sb3_now, sb3_best) = at(ours, steps), at(theirs, steps)
        lines.append(f"| {steps:,} | {ours_now:,.1f} | {sb3_now:,.1f} | {ours_best:,.1f} | {sb3_best:,.1f} |")
    if figure is not None:
        name = f"{result['algo'].upper()} {result['env']}, seed {result['seed']}"
        groups = [plot.Group("border_py", [ours]), plot.Group("Stable-Baselines3", [theirs])]
        known = {j.name: j.published for j in JOBS}
        zoo = known.get(f"{result['algo']}_{result['env']}")
        hlines = {} if zoo is None else {f"RL Zoo {zoo.mean:,.0f}": zoo.mean}
        plot.plot(groups, "eval/episode_return", figure, axis="env_steps",
                  title=f"{name}: greedy evaluation return", hlines=hlines)  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Parses the flags, trains (or carries on) and writes the JSON, or (``--ours``) compares."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--algo", choices=sorted(SETTINGS), default="td3")
    parser.add_argument("--env", choices=ENVS, default="Hopper-v5")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=1_000_000)
    parser.add_argument("--every", type=int, default=10_000)
    parser.add_argument("--save-every", type=int, default=50_000)
    parser.add_argument("--out", type=Path, default=Path("runs/mujoco/sb3-offpolicy"))
    parser.add_argument("--ours", type=Path, help="compare the written JSON with this border_py run")
    parser.add_argument("--figure", type=Path, help="with --ours: draw both curves into this PNG")
    args = parser.parse_args(argv)
    run_dir = args.out / args.algo / args.env
    path = run_dir / f"seed{args.seed}.json"
    if args.ours is not None:
        print(compare(args.ours, json.loads(path.read_text()), args.figure))
        return 0
    if min(args.steps, args.every, args.save_every) < 1:
        parser.error("--steps, --every and --save-every must be >= 1")
    torch.set_num_threads(1)
    stop = {"now": False}

    def request_stop(signum: int, _frame: Any) -> None:
        print(f"signal {signum}: saving at the next evaluation", flush=True)
        stop["now"] = True

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    state = train(args, Saved(run_dir / f"seed{args.seed}"), stop)
    if state["evaluations"]:
        path.write_text(json.dumps(summary(args, state), indent=1))
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
