"""Does AWAC's online fine-tuning improve on its offline result? ``python -m benchmarks.awac_finetune
[--env-steps 60000] [--seeds 0 1 2]`` (after ``make datasets``; about 5 minutes per seed and 20,000 env steps
on one core).

For each seed: the ``awac_pendulum`` example's offline run (skipped when ``runs/awac_ft/s<seed>`` holds it
already), then ``--env-steps`` of online fine-tuning from its ``best/`` (the example's
``--finetune-env-steps``). The training runs pick ``best/`` from evaluations of 10 episodes, a choice that
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

from examples import awac_pendulum
from examples.harness import EvalOptions, RunOptions, with_trainer

EPISODES = 100
KEYS = ("offline_best", "offline_final", "finetuned_best", "finetuned_final")


def run_seed(seed: int, env_steps: int, root: Path) -> dict[str, float]:
    """One seed's four policies, each evaluated over :data:`EPISODES` episodes, and the wall-clock."""
    config = with_trainer(awac_pendulum.Config(), seed=seed, model_dir=str(root / f"s{seed}"))
    model_dir = Path(str(config.trainer.model_dir))
    offline_final = model_dir / str(config.trainer.max_opts)
    start = time.perf_counter()
    if not offline_final.is_dir():
        awac_pendulum.train(config, RunOptions(progress=False, overwrite=True))
    offline_s = time.perf_counter() - start
    awac_pendulum.finetune(config, env_steps, RunOptions(progress=False, overwrite=True))
    finetune_s = time.perf_counter() - start - offline_s
    checkpoints = {
        "offline_best": model_dir / "best",
        "offline_final": offline_final,
        "finetuned_best": model_dir / "finetune" / "best",
        "finetuned_final": model_dir / "finetune" / str(env_steps),
    }
    scores = {
        name: awac_pendulum.evaluate(
            config,
            model_dir,
            EvalOptions(checkpoint=path.relative_to(model_dir).as_posix(), episodes=EPISODES),
        )
        for name, path in checkpoints.items()
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
