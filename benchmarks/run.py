"""Runs the comparisons and prints one markdown table: ``python -m benchmarks.run [--threads 1 2]
[--quick] [--only sampling buffers ...] [--out FILE]``.

Each comparison runs border_py and its reference in the same process, in alternating rounds, at the same
torch thread count (``torch.set_num_threads``), so the ratio is meaningful on a noisy machine even when the
absolute numbers are not.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch

from benchmarks import (
    atari,
    buffers,
    dqn,
    end_to_end,
    evaluation,
    export,
    minimal_update,
    offline,
    ppo,
    sampling,
    vector,
)
from benchmarks.common import Row, machine, table
from border_py.seeding import configure_torch

SUITES: dict[str, Callable[[int, bool], list[Row]]] = {
    "sampling": sampling.run,
    "evaluation": evaluation.run,
    "buffers": buffers.run,
    "dqn": dqn.run,
    "minimal_update": minimal_update.run,
    "vector": vector.run,
    "end_to_end": end_to_end.run,
    "ppo": ppo.run,
    "offline": offline.run,
    "offline_hopper": offline.run_hopper,
    "export": export.run,
    "atari": atari.run,
}
OPT_IN = ("offline_hopper",)
"""Groups that run only when named in ``--only``: they need a dataset built by a slow target."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2], help="torch thread counts")
    parser.add_argument("--quick", action="store_true", help="short runs, no end-to-end training")
    parser.add_argument(
        "--only", nargs="+", choices=sorted(SUITES), default=[s for s in SUITES if s not in OPT_IN]
    )
    parser.add_argument("--out", type=Path, help="also write the table to this markdown file")
    parser.add_argument(
        "--keep-denormals",
        action="store_true",
        help="do not flush denormals to zero (the examples flush them; the setting applies to both sides)",
    )
    args = parser.parse_args(argv)
    if any(t < 1 for t in args.threads):
        parser.error(f"--threads must be >= 1, got {args.threads}")

    flush = not args.keep_denormals
    header = (
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; {machine()}; "
        f"denormals flushed to zero: {'yes' if flush else 'no'} (both sides)"
    )
    print(header, flush=True)
    rows: list[Row] = []
    for threads in args.threads:
        configure_torch(threads)  # what every run does: the thread count, and the denormal flush ...
        torch.set_flush_denormal(flush)  # ... unless --keep-denormals
        for name in args.only:
            start = time.perf_counter()
            try:
                new = SUITES[name](threads, args.quick)
            except FileNotFoundError as exc:  # the offline groups' datasets: `make datasets` builds them
                print(f"\nnote: {name} skipped: {' '.join(str(exc).split())}", flush=True)
                continue
            rows += new
            print(f"\n{name} at {threads} thread(s), {time.perf_counter() - start:.0f} s", flush=True)
            if new:
                print(table(new), flush=True)
    text = f"{header}\n\n{table(rows)}\n"
    print("\n" + text)
    if args.out is not None:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
