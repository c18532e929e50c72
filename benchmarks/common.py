"""Timing, result rows and the markdown table every benchmark shares."""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable
from importlib import metadata

import attrs
import torch

Workload = Callable[[int], None]
"""Does ``n`` units of work (env steps, opt steps, samples ...); timed from outside."""


@attrs.frozen(kw_only=True)
class Rate:
    """Units per second of one side: the median over rounds, and the rounds themselves."""

    median: float
    rounds: tuple[float, ...]


def measure(work: Workload, n: int) -> float:
    """Units per second of one call ``work(n)``."""
    start = time.perf_counter()
    work(n)
    return n / (time.perf_counter() - start)


def compare(
    ours: Workload, reference: Workload, n: int, rounds: int = 5, warmup: int | None = None
) -> tuple[Rate, Rate]:
    """Rates of ``ours`` and ``reference``, measured in alternating rounds of ``n`` units each (after a
    warm-up call of ``warmup`` units each, ``n // 10`` by default, none for 0), so that both see the same
    machine state; returns the medians."""
    warmup = max(1, n // 10) if warmup is None else warmup
    if warmup:
        ours(warmup)
        reference(warmup)
    ours_rates, ref_rates = [], []
    for _ in range(rounds):
        ours_rates.append(measure(ours, n))
        ref_rates.append(measure(reference, n))
    return (
        Rate(median=statistics.median(ours_rates), rounds=tuple(ours_rates)),
        Rate(median=statistics.median(ref_rates), rounds=tuple(ref_rates)),
    )


@attrs.frozen(kw_only=True)
class Row:
    """One line of the results table: ``ours / reference`` with both absolute values beside it.

    ``higher_is_better`` is False for wall-clock rows (seconds), where the target is a ratio at most
    ``target``; otherwise the ratio must be at least ``target``.
    """

    name: str
    threads: int
    ours: float
    reference: float
    reference_name: str
    unit: str
    target: float | None = None
    higher_is_better: bool = True
    note: str = ""

    @property
    def ratio(self) -> float:
        return self.ours / self.reference if self.reference else float("nan")

    @property
    def verdict(self) -> str:
        if self.target is None:
            return ""
        met = self.ratio >= self.target if self.higher_is_better else self.ratio <= self.target
        sign = ">=" if self.higher_is_better else "<="
        return f"{'met' if met else 'MISSED'} ({sign} {self.target:g})"


def _fmt(x: float) -> str:
    if x >= 100:
        return f"{x:,.0f}"
    return f"{x:.3g}"


def table(rows: list[Row]) -> str:
    """The rows as a markdown table."""
    lines = [
        "| comparison | threads | border_py | reference | ratio | target | note |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.name} | {r.threads} | {_fmt(r.ours)} {r.unit} | {_fmt(r.reference)} {r.unit} "
            f"({r.reference_name}) | **{r.ratio:.3f}** | {r.verdict} | {r.note} |"
        )
    return "\n".join(lines)


def machine() -> str:
    """The machine, versions and thread settings, for the header of a results table."""
    versions = []
    for package in ("torch", "numpy", "gymnasium", "stable_baselines3", "tianshou"):
        try:
            versions.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{package} (not installed)")
    return (
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, {', '.join(versions)}; "
        f"torch default threads {torch.get_num_threads()}"
    )
