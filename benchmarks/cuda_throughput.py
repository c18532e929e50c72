"""How long the zoo's long runs take on a device: the Pong DQN target (``make test-atari``, 2M env steps), the
PPO Pong run (2.5M) and the MuJoCo SAC and TD3 runs (1M env steps), measured on a slice of each and
projected to the entry's ``max_env_steps``.

    python -m benchmarks.cuda_throughput --device cuda --runs dqn:ALE/Pong-v5:80000 sac:HalfCheetah-v5:20000

Each run is the zoo entry a user gets, with evaluations and saves off, timed twice through the run layer:
up to just past its warm-up (random actions, no updates) and ``warmup + N`` env steps. The difference is N
env steps of learning (acting, env steps and updates); the projection is the warm-up plus the budget's
remaining env steps at that rate. Evaluations are not in the projection: the note gives their count.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from border_py.run import TrainOptions, train, zoo

DEFAULT_BUDGET = 1_000_000
"""Env steps of the full run where the entry sets no ``max_env_steps`` (the MuJoCo runs' 1M)."""


def _timed(algo: str, env_id: str, device: str, env_steps: int, root: Path) -> tuple[float, int]:
    """Seconds to train the zoo entry to ``env_steps``, and the opt steps it made."""
    model_dir = root / f"{algo}-{env_id.replace('/', '-')}-{device}-{env_steps}"
    trainer = {
        "max_env_steps": env_steps, "max_opts": None, "eval_interval": None, "save_interval": None,
        "checkpoint_buffer": False,
    }  # fmt: skip
    experiment = zoo.experiment(algo, env_id, str(model_dir), trainer=trainer, agent={"device": device})
    start = time.perf_counter()
    result = train(experiment, TrainOptions(progress=False, quiet=True))
    return time.perf_counter() - start, result.opt_steps


def _budget(trainer: dict[str, Any]) -> int:
    """The entry's env steps: its ``max_env_steps``, else those its ``max_opts`` take (DQN Pong's)."""
    if trainer.get("max_env_steps"):
        return int(trainer["max_env_steps"])
    if trainer.get("max_opts"):
        opts = int(trainer["max_opts"]) * int(trainer.get("opt_interval", 1))
        return int(trainer.get("warmup_period", 0)) + opts
    return DEFAULT_BUDGET


def measure(algo: str, env_id: str, device: str, learning_steps: int) -> dict[str, Any]:
    """The warm-up's and ``learning_steps`` learning env steps' wall-clock, and the projected full run."""
    # A run must make one update: the first timing runs a little past the warm-up, or one rollout (PPO).
    trainer = zoo.entry(algo, env_id).data["trainer"]
    warmup = int(trainer.get("warmup_period", 0)) + max(64, int(trainer.get("opt_interval", 1)))
    with tempfile.TemporaryDirectory() as tmp:
        warm_seconds, warm_opts = _timed(algo, env_id, device, warmup, Path(tmp))
        total_seconds, total_opts = _timed(algo, env_id, device, warmup + learning_steps, Path(tmp))
    opts = total_opts - warm_opts
    learning = total_seconds - warm_seconds
    budget = _budget(trainer)
    per_step = learning / learning_steps
    return {
        "algo": algo, "env": env_id, "device": device, "warmup_env_steps": warmup,
        "warmup_seconds": round(warm_seconds, 1), "learning_env_steps": learning_steps,
        "learning_seconds": round(learning, 1), "opt_steps": opts,
        "learning_env_steps_per_second": round(learning_steps / learning, 1),
        "opt_steps_per_second": round(opts / learning, 1),
        "projected_hours_for_budget": round((warm_seconds + (budget - warmup) * per_step) / 3600, 2),
        "budget_env_steps": budget,
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--runs", nargs="+", required=True, help="ALGO:ENV:LEARNING_ENV_STEPS")
    args = parser.parse_args(argv)
    for run in args.runs:
        algo, _, rest = run.partition(":")
        env_id, _, steps = rest.rpartition(":")
        print(json.dumps(measure(algo, env_id, args.device, int(steps))), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
