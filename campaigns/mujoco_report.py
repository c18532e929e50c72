"""The MuJoCo campaign's report, from its run directories alone: per run the final evaluation (the last
checkpoint, deterministic, normalisation statistics frozen) and the best one during training, the median
per env against RL Zoo's table, where the wall-clock went, and an rliable aggregate (interquartile mean of
normalised scores with stratified bootstrap confidence intervals) with its figure and the per-env curves.

A score is normalised as ``(score - random) / (rl_zoo - random)``: 1.0 is RL Zoo's published return for
the algorithm and env, 0.0 a uniform-random policy's (measured here over the same number of episodes).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np

from border_py.run.rundir import RunDir
from campaigns.jobs import Published

if TYPE_CHECKING:  # campaigns.mujoco imports this module to report: a type alone goes the other way
    from campaigns.mujoco import SeedRun

TIME_KEYS = ("time/act_seconds", "time/env_seconds", "time/opt_seconds", "time/eval_seconds")


@attrs.frozen
class RunSummary:
    """One finished (env, seed) run."""

    env_id: str
    seed: int
    published: Published
    final: float
    best: float
    env_steps: int
    seconds: dict[str, float]
    """Seconds spent per `TIME_KEYS` entry, summed over the run's records."""
    distance: float | None = None
    """The final evaluation's mean distance travelled forward (x, metres) an episode; ``None`` for an env
    that reports no ``x_position``. Standing still in Hopper earns about 1,000 and travels nowhere."""


def summarize_run(run: SeedRun, episodes: int) -> RunSummary:
    """Evaluates the run's last checkpoint and reads its counters and timings.

    Raises:
        FileNotFoundError: the run has no checkpoint (train it first).
    """
    from border_py.plot import read_curve

    model_dir = run.model_dir
    run_dir = RunDir(model_dir)
    point = run_dir.resume_point()
    if point is None:
        raise FileNotFoundError(f"{model_dir}: no checkpoint; run `python -m campaigns.mujoco run`")
    result = run_dir.last_result()
    final, distance = final_evaluation(run_dir.read_config(), point, episodes)
    seconds = {key: float(read_curve(model_dir, key).values.sum()) for key in TIME_KEYS}
    assert run.job.published is not None
    return RunSummary(
        run.job.env_id,
        run.seed,
        run.job.published,
        final,
        result.best_score,
        result.env_steps,
        seconds,
        distance,
    )


def final_evaluation(experiment: Any, saved: Path, episodes: int) -> tuple[float, float | None]:
    """The saved model's score by the experiment's own evaluator over ``episodes`` episodes (what
    ``border-py eval`` reports) and its mean forward distance an episode, from the MuJoCo env's
    ``x_position`` (``None`` when the env reports none)."""
    from contextlib import closing

    from border_py.run.experiment import build_eval_env
    from border_py.run.saved import load_agent

    with closing(build_eval_env(experiment)) as env:
        agent = load_agent(experiment, saved, env)
        odometer = _Odometer(env)
        evaluator = attrs.evolve(experiment.evaluator, n_episodes=episodes).build(odometer)
        score, _ = evaluator.evaluate(agent)
    known = [d for d in odometer.distances if d is not None]
    return float(score), (float(np.mean(known)) if len(known) == len(odometer.distances) else None)


class _Odometer:
    """The evaluation env, every call passed through, noting how far each episode went along x."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.distances: list[float | None] = []
        self._start: float | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.env, name)

    def reset_with_index(self, ix: int) -> Any:
        obs = self.env.reset_with_index(ix)
        self._start = _x_position(self.env)
        self.distances.append(None)
        return obs

    def step(self, act: Any) -> Any:
        step, record = self.env.step(act)
        x = step.info.get("x_position") if isinstance(step.info, dict) else None
        if x is not None and self._start is not None:
            self.distances[-1] = float(x) - self._start
        return step, record


def _x_position(env: Any) -> float | None:
    """The MuJoCo body's x position after a reset (``qpos[0]``), ``None`` for an env without one."""
    data = getattr(getattr(getattr(env, "env", None), "unwrapped", None), "data", None)
    return None if data is None else float(data.qpos[0])


def random_score(env_id: str, episodes: int, seed: int = 0) -> float:
    """A uniform-random policy's mean return over ``episodes`` episodes."""
    import gymnasium as gym

    env = gym.make(env_id)
    env.action_space.seed(seed)
    total = 0.0
    for episode in range(episodes):
        env.reset(seed=seed + episode)
        done = False
        while not done:
            _, reward, terminated, truncated, _ = env.step(env.action_space.sample())
            total += float(reward)
            done = terminated or truncated
    env.close()
    return total / episodes


def normalised(runs: Sequence[RunSummary], randoms: dict[str, float]) -> dict[str, Any]:
    """Per env, the seeds' normalised final scores as one (seeds, 1) array: rliable's layout for a task."""
    out: dict[str, Any] = {}
    for env_id in dict.fromkeys(r.env_id for r in runs):
        rows = [r for r in runs if r.env_id == env_id]
        zoo, low = rows[0].published.mean, randoms[env_id]
        out[env_id] = np.array([[(r.final - low) / (zoo - low)] for r in rows])
    return out


def aggregate(scores: dict[str, Any], reps: int = 5000) -> dict[str, tuple[float, float, float]]:
    """IQM, median and mean of the normalised scores over every run, each with its 95% stratified
    bootstrap confidence interval (rliable): name -> (point, low, high)."""
    from rliable import library as rly
    from rliable import metrics

    matrix = np.concatenate([scores[env] for env in scores], axis=1)  # (seeds, envs): resampled per env
    names = ("IQM", "median", "mean")

    def stats(x: Any) -> Any:
        return np.array([metrics.aggregate_iqm(x), metrics.aggregate_median(x), metrics.aggregate_mean(x)])

    points, intervals = rly.get_interval_estimates({"runs": matrix}, stats, reps=reps)
    return {
        name: (float(points["runs"][i]), float(intervals["runs"][0, i]), float(intervals["runs"][1, i]))
        for i, name in enumerate(names)
    }


def table(runs: Sequence[RunSummary], randoms: dict[str, float]) -> str:
    """The per-env markdown table: finals and bests per seed, medians against RL Zoo's number."""
    lines = [
        "| env | seeds | final eval per seed | distance per episode, final (m) | median final | "
        "best eval per seed | RL Zoo (its env) | median vs RL Zoo | random policy |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for env_id in dict.fromkeys(r.env_id for r in runs):
        rows = [r for r in runs if r.env_id == env_id]
        median = statistics.median(r.final for r in rows)
        published = rows[0].published
        zoo = published.mean
        spread = f" ± {published.std:,.1f}" if published.std is not None else ""
        cells = [
            env_id,
            ", ".join(str(r.seed) for r in rows),
            " / ".join(f"{r.final:,.1f}" for r in rows),
            " / ".join("n/a" if r.distance is None else f"{r.distance:,.1f}" for r in rows),
            f"{median:,.1f}",
            " / ".join(f"{r.best:,.1f}" for r in rows),
            f"{zoo:,.1f}{spread} ({published.env_id})",
            f"{median / zoo - 1:+.0%}",
            f"{randoms[env_id]:,.1f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def time_table(runs: Sequence[RunSummary]) -> str:
    """Where each run's time went (minutes, summed over its records), mean over seeds per env."""
    lines = [
        "| env | acting | env steps | gradient steps | evaluation | total |",
        "|---|---|---|---|---|---|",
    ]
    for env_id in dict.fromkeys(r.env_id for r in runs):
        rows = [r for r in runs if r.env_id == env_id]
        mean = {k: statistics.mean(r.seconds[k] for r in rows) / 60 for k in TIME_KEYS}
        cells = [env_id, *(f"{mean[k]:.1f} min" for k in TIME_KEYS), f"{sum(mean.values()):.1f} min"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def report(runs: Sequence[SeedRun], out: Path, figures: Path | None, episodes: int) -> int:
    """Prints the tables and the aggregate; with ``figures``, writes the per-env curves and the aggregate
    figure there. Runs that have not finished are listed and left out."""
    finished = [run for run in runs if run.finished()]
    missing = [f"{run.job.name} seed {run.seed}" for run in runs if run not in finished]
    if missing:
        print(f"not finished, left out: {', '.join(missing)}")
    if not finished:
        print(f"no finished run in {out}")
        return 1
    summaries = [summarize_run(run, episodes) for run in finished]
    randoms = {env: random_score(env, episodes) for env in dict.fromkeys(r.env_id for r in summaries)}
    print(table(summaries, randoms), "", time_table(summaries), "", sep="\n")
    scores = normalised(summaries, randoms)
    summary = aggregate(scores)
    for name, (point, low, high) in summary.items():
        print(f"{name} of normalised final scores over {len(summaries)} runs: {point:.2f} ", end="")
        print(f"(95% CI {low:.2f}-{high:.2f})")
    if figures is not None:
        from campaigns import mujoco_figures

        for job in dict.fromkeys(run.job for run in finished):
            dirs = [run.model_dir for run in finished if run.job == job]
            assert job.published is not None
            png = figures / f"{job.name}.png"
            name = f"{job.algo.upper()} {job.env_id}"
            print(f"wrote {mujoco_figures.curves(name, dirs, job.published.mean, png)}")
        png = figures / f"{finished[0].job.algo}_mujoco_aggregate.png"
        print(f"wrote {mujoco_figures.aggregate_figure(summary, scores, png)}")
    return 0
