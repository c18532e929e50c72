"""Learning curves as pictures:

    python -m border_py.plot RUN_DIR... --key eval/episode_return --out curve.png

Each run directory is a trainer's ``model_dir`` (its ``config.yaml`` and the TensorBoard event files the
examples write under it); a directory holding several of them (``runs/reference/sac_pendulum`` with
``seed0``, ``seed1``, ...) stands for all of them. Runs whose configs differ only in the seed and the
``model_dir`` are one group, drawn as one line: the mean with a min-max band, or (``--band iqm``) the
interquartile mean with a bootstrap 95% confidence interval over seeds. With fewer than 5 seeds that
interval is the min-max range itself, so ``--band iqm`` draws and labels the min-max band there (and the
IQM of fewer than 4 seeds is their mean, labelled so). The x axis is opt steps (the recorder's step) or
env steps (the ``env_steps`` counter the trainer records alongside).

The events are read with TensorBoard's own reader and drawn with matplotlib's non-interactive backend, so
it runs headless; both come with the ``plot`` extra (``pip install 'border_py[plot]'``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeAlias

import attrs
import numpy as np
import numpy.typing as npt

from border_py.cli_parser import Parser
from border_py.config import parse_yaml

XAxis: TypeAlias = Literal["opt_steps", "env_steps"]
Band: TypeAlias = Literal["minmax", "iqm"]
F64: TypeAlias = npt.NDArray[np.float64]

CI_MIN_SEEDS = 5
"""Seeds a bootstrap CI needs to be narrower than the min-max range: with 4 or fewer, at least 2.5% of the
resamples draw (nearly) only the lowest seed, so the 2.5th percentile is the minimum (and the 97.5th the
maximum)."""

_SEED_KEYS = {"seed", "model_dir"}
"""Config keys that differ between the seeds of one configuration; any other difference makes a new group."""


def _require_plot_extra() -> None:
    try:
        import matplotlib  # noqa: F401
        import tensorboard  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            f"border_py.plot needs matplotlib and tensorboard ({exc.name} is missing): "
            "pip install 'border_py[plot]'"
        ) from exc


@attrs.frozen
class Curve:
    """One run's series of ``key``: the opt step and env step of each point and its value."""

    run_dir: Path
    opt_steps: F64
    env_steps: F64
    values: F64

    def x(self, axis: XAxis) -> F64:
        """The points' positions on ``axis``."""
        return self.opt_steps if axis == "opt_steps" else self.env_steps


@attrs.frozen
class Group:
    """Runs of one configuration (its seeds) under one label."""

    label: str
    curves: list[Curve]


def find_runs(paths: Sequence[Path]) -> list[Path]:
    """The run directories under ``paths``: each path that holds event files itself, else those below it.

    Raises:
        FileNotFoundError: a path does not exist or holds no TensorBoard event files.
    """
    runs: list[Path] = []
    for path in paths:
        if not path.is_dir():
            raise FileNotFoundError(f"{path}: no such run directory")
        events = sorted(path.rglob("events.out.tfevents.*"))
        if not events:
            raise FileNotFoundError(f"{path}: no TensorBoard event files (events.out.tfevents.*) in it")
        own = [e for e in events if _run_dir_of(e) == path]
        found = [path] if own else sorted({_run_dir_of(e) for e in events})
        runs.extend(r for r in found if r not in runs)
    return runs


def _own_event_dirs(run_dir: Path) -> list[Path]:
    """The directories of ``run_dir``'s event files, less those of a run nested in it (a subdirectory with
    a ``config.yaml`` of its own, such as AWAC's fine-tuning run in ``model_dir/finetune``): their steps
    would interleave with the run's own."""
    return sorted(
        {
            e.parent
            for e in run_dir.rglob("events.out.tfevents.*")
            if not any(
                (p / "config.yaml").is_file() for p in e.parents if p != run_dir and p.is_relative_to(run_dir)
            )
        }
    )


def _run_dir_of(event_file: Path) -> Path:
    """The run an event file belongs to: the nearest directory above it with a ``config.yaml``, else the
    event file's directory (the examples write events to ``model_dir/tensorboard``)."""
    for parent in event_file.parents:
        if (parent / "config.yaml").is_file():
            return parent
    return event_file.parent


def read_curve(run_dir: Path, key: str) -> Curve:
    """``key``'s series in ``run_dir``'s event files (all of them, in order: a resumed run's too; not those
    of a run nested in it).

    A resumed run's writer purges the steps after its checkpoint; TensorBoard's reader applies that purge, so
    the series has each step once.

    Raises:
        KeyError: ``key`` is not among the run's scalars (the message lists those that are).
    """
    _require_plot_extra()
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    values: dict[int, float] = {}
    env_steps: dict[int, float] = {}
    for logdir in _own_event_dirs(run_dir):
        acc = EventAccumulator(str(logdir), size_guidance={"scalars": 0})
        acc.Reload()
        tags = acc.Tags()["scalars"]
        if key in tags:
            values.update((e.step, e.value) for e in acc.Scalars(key))
        if "env_steps" in tags:
            env_steps.update((e.step, e.value) for e in acc.Scalars("env_steps"))
    if not values:
        available = sorted(_scalar_tags(run_dir))
        raise KeyError(f"{run_dir}: no scalar {key!r}; its scalars are {available}")
    steps = np.array(sorted(values), dtype=np.float64)
    return Curve(
        run_dir=run_dir,
        opt_steps=steps,
        env_steps=_env_steps_at(steps, env_steps),
        values=np.array([values[int(s)] for s in steps], dtype=np.float64),
    )


def _scalar_tags(run_dir: Path) -> set[str]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    tags: set[str] = set()
    for logdir in _own_event_dirs(run_dir):
        acc = EventAccumulator(str(logdir), size_guidance={"scalars": 0})
        acc.Reload()
        tags.update(acc.Tags()["scalars"])
    return tags


def _env_steps_at(steps: F64, env_steps: dict[int, float]) -> F64:
    """The env step at each opt step, interpolated between the recorded counters (an offline run records
    none: its env steps are all 0)."""
    if not env_steps:
        return np.zeros_like(steps)
    known = np.array(sorted(env_steps), dtype=np.float64)
    return np.interp(steps, known, np.array([env_steps[int(k)] for k in known], dtype=np.float64))


Normalise: TypeAlias = Callable[[Any], Any]
"""A run's ``config.yaml`` data as runs are compared by (`group_runs`): the command lines pass
`border_py.run.codec.with_defaults`, so that a run written before a field existed groups with one written
after; this module, below the run layer, knows no experiment."""


def _as_written(config: Any) -> Any:
    return config


def _config_key(run_dir: Path, normalise: Normalise) -> str:
    """The run's config without its seed and model_dir, as a canonical string (runs without a
    ``config.yaml`` are their own group)."""
    path = run_dir / "config.yaml"
    if not path.is_file():
        return str(run_dir)
    config = parse_yaml(path.read_text(), str(path))
    return json.dumps(_without_seed(normalise(config)), sort_keys=True, default=str)


def _without_seed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_seed(v) for k, v in value.items() if k not in _SEED_KEYS}
    if isinstance(value, list):
        return [_without_seed(v) for v in value]
    return value


def group_runs(run_dirs: Sequence[Path], key: str, normalise: Normalise = _as_written) -> list[Group]:
    """Reads ``key`` from each run and groups the runs whose configs differ only in seed and model_dir.

    A group is labelled by its runs' common parent directory name (``sac_pendulum`` for
    ``runs/reference/sac_pendulum/seed0..2``), or by its single run's name. ``normalise`` maps each
    ``config.yaml``'s data before they are compared (as written by default; `Normalise`).
    """
    by_config: dict[str, list[Path]] = {}
    for run_dir in run_dirs:
        by_config.setdefault(_config_key(run_dir, normalise), []).append(run_dir)
    groups = []
    for dirs in by_config.values():
        label = dirs[0].name if len(dirs) == 1 else Path(*_common_parts(dirs)).name or dirs[0].name
        groups.append(Group(label=label, curves=[read_curve(d, key) for d in dirs]))
    return groups


def _common_parts(dirs: Sequence[Path]) -> list[str]:
    parts = [d.resolve().parts for d in dirs]
    common: list[str] = []
    for items in zip(*parts, strict=False):
        if len(set(items)) != 1:
            break
        common.append(items[0])
    return common


def interquartile_mean(values: F64, axis: int = 0) -> F64:
    """The mean of the middle half along ``axis``: a quarter of the values cut from each end (rounded down,
    so with fewer than 4 seeds it is the plain mean)."""
    n = values.shape[axis]
    cut = n // 4
    ordered = np.sort(values, axis=axis)
    middle = np.take(ordered, np.arange(cut, n - cut), axis=axis)
    return np.asarray(middle.mean(axis=axis), dtype=np.float64)


def bootstrap_ci(values: F64, n_resamples: int = 2000, seed: int = 0) -> tuple[F64, F64]:
    """The 95% bootstrap confidence interval of the interquartile mean over seeds (``values``: seeds x
    points), resampling seeds with replacement; seeded so a figure is reproducible."""
    rng = np.random.default_rng(seed)
    n = values.shape[0]
    picks = rng.integers(0, n, size=(n_resamples, n))
    stats = interquartile_mean(values[picks], axis=1)  # (n_resamples, points)
    low, high = np.percentile(stats, [2.5, 97.5], axis=0)
    return np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)


@attrs.frozen
class Summary:
    """A group's centre line and band on a common x grid."""

    x: F64
    centre: F64
    low: F64
    high: F64


def summarize(curves: Sequence[Curve], axis: XAxis = "opt_steps", band: Band = "minmax") -> Summary:
    """The seeds' curves on a common grid (the union of their x values where they all have data, each
    interpolated linearly) and their mean with the min-max band, or their IQM with its bootstrap CI (the
    min-max band below `CI_MIN_SEEDS` seeds)."""
    lo = max(float(c.x(axis)[0]) for c in curves)
    hi = min(float(c.x(axis)[-1]) for c in curves)
    grid = np.unique(np.concatenate([c.x(axis) for c in curves]))
    grid = grid[(grid >= lo) & (grid <= hi)]
    ys = np.stack([np.interp(grid, c.x(axis), c.values) for c in curves])
    if band == "minmax":
        return Summary(grid, ys.mean(axis=0), ys.min(axis=0), ys.max(axis=0))
    if len(curves) < CI_MIN_SEEDS:
        return Summary(grid, interquartile_mean(ys), ys.min(axis=0), ys.max(axis=0))
    low, high = bootstrap_ci(ys)
    return Summary(grid, interquartile_mean(ys), low, high)


def legend_label(label: str, n_seeds: int, band: Band) -> str:
    """A group's legend entry: what its line is and, over several seeds, what its band is, as `summarize`
    draws them.

    Examples:
        >>> legend_label("dqn", 3, "minmax"), legend_label("sac", 5, "iqm"), legend_label("x", 1, "iqm")
        ('dqn (mean of 3 seeds; band: min-max)', 'sac (IQM of 5 seeds; band: 95% bootstrap CI)', 'x (1 seed)')
        >>> legend_label("td3", 3, "iqm")
        'td3 (mean of 3 seeds; band: min-max, a bootstrap CI needs 5 seeds)'
    """
    if n_seeds == 1:
        return f"{label} (1 seed)"
    if band == "minmax":
        return f"{label} (mean of {n_seeds} seeds; band: min-max)"
    centre = "IQM" if n_seeds >= 4 else "mean"
    spread = (
        "95% bootstrap CI"
        if n_seeds >= CI_MIN_SEEDS
        else f"min-max, a bootstrap CI needs {CI_MIN_SEEDS} seeds"
    )
    return f"{label} ({centre} of {n_seeds} seeds; band: {spread})"


def plot(
    groups: Sequence[Group],
    key: str,
    out: Path,
    axis: XAxis = "opt_steps",
    band: Band = "minmax",
    title: str | None = None,
    hlines: Mapping[str, float] | None = None,
) -> Path:
    """Draws each group's summary (a line and a shaded band), and a dashed line at each of ``hlines``
    (label -> y, e.g. a threshold), and writes the figure to ``out`` (the format follows its suffix:
    ``.png``, ``.svg``, ``.pdf``)."""
    _require_plot_extra()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=100)
    try:
        for group in groups:
            s = summarize(group.curves, axis, band)
            n = len(group.curves)
            (line,) = ax.plot(s.x, s.centre, label=legend_label(group.label, n, band))
            if n > 1:
                ax.fill_between(s.x, s.low, s.high, color=line.get_color(), alpha=0.2, linewidth=0)
        for label, y in (hlines or {}).items():
            ax.axhline(y, color="grey", linestyle="--", linewidth=1, label=label)
        ax.set_xlabel("env steps" if axis == "env_steps" else "opt steps")
        ax.set_ylabel(key)
        ax.set_title(title or key)
        ax.grid(alpha=0.3)
        ax.legend(loc="best", fontsize="small")
        fig.tight_layout()
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out)
    finally:
        plt.close(fig)
    return out


def parser(prog: str = "python -m border_py.plot") -> argparse.ArgumentParser:
    """The command line's parser (``border-py plot`` hands it its arguments)."""
    parser = Parser(prog=prog, description=(__doc__ or "").replace("python -m border_py.plot", prog))
    parser.add_argument("run_dirs", nargs="+", type=Path, metavar="RUN_DIR")
    parser.add_argument("--key", default="eval/episode_return", help="the scalar to draw")
    parser.add_argument("--out", type=Path, default=Path("curve.png"), help="the figure file")
    parser.add_argument("--x", dest="axis", choices=["opt_steps", "env_steps"], default="opt_steps")
    parser.add_argument("--band", choices=["minmax", "iqm"], default="minmax")
    parser.add_argument("--title", default=None)
    parser.add_argument("--hline", type=float, default=None, help="a dashed reference line at this value")
    return parser


def main(
    argv: Sequence[str] | None = None,
    prog: str = "python -m border_py.plot",
    normalise: Normalise = _as_written,
) -> int:
    """The command line: ``python -m border_py.plot RUN_DIR... --key K --out curve.png``; ``normalise``:
    see `group_runs` (``border-py plot`` and ``python -m border_py.plot`` give the run layer's)."""
    args = parser(prog).parse_args(argv)
    hlines = {f"reference {args.hline:g}": args.hline} if args.hline is not None else None
    try:
        groups = group_runs(find_runs(args.run_dirs), args.key, normalise)
        out = plot(groups, args.key, args.out, args.axis, args.band, args.title, hlines)
    except (FileNotFoundError, KeyError, ImportError) as exc:
        print(f"error: {exc.args[0] if isinstance(exc, KeyError) else exc}", file=sys.stderr)
        return 2
    n_runs = sum(len(g.curves) for g in groups)
    print(f"wrote {out}: {n_runs} run(s) in {len(groups)} group(s)")
    return 0


if __name__ == "__main__":  # the program, imported by no module: it may use the run layer's codec
    from border_py.run.codec import with_defaults

    sys.exit(main(normalise=with_defaults))
