"""Reference results: each zoo entry's full run over several seeds, through the CLI, as the markdown table
in ``docs/results.md`` (the ``reference`` jobs of `campaigns.jobs`).

    python -m campaigns.reference                          # every run, seeds 0 1 2
    python -m campaigns.reference --runs sac_pendulum --seeds 0 1 2

For each run and seed it runs ``border-py train ALGO --env ENV [--variant V] --seed N --model-dir
<out>/<run>/seed<N> --overwrite`` (the zoo's settings, as a user gets them), reloads ``best`` and evaluates
it again, and prints one line per seed and a table: the best greedy
evaluation (mean over the evaluator's episodes), the env steps at which an evaluation first reached the
run's threshold, and the training wall-clock. Runs are sequential, one torch thread each. With
``--figures DIR`` it also draws each run's learning curve over its seeds as ``DIR/<run>.png``
(`border_py.plot`; the ``plot`` extra).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import attrs

from border_py.run import cli
from border_py.run.rundir import RunDir
from border_py.run.saved import evaluate
from border_py.trainer.result import TrainResult
from campaigns.jobs import Job, jobs


@attrs.frozen
class Outcome:
    """One seed of one run."""

    run: str
    seed: int
    best: float
    reloaded: float
    env_steps: int
    env_steps_to_threshold: int | None
    opt_steps_to_threshold: int | None
    seconds: float


RUNS = {j.name: j for j in jobs("reference")}


def train_and_reload(job: Job, seed: int, model_dir: Path) -> tuple[TrainResult, float]:
    """Trains the job's zoo entry through the CLI and evaluates the reloaded ``best``.

    Raises:
        RuntimeError: the CLI refused or failed (its status and message on stderr).
    """
    argv = ["train", job.algo, "--env", job.env_id, "--seed", str(seed), "--model-dir", str(model_dir)]
    argv += ["--overwrite", "--no-progress", *(["--variant", job.variant] if job.variant else [])]
    status = cli.main(argv)
    if status != 0:
        raise RuntimeError(f"border-py {' '.join(argv)} exited with status {status}")
    run_dir = RunDir(model_dir)
    return run_dir.last_result(), evaluate(run_dir.read_config(), model_dir, quiet=True)


def _table(outcomes: list[Outcome]) -> str:
    lines = [
        "| run | seeds | best greedy eval per seed | median | env steps to threshold (median) | "
        "env steps | wall-clock per seed |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in dict.fromkeys(o.run for o in outcomes):
        rows = [o for o in outcomes if o.run == name]
        threshold = RUNS[name].score()
        offline = rows[0].env_steps == 0
        steps = [o.opt_steps_to_threshold if offline else o.env_steps_to_threshold for o in rows]
        reached = [s for s in steps if s is not None]
        to_threshold = (
            f"{statistics.median(reached):,.0f}{' opt steps' if offline else ''} "
            f"({len(reached)}/{len(rows)} reached {threshold:g})"
            if reached
            else f"never reached {threshold:g}"
        )
        seeds = ", ".join(str(o.seed) for o in rows)
        bests = " / ".join(f"{o.best:.1f}" for o in rows)
        median = statistics.median(o.best for o in rows)
        seconds = statistics.mean(o.seconds for o in rows)
        cells = [
            name,
            seeds,
            bests,
            f"{median:.1f}",
            to_threshold,
            f"{rows[0].env_steps:,}",
            f"{seconds:.0f} s",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _figure(name: str, run_dirs: list[Path], figures: Path) -> None:
    """The run's learning curve over its seeds (mean and min-max band) against env steps, or against opt
    steps for an offline run, with its threshold as a dashed line."""
    from border_py import plot
    from border_py.run.codec import with_defaults

    groups = plot.group_runs(run_dirs, "eval/episode_return", with_defaults)
    offline = not groups[0].curves[0].env_steps.any()
    threshold = RUNS[name].score()
    out = plot.plot(
        groups,
        "eval/episode_return",
        figures / f"{name}.png",
        axis="opt_steps" if offline else "env_steps",
        title=f"{name}: greedy evaluation return",
        hlines={f"threshold {threshold:.4g}" + (" (behaviour policy)" if offline else ""): threshold},
    )
    print(f"wrote {out}", flush=True)


def main(argv: list[str] | None = None) -> int:
    """Runs the chosen runs and seeds, printing a line per seed and the table at the end."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", nargs="+", choices=sorted(RUNS), default=list(RUNS))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--out", type=Path, default=Path("runs/reference"), help="model dirs go here")
    parser.add_argument(
        "--figures", type=Path, default=None, help="write each run's learning curve here as <run>.png"
    )
    args = parser.parse_args(argv)
    outcomes = []
    for name in args.runs:
        run = RUNS[name]
        for seed in args.seeds:
            start = time.perf_counter()
            result, reloaded = train_and_reload(run, seed, args.out / name / f"seed{seed}")
            outcome = Outcome(
                run=name,
                seed=seed,
                best=result.best_score,
                reloaded=reloaded,
                env_steps=result.env_steps,
                env_steps_to_threshold=result.env_steps_to_reach(run.score()),
                opt_steps_to_threshold=next(
                    (e.opt_steps for e in result.evaluations if e.score >= run.score()), None
                ),
                seconds=time.perf_counter() - start,
            )
            print(json.dumps(attrs.asdict(outcome)), flush=True)
            outcomes.append(outcome)
        if args.figures is not None:
            _figure(name, [args.out / name / f"seed{seed}" for seed in args.seeds], args.figures)
    print(_table(outcomes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
