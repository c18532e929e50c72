"""Reference results: each zoo entry's full run over several seeds, through the CLI, as the markdown table
in ``docs/results.md``.

    python -m border_py.run.reference_results                          # every run, seeds 0 1 2
    python -m border_py.run.reference_results --runs sac_pendulum --seeds 0 1 2

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
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from border_py.datasets import BEHAVIOUR_RETURN_KEY
from border_py.run import cli, zoo
from border_py.run.commands import evaluate
from border_py.run.rundir import RunDir
from border_py.trainer.result import TrainResult


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


@attrs.frozen
class Run:
    """A zoo entry's full run and the score that counts as solved."""

    name: str
    algo: str
    env_id: str
    threshold: float | Callable[[], float]
    """The score that counts as solved (offline: the behaviour policy's mean return, read from the
    dataset's metadata when the run starts)."""
    variant: str | None = None

    def score(self) -> float:
        """The threshold's value."""
        return self.threshold() if callable(self.threshold) else self.threshold

    def train_and_reload(self, seed: int, model_dir: Path) -> tuple[TrainResult, float]:
        """Trains through the CLI and evaluates the reloaded ``best``.

        Raises:
            RuntimeError: the CLI refused or failed (its status and message on stderr).
        """
        argv = ["train", self.algo, "--env", self.env_id, "--seed", str(seed), "--model-dir", str(model_dir)]
        argv += ["--overwrite", "--no-progress", *(["--variant", self.variant] if self.variant else [])]
        status = cli.main(argv)
        if status != 0:
            raise RuntimeError(f"border-py {' '.join(argv)} exited with status {status}")
        run_dir = RunDir(model_dir)
        return run_dir.last_result(), evaluate(run_dir.read_config(), model_dir, quiet=True)


def _behaviour(algo: str, dataset_id: str) -> Callable[[], float]:
    """The behaviour policy's mean return of the zoo entry's dataset (``make datasets`` builds it)."""

    def read() -> float:
        dataset: Any = getattr(zoo.experiment(algo, dataset_id, "unused"), "dataset", None)
        return float(dataset.metadata()[BEHAVIOUR_RETURN_KEY])

    return read


RUNS = {
    r.name: r
    for r in [
        Run("dqn_cartpole", "dqn", "CartPole-v1", 475.0),
        Run("dqn_cartpole_nstep3", "dqn", "CartPole-v1", 475.0, variant="nstep3"),
        Run("iqn_cartpole", "iqn", "CartPole-v1", 475.0),
        Run("sac_pendulum", "sac", "Pendulum-v1", -200.0),
        Run("td3_pendulum", "td3", "Pendulum-v1", -200.0),
        Run("ppo_cartpole", "ppo", "CartPole-v1", 475.0),
        Run("ppo_pendulum", "ppo", "Pendulum-v1", -200.0),
        *(
            Run(name, algo, dataset, _behaviour(algo, dataset))
            for name, algo, dataset in (
                ("bc_pendulum", "bc", "pendulum-medium-v0"),
                ("iql_pendulum", "iql", "pendulum-medium-v0"),
                ("awac_pendulum", "awac", "pendulum-medium-v0"),
                ("td3bc_pendulum", "td3bc", "pendulum-medium-v0"),
                ("cql_pendulum", "cql", "pendulum-medium-v0"),
                ("bc_cartpole", "bc", "cartpole-medium-v0"),
            )
        ),
    ]
}


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

    groups = plot.group_runs(run_dirs, "eval/episode_return")
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
            result, reloaded = run.train_and_reload(seed, args.out / name / f"seed{seed}")
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
