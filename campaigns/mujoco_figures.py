"""The MuJoCo report's figures: each env's evaluation curve over its seeds, and the aggregate (rliable's
interval estimates beside every run's normalised score)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from border_py import plot
from border_py.run.codec import with_defaults

KEY = "eval/episode_return"


def curves(name: str, run_dirs: Sequence[Path], rl_zoo: float, out: Path) -> Path:
    """The greedy evaluation return of the runs ``name`` (``PPO Hopper-v5``) against env steps: mean of
    the seeds and their min-max band, with RL Zoo's published return as a dashed line."""
    groups = plot.group_runs(list(run_dirs), KEY, with_defaults)
    return plot.plot(
        groups,
        KEY,
        out,
        axis="env_steps",
        title=f"{name}: greedy evaluation return",
        hlines={f"RL Zoo {rl_zoo:,.0f}": rl_zoo},
    )


def aggregate_figure(
    summary: Mapping[str, tuple[float, float, float]], scores: Mapping[str, Any], out: Path
) -> Path:
    """Left: IQM, median and mean of the normalised final scores with their 95% stratified bootstrap
    intervals. Right: every run's normalised final score per env."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(9.0, 3.4), dpi=100)
    try:
        names = list(summary)
        for row, name in enumerate(names):
            point, low, high = summary[name]
            left.plot([low, high], [row, row], linewidth=8, alpha=0.4, color="tab:blue")
            left.plot([point], [row], marker="|", markersize=16, color="black")
        left.set_yticks(range(len(names)), names)
        left.axvline(1.0, color="grey", linestyle="--", linewidth=1)
        left.set_xlabel("normalised score (1 = RL Zoo, 0 = random)")
        left.set_title("aggregate over envs and seeds")
        for row, env_id in enumerate(scores):
            values = scores[env_id].ravel()
            right.scatter(values, [row] * len(values), color="tab:blue", alpha=0.7)
        right.set_yticks(range(len(scores)), list(scores))
        right.axvline(1.0, color="grey", linestyle="--", linewidth=1)
        right.set_xlabel("normalised final score per seed")
        right.set_title("per env")
        for ax in (left, right):
            ax.grid(alpha=0.3, axis="x")
        fig.tight_layout()
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out)
    finally:
        plt.close(fig)
    return out
