"""The Atari runs (issue 55): PPO on Pong and Breakout to 10M frames, DQN and IQN on Pong to 2M agent steps,
each the zoo entry a user gets from ``border-py train ALGO --env ENV --seed N`` (the ``atari`` jobs of
`campaigns.jobs`), carried on across stops.

    nice -n 19 python -m campaigns.atari run --jobs 2       # Pong's PPO and DQN first, then the rest
    python -m campaigns.atari status                        # where each run stands

Each run lives in ``<out>/<algo>/<game>/seed<N>`` (``runs/atari/ppo/pong/seed0``) as its own ``border-py``
process (one torch thread; PPO's two, with its update in bf16: `campaigns.jobs`), logging to
``seed<N>.log`` beside it. ``run`` is safe to stop and start again: a finished run is skipped and a stopped
one resumed from its newest checkpoint (`campaigns.mujoco.run`).
The run directories live on the machine that trains them: a checkout moved to a new machine without its
``runs/`` starts the campaign again from frame 0 (it did on 2026-11-28, at 7.63M frames of PPO Pong).

Run it from a worktree of a commit when you go on working in the checkout (``git worktree add ../camp HEAD``,
then from there ``PYTHONPATH=. python -m campaigns.atari run --out <checkout>/runs/atari``): border_py
imports modules when first used, so a module edited under a run that lasts hours is loaded new beside the
old ones it was started with (a DQN run died that way at its first evaluation, on 2026-11-27).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from border_py.run.rundir import RunDir
from campaigns.jobs import jobs
from campaigns.mujoco import SeedRun, run


def game(env_id: str) -> str:
    """The run directory's name for an ALE id: ``ALE/Pong-v5`` -> ``pong``.

    Examples:
        >>> game("ALE/Breakout-v5")
        'breakout'
    """
    return env_id.split("/")[-1].split("-")[0].lower()


def seed_runs(out: Path, names: Sequence[str] | None = None) -> list[SeedRun]:
    """The Atari runs (of the jobs ``names`` alone, if given), in the jobs' order.

    Raises:
        ValueError: a name that is not an Atari job.
    """
    chosen = [j for j in jobs("atari") if names is None or j.name in names]
    unknown = sorted(set(names or ()) - {j.name for j in chosen})
    if unknown:
        raise ValueError(f"no Atari job {unknown}: give some of {[j.name for j in jobs('atari')]}")
    return [
        SeedRun(j, seed, out / j.algo / game(j.env_id) / f"seed{seed}") for j in chosen for seed in j.seeds
    ]


def status(runs: Sequence[SeedRun]) -> int:
    """Prints each run's newest checkpoint: env steps (frames), best and last greedy evaluation."""
    for seed_run in runs:
        run_dir = RunDir(seed_run.model_dir)
        where = f"{seed_run.job.name} seed {seed_run.seed}"
        if run_dir.resume_point() is None:
            print(f"{where}: no checkpoint yet")
            continue
        result = run_dir.last_result()
        published = seed_run.job.published
        last = "-" if result.last_score is None else f"{result.last_score:.1f}"
        beside = f"; RL Zoo {published.mean:.1f} at 40M frames" if published else ""
        print(
            f"{where}: {result.env_steps:,} env steps ({4 * result.env_steps / 1e6:.2f}M frames), best "
            f"{result.best_score:.1f}, last {last}{beside}" + (" (finished)" if seed_run.finished() else "")
        )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``run`` or ``status``."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("command", choices=["run", "status"])
    parser.add_argument("--out", type=Path, default=Path("runs/atari"), help="run directories go here")
    parser.add_argument("--jobs", type=int, default=2, help="runs at a time (run)")
    parser.add_argument("--only", nargs="+", help="these jobs only (ppo_pong, dqn_pong, ...)")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be >= 1, got {args.jobs}")
    try:
        runs = seed_runs(args.out, args.only)
    except ValueError as exc:
        parser.error(str(exc))
    return run(runs, args.out, args.jobs) if args.command == "run" else status(runs)


if __name__ == "__main__":
    sys.exit(main())
