"""Dict observations with an image, side by side: border_py's multi-input encoder and Stable-Baselines3's
``MultiInputPolicy`` (``CombinedExtractor``: a ``NatureCNN`` per image part with ``cnn_output_dim=64``, the
flat parts beside it) on border_py's ``border_py/PixelTarget-v0`` (`border_py.envs.pixel_envs`: one step an
episode; a lit column in a 36x36 image and a flat offset give the target), at the zoo entries' settings and
budgets, seed by seed.

- ``sac``: the continuous env, border_py/zoo/sac.yaml's entry: 3,000 env steps, 200 warm-up env steps
  (SB3's ``learning_starts``), one update per env step after them (2,800), batch 64, learning rates 1e-3
  (policy, critics, entropy coefficient, which starts at 1 and is tuned to ``-|A|``), 64x64 policy and
  critics, each (the policy, the critics) with an encoder of its own (SB3's off-policy default), a buffer
  of 10,000, gamma 0.99 (our one-step processor's default), tau 0.005.
- ``ppo``: the discrete env (5 bins), border_py/zoo/ppo.yaml's entry: 8 envs, rollouts of 32, minibatches
  of 64, 10 epochs, lr 1e-3, gamma 0.99, GAE lambda 0.95, clip 0.2, no entropy bonus, value weight 0.5,
  gradient norm 0.5, Adam eps 1e-5, orthogonal initialisation (our defaults are SB3's), 20,480 env steps
  (80 rollouts). Our PPO's `SharedTrunk` is the encoder, then one 64-unit ReLU layer that the policy and
  the value share, then the two heads. SB3 2.x has no shared MLP layer (``net_arch=[64]`` is one 64-unit
  layer for each), so SB3's side puts that layer in its features extractor (``CombinedExtractor``, then
  ``Linear(65, 64)`` and a ReLU: `shared_trunk_class`), which the policy and the value share (SB3's
  on-policy default) and which its orthogonal initialisation covers with gain sqrt(2) as ours does, and
  ``net_arch=[]``: the same network, parameter for parameter.

Each side's final model (ours: the run's last checkpoint; SB3's: the model after ``learn``) plays the same
200 deterministic episodes (reset seeds 10,000 + i); the score is their mean return. ``seconds`` and
``cpu_seconds`` (the process's CPU time, steadier on a shared machine) time training alone: ours the
``train`` call (building the env and agent, training, its records and two checkpoints, without the
buffer), SB3's building the env and the model and ``learn``; both with one torch thread, torch imported
before. Ours runs without the zoo entry's in-training evaluations (100 episodes every 500 opt steps for
sac, every 10 for ppo), which SB3's side has no counterpart of (they play their own envs and do not change
the learning); ``--zoo-evals`` keeps them, and the buffer in checkpoints, as ``border-py train`` runs the
entry (side ``ours_zoo``). Ceilings (by simulation): sac random -0.69, image only -0.23, offset only -0.49,
perfect 0; ppo random 0.20, image only 0.54, offset only 0.33, perfect 1.

Differences left: SB3 plays uniformly random actions during its 200 warm-up steps, ours the initial
policy's (sampled) actions; gamma and GAE lambda play no part (every episode ends after its one step).

    nice -n 10 .venv/bin/python -m benchmarks.multi_input ours --algos sac ppo --seeds 0 1 2
    nice -n 10 .venv-peers/bin/python -m benchmarks.multi_input sb3 --algos sac ppo --seeds 0 1 2
    .venv/bin/python -m benchmarks.multi_input table

Each run writes ``<out>/<algo>/<side>/seed<N>.json`` (``final``: the mean return; ``seconds``,
``cpu_seconds``, ``env_steps``; ours' ``opt_steps``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import border_py.envs.pixel_envs  # noqa: F401  (registers the env id, in either virtualenv)

ENV = "border_py/PixelTarget-v0"
OUT = Path("runs/multi_input")
EPISODES = 200
"""The evaluation episodes each final model plays."""
EVAL_SEED = 10_000
"""Episode ``i`` is reset with seed ``EVAL_SEED + i``."""
IMAGE_FEATURES = 64
"""The zoo entries' ``encoder.image_features``: SB3's ``cnn_output_dim``."""

Predict = Callable[[dict[str, Any]], Any]
"""A greedy policy on the env's dict observation."""


@dataclass(frozen=True)
class Algo:
    """One comparison: the zoo entry (algorithm and env kwargs), its budget and SB3's same settings."""

    name: str
    """The zoo's algorithm (``sac``, ``ppo``), also SB3's class, upper-cased."""
    env_kwargs: dict[str, Any]
    """Keyword arguments of ``gymnasium.make``: the zoo entry's ``env.kwargs``."""
    steps: int
    """In env steps: each side's budget (the entry's ``trainer.max_env_steps``)."""
    n_envs: int
    """SB3's vector env's size: the entry's ``env.num_envs`` (1: a plain env)."""
    sb3_settings: dict[str, Any]
    """SB3's keyword arguments: the entry's settings in SB3's names (``policy_kwargs`` completed in SB3's
    process: `sb3_policy_kwargs`)."""


SAC = Algo(
    name="sac",
    env_kwargs={},
    steps=3_000,
    n_envs=1,
    sb3_settings={
        "learning_rate": 1e-3,
        "buffer_size": 10_000,
        "learning_starts": 200,
        "batch_size": 64,
        "tau": 0.005,
        "gamma": 0.99,
        "train_freq": 1,
        "gradient_steps": 1,
        "ent_coef": "auto",
        "policy_kwargs": {"net_arch": [64, 64]},
    },
)
PPO = Algo(
    name="ppo",
    env_kwargs={"discrete": True},
    steps=20_480,
    n_envs=8,
    sb3_settings={
        "n_steps": 32,
        "batch_size": 64,
        "n_epochs": 10,
        "learning_rate": 1e-3,
        "gamma": 0.99,
        "gae_lambda": 0.95,
        "clip_range": 0.2,
        "ent_coef": 0.0,
        "vf_coef": 0.5,
        "max_grad_norm": 0.5,
        "policy_kwargs": {"net_arch": [], "ortho_init": True},
    },
)
ALGOS = {a.name: a for a in (SAC, PPO)}


def play(algo: Algo, predict: Predict) -> float:
    """The mean return of ``predict`` over the `EPISODES` evaluation episodes."""
    env: Any = gym.make(ENV, **algo.env_kwargs)
    returns = []
    for i in range(EPISODES):
        obs, _ = env.reset(seed=EVAL_SEED + i)
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(predict(obs))
            total, done = total + float(reward), terminated or truncated
        returns.append(total)
    env.close()
    return float(np.mean(returns))


def ours(algo: Algo, seed: int, zoo_evals: bool) -> dict[str, Any]:
    """Trains the zoo's entry with ``seed`` (``zoo_evals``: with its in-training evaluations and the buffer
    in its checkpoints); plays its last checkpoint."""
    import torch  # imported before the clock starts, as SB3's side imports it

    import border_py.agents.ppo.agent
    import border_py.agents.sac.agent  # noqa: F401  (the agents' modules too)
    from border_py.run import TrainOptions, load_policy, train, zoo

    trainer: dict[str, Any] = {"seed": seed, "max_env_steps": algo.steps}
    if not zoo_evals:
        trainer |= {"eval_interval": None, "checkpoint_buffer": False}
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as model_dir:
        experiment = zoo.experiment(algo.name, ENV, model_dir, trainer=trainer)
        start, cpu = time.perf_counter(), time.process_time()
        result = train(experiment, TrainOptions(progress=False, quiet=True))
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        final = play(algo, load_policy(model_dir, str(result.opt_steps)).predict)
    return {"final": final, "seconds": seconds, "cpu_seconds": cpu, "env_steps": result.env_steps,
            "opt_steps": result.opt_steps}  # fmt: skip


def shared_trunk_class() -> type:
    """SB3's ``CombinedExtractor`` then one ReLU layer of ``hidden`` units: our PPO's `SharedTrunk` as a
    features extractor (in SB3's process: it subclasses SB3's class)."""
    import torch
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, CombinedExtractor

    class SharedTrunkExtractor(BaseFeaturesExtractor):  # type: ignore[misc]
        """``relu(Linear(CombinedExtractor(obs)))``."""

        def __init__(self, observation_space: gym.spaces.Dict, cnn_output_dim: int, hidden: int) -> None:
            super().__init__(observation_space, features_dim=hidden)
            self.combined = CombinedExtractor(observation_space, cnn_output_dim=cnn_output_dim)
            self.layer = torch.nn.Linear(self.combined.features_dim, hidden)

        def forward(self, observations: dict[str, torch.Tensor]) -> torch.Tensor:
            return torch.relu(self.layer(self.combined(observations)))

    return SharedTrunkExtractor


def sb3_policy_kwargs(algo: Algo) -> dict[str, Any]:
    """``algo``'s ``policy_kwargs`` with its features extractor's: 64 image features (PPO: and the shared
    64-unit layer)."""
    kwargs = dict(algo.sb3_settings["policy_kwargs"])
    if algo.name == "ppo":
        kwargs["features_extractor_class"] = shared_trunk_class()
        kwargs["features_extractor_kwargs"] = {"cnn_output_dim": IMAGE_FEATURES, "hidden": 64}
    else:
        kwargs["features_extractor_kwargs"] = {"cnn_output_dim": IMAGE_FEATURES}
    return kwargs


def sb3(algo: Algo, seed: int) -> dict[str, Any]:
    """Trains SB3's ``MultiInputPolicy`` at ``algo``'s settings with ``seed``; plays the model after
    ``learn``."""
    import stable_baselines3
    import torch
    from stable_baselines3.common.env_util import make_vec_env

    torch.set_num_threads(1)
    settings = {**algo.sb3_settings, "policy_kwargs": sb3_policy_kwargs(algo)}
    cls = getattr(stable_baselines3, algo.name.upper())
    start, cpu = time.perf_counter(), time.process_time()
    env = make_vec_env(ENV, n_envs=algo.n_envs, seed=seed, env_kwargs=algo.env_kwargs)
    model = cls("MultiInputPolicy", env, seed=seed, device="cpu", **settings)
    model.learn(algo.steps)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    final = play(algo, lambda obs: model.predict(obs, deterministic=True)[0])
    return {"final": final, "seconds": seconds, "cpu_seconds": cpu, "env_steps": int(model.num_timesteps)}


def rows(out: Path, algo: str, side: str) -> list[tuple[int, dict[str, Any]]]:
    """The runs of ``side`` on ``algo`` under ``out``: (seed, row), by seed."""
    files = (out / algo / side).glob("seed*.json")
    found = [(int(f.stem.removeprefix("seed")), json.loads(f.read_text())) for f in files]
    return sorted(found, key=lambda pair: pair[0])


def table(out: Path) -> str:
    """A markdown table per algorithm: each side's runs by seed (final score, wall-clock and CPU seconds)
    and their means, then the ratios ours / SB3 of the mean wall-clock and CPU seconds."""
    lines = []
    for algo in ALGOS:
        sides = sorted(p.name for p in (out / algo).iterdir() if p.is_dir()) if (out / algo).is_dir() else []
        lines += [
            f"### {algo}",
            "",
            "| side | seed | final score | seconds | CPU s |",
            "|---|---|---|---|---|",
        ]
        means: dict[str, tuple[float, float]] = {}
        for side in sides:
            found = rows(out, algo, side)
            for seed, row in found:
                lines.append(f"| {side} | {seed} | {row['final']:.3f} | {row['seconds']:.1f} | "
                             f"{row['cpu_seconds']:.1f} |")  # fmt: skip
            if found:
                score, seconds, cpu = (statistics.mean(r[key] for _, r in found)
                                       for key in ("final", "seconds", "cpu_seconds"))  # fmt: skip
                lines.append(f"| **{side} mean** | {len(found)} | {score:.3f} | {seconds:.1f} | {cpu:.1f} |")
                means[side] = (seconds, cpu)
        if "ours" in means and "sb3" in means:
            (wall, cpu), (sb3_wall, sb3_cpu) = means["ours"], means["sb3"]
            lines += ["", f"ours / SB3: wall-clock {wall / sb3_wall:.2f}, CPU {cpu / sb3_cpu:.2f}"]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``ours`` or ``sb3`` over ``--algos`` and ``--seeds`` into ``--out``; ``table`` reads them back."""
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("side", choices=["ours", "sb3", "table"])
    parser.add_argument("--algos", nargs="+", choices=list(ALGOS), default=list(ALGOS))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--zoo-evals", action="store_true", help="ours: keep the entry's evaluations")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if args.side == "table":
        print(table(args.out))
        return 0
    name = "ours_zoo" if args.side == "ours" and args.zoo_evals else args.side
    for algo_name in args.algos:
        algo = ALGOS[algo_name]
        for seed in args.seeds:
            row = ours(algo, seed, args.zoo_evals) if args.side == "ours" else sb3(algo, seed)
            path = args.out / algo.name / name / f"seed{seed}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(row, indent=1))
            print(algo.name, name, seed, json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
