"""Reference results: each example's full run over several seeds, as the markdown table in the README.

    python -m examples.reference_results                          # every run, seeds 0 1 2
    python -m examples.reference_results --runs sac_pendulum --seeds 0 1 2

For each run and seed it trains the example with its default config (``model_dir`` under ``--out``),
reloads ``best`` and evaluates it again, and prints one line per seed and a table: the best greedy
evaluation (mean over the evaluator's episodes), the env steps at which an evaluation first reached the
run's threshold, and the training wall-clock. Runs are sequential, one torch thread each. With
``--figures DIR`` it also draws each run's learning curve over its seeds as ``DIR/<run>.png``
(:mod:`border_py.plot`; the ``plot`` extra).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs

from border_py import NStepStepProcessorConfig, TrainResult
from border_py.datasets import BEHAVIOUR_RETURN_KEY
from examples import (
    awac_pendulum,
    bc_cartpole,
    bc_pendulum,
    dqn_cartpole,
    iql_pendulum,
    iqn_cartpole,
    ppo_cartpole,
    ppo_pendulum,
    sac_pendulum,
)
from examples.harness import RunOptions, with_trainer


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
    """An example's full run and the score that counts as solved."""

    name: str
    threshold: float | Callable[[], float]
    """The score that counts as solved (offline: the behaviour policy's mean return, read from the
    dataset's metadata when the run starts)."""
    train_and_reload: Callable[[int, Path], tuple[TrainResult, float]]

    def score(self) -> float:
        """The threshold's value."""
        return self.threshold() if callable(self.threshold) else self.threshold


def _example(example: ModuleType, **overrides: Any) -> Callable[[int, Path], tuple[TrainResult, float]]:
    """Trains ``example`` with its default config (and ``overrides``) and reloads its best model."""

    def run(seed: int, model_dir: Path) -> tuple[TrainResult, float]:
        c = attrs.evolve(with_trainer(example.Config(), seed=seed, model_dir=str(model_dir)), **overrides)
        return example.train(c, RunOptions(progress=False)), example.evaluate(c, model_dir)

    return run


def _behaviour(example: ModuleType) -> Callable[[], float]:
    """The behaviour policy's mean return of the example's dataset (``make datasets`` builds it)."""
    return lambda: float(example.Config().dataset.metadata()[BEHAVIOUR_RETURN_KEY])


RUNS = {
    r.name: r
    for r in [
        Run("dqn_cartpole", 475.0, _example(dqn_cartpole)),
        Run(
            "dqn_cartpole_nstep3",
            475.0,
            _example(dqn_cartpole, step_processor=NStepStepProcessorConfig(n_steps=3, gamma=0.99)),
        ),
        Run("iqn_cartpole", 475.0, _example(iqn_cartpole)),
        Run("sac_pendulum", -200.0, _example(sac_pendulum)),
        Run("ppo_cartpole", 475.0, _example(ppo_cartpole)),
        Run("ppo_pendulum", -200.0, _example(ppo_pendulum)),
        *(
            Run(name, _behaviour(module), _example(module))
            for name, module in (
                ("bc_pendulum", bc_pendulum),
                ("iql_pendulum", iql_pendulum),
                ("awac_pendulum", awac_pendulum),
                ("bc_cartpole", bc_cartpole),
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
