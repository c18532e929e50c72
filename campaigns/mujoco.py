"""The MuJoCo suite at the published budget (1M env steps), over seeds, against RL Zoo's table (the
``mujoco`` jobs of `campaigns.jobs`).

    python -m campaigns.mujoco run --algo ppo --jobs 2        # PPO on 4 envs x seeds 0-2, two at a time
    python -m campaigns.mujoco run --algo sac --jobs 1        # SAC on HalfCheetah and Hopper, seed 0
    python -m campaigns.mujoco report --algo ppo --figures docs/images

``run`` trains every (env, seed) of the algorithm's jobs with exactly the zoo entry a user gets from
``border-py train ALGO --env ENV --seed N``, each in ``<out>/<algo>/<env>/seed<N>`` as its own
``border-py`` process (one torch thread each, ``--jobs`` at a time). It is safe to stop and start again: a
finished run is skipped, a stopped one is resumed from its newest checkpoint, one stopped before its first
checkpoint starts over. ``report`` reads the run directories only (`campaigns.mujoco_report`).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import attrs

from border_py.run.rundir import RunDir
from campaigns.jobs import Job, jobs

ALGOS = tuple(dict.fromkeys(j.algo for j in jobs("mujoco")))
"""The algorithms with MuJoCo jobs, in the jobs' order (``--algo``'s choices)."""


@attrs.frozen
class SeedRun:
    """One (env, seed) run of a job, and where it lives."""

    job: Job
    seed: int
    model_dir: Path
    overrides: tuple[str, ...] = ()
    """``--set`` overrides for a run from scratch after the job's own `Job.changes` (a smoke test's tiny
    budget); none for the campaign."""

    def finished(self) -> bool:
        """Whether the run's newest checkpoint is at its budget (env steps or opt steps)."""
        run_dir = RunDir(self.model_dir)
        if run_dir.resume_point() is None:
            return False
        trainer, result = run_dir.read_config().trainer, run_dir.last_result()
        return any(
            budget is not None and done >= budget
            for budget, done in (
                (trainer.max_env_steps, result.env_steps),
                (trainer.max_opts, result.opt_steps),
            )
        )

    def argv(self) -> list[str]:
        """The ``border-py`` command that carries the run on: resume from the newest checkpoint, or train
        from scratch (``--overwrite`` removes what a run stopped before its first checkpoint left)."""
        common = ["--model-dir", str(self.model_dir), "--no-progress"]
        if RunDir(self.model_dir).resume_point() is not None:
            return ["resume", *common]
        overrides = (*self.job.changes, *self.overrides)
        changes = ["--set", *overrides] if overrides else []
        return [
            "train",
            self.job.algo,
            "--env",
            self.job.env_id,
            "--seed",
            str(self.seed),
            "--overwrite",
            *common,
            *changes,
        ]


def seed_runs(
    out: Path,
    algo: str,
    envs: Sequence[str] | None = None,
    seeds: Sequence[int] | None = None,
    overrides: Sequence[str] = (),
) -> list[SeedRun]:
    """The algorithm's runs (of ``envs`` and ``seeds`` alone, if given), seed-major: every env's seed 0
    first, so a partial campaign covers every env.

    Raises:
        ValueError: an env the algorithm has no job for.
    """
    chosen = [j for j in jobs("mujoco", algo) if envs is None or j.env_id in envs]
    unknown = sorted(set(envs or ()) - {j.env_id for j in chosen})
    if unknown:
        raise ValueError(
            f"no {algo} job for {unknown}: give some of {[j.env_id for j in jobs('mujoco', algo)]}"
        )
    wanted = sorted({seed for j in chosen for seed in j.seeds} if seeds is None else set(seeds))
    return [
        SeedRun(j, seed, out / algo / j.env_id / f"seed{seed}", tuple(overrides))
        for seed in wanted
        for j in chosen
    ]


def _carry_on(job: SeedRun) -> tuple[SeedRun, int, float]:
    job.model_dir.mkdir(parents=True, exist_ok=True)
    log = job.model_dir.parent / f"seed{job.seed}.log"
    start = time.perf_counter()
    with log.open("a", encoding="utf-8") as out:
        argv = [sys.executable, "-m", "border_py", *job.argv()]
        out.write(f"$ {' '.join(argv)}\n")
        out.flush()
        status = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT, check=False).returncode
    return job, status, time.perf_counter() - start


def run(runs: Sequence[SeedRun], out: Path, n_jobs: int) -> int:
    """Runs what is left of ``runs``, ``n_jobs`` processes at a time; 1 if any run failed (its log named)."""
    todo = [job for job in runs if not job.finished()]
    print(f"{len(todo)} run(s) to train or resume in {out}, {n_jobs} at a time", flush=True)
    failed = 0
    with ThreadPoolExecutor(max_workers=n_jobs) as pool:
        for job, status, seconds in pool.map(_carry_on, todo):
            where = job.model_dir.parent / f"seed{job.seed}.log"
            verdict = "done" if status == 0 else f"FAILED with status {status} (see {where})"
            print(f"{job.job.name} seed {job.seed}: {verdict} in {seconds / 60:.1f} min", flush=True)
            failed += status != 0
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    """``run`` or ``report``."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("command", choices=["run", "report"])
    parser.add_argument("--algo", choices=ALGOS, default="ppo")
    parser.add_argument("--out", type=Path, default=Path("runs/mujoco"), help="run directories go here")
    parser.add_argument("--envs", nargs="+", help="some of the algorithm's envs only")
    parser.add_argument("--seeds", nargs="+", type=int, help="these seeds (default: the jobs')")
    parser.add_argument("--jobs", type=int, default=2, help="runs at a time (run)")
    parser.add_argument("--figures", type=Path, default=None, help="write the PNGs here (report)")
    parser.add_argument("--episodes", type=int, default=10, help="final evaluation episodes (report)")
    parser.add_argument(
        "--set", nargs="+", default=[], metavar="KEY=VALUE", help="overrides for new runs (a smoke test)"
    )
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be >= 1, got {args.jobs}")
    try:
        runs = seed_runs(args.out, args.algo, args.envs, args.seeds, args.set)
    except ValueError as exc:
        parser.error(str(exc))
    if args.command == "run":
        return run(runs, args.out, args.jobs)
    from campaigns import mujoco_report

    return mujoco_report.report(runs, args.out, args.figures, args.episodes)


if __name__ == "__main__":
    sys.exit(main())
