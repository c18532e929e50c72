"""Every zoo entry trained briefly, its final checkpoint dumped tensor by tensor, and two such dumps compared:
the check that a change to the agents' shared code leaves their training bit for bit as it was.

    # in a worktree of the commit before the change (PYTHONPATH puts its border_py first)
    PYTHONPATH=. python -m benchmarks.agent_bits run --out /tmp/bits-before
    python -m benchmarks.agent_bits run --out /tmp/bits-after
    python -m benchmarks.agent_bits compare /tmp/bits-before /tmp/bits-after

Each entry runs the zoo's settings with the smoke test's small budget (``tests/run/conftest.tiny``: small
buffers and batches, one evaluation episode) for ``--opts`` opt steps, seed 0, on the CPU, then every tensor
of every file of its last checkpoint (networks, optimiser states, generator states, counters) goes into one
file per entry.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

import torch

from border_py.run import TrainOptions, experiment_from_dict, train, zoo
from tests.run.conftest import make_entry_dataset, tiny

QUIET = TrainOptions(progress=False, quiet=True)


def entries(only: list[str] | None) -> list[tuple[str, str, str | None]]:
    """Every zoo entry and variant but the Ray actors' (``async``), or those of the ``only`` algorithms."""
    return [
        (algo, env_id, variant)
        for algo in zoo.algorithms()
        if not only or algo in only
        for env_id in zoo.env_ids(algo)
        for variant in [None, *zoo.variants(algo, env_id)]
        if variant != "async"
    ]


def flatten(value: Any, prefix: str, out: dict[str, Any]) -> None:
    """Every leaf of a loaded checkpoint file under a dotted key: tensors as they are, the rest as text."""
    if isinstance(value, dict):
        for key, item in value.items():
            flatten(item, f"{prefix}.{key}", out)
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            flatten(item, f"{prefix}.{i}", out)
    elif isinstance(value, torch.Tensor):
        out[prefix] = value
    else:
        out[prefix] = repr(value)


def checkpoint_leaves(directory: Path) -> dict[str, Any]:
    """Every leaf of every ``.pt`` file in ``directory``, keyed by file and path."""
    out: dict[str, Any] = {}
    for file in sorted(directory.glob("*.pt")):
        flatten(torch.load(file, map_location="cpu", weights_only=True), file.name, out)
    return out


def run_entry(entry: tuple[str, str, str | None], opts: int, root: Path) -> dict[str, Any]:
    """Trains one entry for ``opts`` opt steps under ``root``; returns its last checkpoint's leaves."""
    algo, env_id, variant = entry
    data = zoo.entry(algo, env_id, variant).data
    datasets = root / "datasets"
    make_entry_dataset(data, datasets)
    if data.get("init_from", "") is None or (algo == "awac" and "dataset" not in data):
        # A fine-tuning entry starts from an offline run's best/: make one first.
        offline = tiny(zoo.entry("awac", "pendulum-medium-v0").data, root / "off", datasets, opts)
        train(experiment_from_dict(offline), QUIET)
        data = {**data, "init_from": str(root / "off" / "best")}
    train(experiment_from_dict(tiny(data, root / "run", datasets, opts)), QUIET)
    return checkpoint_leaves(root / "run" / str(opts))


def run(out: Path, opts: int, only: list[str] | None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for entry in entries(only):
        name = "-".join(part for part in entry if part).replace("/", "_")
        with tempfile.TemporaryDirectory() as tmp:
            leaves = run_entry(entry, opts, Path(tmp))
        torch.save(leaves, out / f"{name}.pt")
        print(f"{name}: {sum(isinstance(v, torch.Tensor) for v in leaves.values())} tensors", flush=True)


def compare(before: Path, after: Path) -> int:
    """Prints each entry's verdict; returns the number of entries that differ or are missing."""
    bad = 0
    for file in sorted(before.glob("*.pt")):
        other = after / file.name
        if not other.exists():
            print(f"{file.stem}: missing in {after}")
            bad += 1
            continue
        a, b = torch.load(file, weights_only=True), torch.load(other, weights_only=True)
        differ = [k for k in a if k not in b or not _equal(a[k], b[k])] + [k for k in b if k not in a]
        tensors = sum(isinstance(v, torch.Tensor) for v in a.values())
        print(f"{file.stem}: {tensors} tensors, " + (f"DIFFERENT: {differ[:6]}" if differ else "all equal"))
        bad += bool(differ)
    return bad


def _equal(x: Any, y: Any) -> bool:
    if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
        return x.dtype == y.dtype and x.shape == y.shape and bool(torch.equal(x, y))
    return bool(x == y)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    verbs = parser.add_subparsers(dest="verb", required=True)
    run_p = verbs.add_parser("run", help="train every zoo entry briefly and dump its last checkpoint")
    run_p.add_argument("--out", type=Path, required=True)
    run_p.add_argument("--opts", type=int, default=40, help="opt steps per entry")
    run_p.add_argument("--only", nargs="*", help="only these algorithms")
    cmp_p = verbs.add_parser("compare", help="compare two dumps tensor by tensor")
    cmp_p.add_argument("before", type=Path)
    cmp_p.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    if args.verb == "run":
        run(args.out, args.opts, args.only)
        return 0
    return 1 if compare(args.before, args.after) else 0


if __name__ == "__main__":
    sys.exit(main())
