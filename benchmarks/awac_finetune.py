"""Does AWAC's online fine-tuning improve on its offline result? ``python -m benchmarks.awac_finetune
[--env-steps 60000] [--seeds 0 1 2]`` (after ``make datasets``; about 5 minutes per seed and 20,000 env steps
on one core).

For each seed: the zoo's AWAC pendulum-medium-v0 offline run (skipped when ``runs/awac_ft/s<seed>`` holds it
already), then ``--env-steps`` of online fine-tuning from its ``best/`` (the zoo's AWAC Pendulum-v1 entry
with ``init_from``). The training runs pick ``best/`` from evaluations of 10 episodes, a choice that
flatters them; so every policy compared here is evaluated again over the same 100 episodes (the example's
evaluation episodes 0..99): the offline ``best/`` and final policies, the fine-tuned ``best/`` and final
ones. Prints one JSON line per seed and the medians.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from border_py.run import TrainOptions, evaluate, train, zoo

EPISODES = 100
KEYS = ("offline_best", "offline_final", "finetuned_best", "finetuned_final")


def run_seed(seed: int, env_steps: int, root: Path) -> dict[str, float]:
    """One seed's four policies, each evaluated over `EPISODES` episodes, and the wall-clock."""
    model_dir = root / f"s{seed}"
    offline = zoo.experiment("awac", "pendulum-medium-v0", str(model_dir), trainer={"seed": seed})
    offline_final = model_dir / str(offline.trainer.max_opts)
    options = TrainOptions(progress=False, overwrite=True, quiet=True)
    start = time.perf_counter()
    if not offline_final.is_dir():
        train(offline, options)
    offline_s = time.perf_counter() - start
    online_trainer = {"seed": seed, "max_env_steps": env_steps, "save_interval": env_steps}
    online = zoo.experiment(
        "awac",
        "Pendulum-v1",
        str(model_dir / "finetune"),
        trainer=online_trainer,
        init_from=str(model_dir / "best"),
    )
    train(online, options)
    finetune_s = time.perf_counter() - start - offline_s
    checkpoints = {
        "offline_best": (offline, model_dir, "best"),
        "offline_final": (offline, model_dir, offline_final.name),
        "finetuned_best": (online, model_dir / "finetune", "best"),
        "finetuned_final": (online, model_dir / "finetune", str(env_steps)),
    }
    scores = {
        name: evaluate(experiment, directory, checkpoint, EPISODES, quiet=True)
        for name, (experiment, directory, checkpoint) in checkpoints.items()
    }
    return {**scores, "offline_s": round(offline_s), "finetune_s": round(finetune_s)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env-steps", type=int, default=60_000, help="online fine-tuning env steps")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--root", type=Path, default=Path("runs/awac_ft"), help="the runs' directory")
    args = parser.parse_args(argv)
    rows = []
    for seed in args.seeds:
        rows.append(run_seed(seed, args.env_steps, args.root))
        print(json.dumps({"seed": seed, **rows[-1]}), flush=True)
    medians = {key: round(statistics.median(row[key] for row in rows), 1) for key in KEYS}
    print(json.dumps({"median": medians, "env_steps": args.env_steps}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
