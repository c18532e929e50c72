"""Batch-1 speed of exported policies on a busy machine: ``python -m benchmarks.export_threads``.

For each number of busy processes (each a Python loop spinning on a core, started beside the measurement),
the zoo's DQN, IQN and SAC networks act on one observation per call: the numpy policy with numpy's BLAS at
its default thread count and at one thread (threadpoolctl), and torch eager at torch's default thread
count and at one thread. Prints the median calls per second of alternating rounds, one line per network
(``--busy 0 1 2``: the rows' numbers of busy processes).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import threadpoolctl
import torch

from benchmarks.export import _agents, _torch_eager
from border_py.export import NumpyPolicy, export_numpy

NETWORKS = ("DQN CartPole 256x256", "IQN CartPole 256/256/256, 32 taus", "SAC Pendulum actor 256x256")


@contextmanager
def busy(n: int) -> Iterator[None]:
    """``n`` processes that keep a core each busy while the block runs."""
    spin = f"import os\nwhile os.getppid() == {os.getpid()}: pass"  # ends with this process, killed or not
    procs = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(n)]
    time.sleep(0.5)  # they are spinning before the first round
    try:
        yield
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def calls_per_second(act: Callable[[np.ndarray], Any], observations: list[np.ndarray], n: int) -> float:
    """One round: ``n`` batch-1 calls."""
    start = time.perf_counter()
    for i in range(n):
        act(observations[i % len(observations)])
    return n / (time.perf_counter() - start)


def measure(name: str, agent: Any, rounds: int, n: int) -> dict[str, float]:
    """The median calls per second of the four ways to act, in alternating rounds."""
    observations = list(np.random.default_rng(0).normal(size=(256, agent.obs_dim)).astype(np.float32))
    policy = NumpyPolicy.load(export_numpy(agent, tempfile.mkdtemp()))
    torch_act = _torch_eager(agent)
    default = torch.get_num_threads()
    results: dict[str, list[float]] = {"numpy": [], "numpy 1": [], "torch": [], "torch 1": []}
    try:
        for _ in range(rounds):
            results["numpy"].append(calls_per_second(policy.act, observations, n))
            with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
                results["numpy 1"].append(calls_per_second(policy.act, observations, n))
            results["torch"].append(calls_per_second(torch_act, observations, n))
            torch.set_num_threads(1)
            results["torch 1"].append(calls_per_second(torch_act, observations, n))
            torch.set_num_threads(default)
    finally:
        torch.set_num_threads(default)
    return {key: statistics.median(values) for key, values in results.items()}


def main(argv: list[str] | None = None) -> int:
    """Prints the table's rows."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--busy", type=int, nargs="+", default=[0, 1, 2], help="busy processes per row")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=2000, help="calls per round")
    args = parser.parse_args(argv)
    blas = threadpoolctl.threadpool_info()[0]["num_threads"]
    print(f"default threads: numpy's BLAS {blas}, torch {torch.get_num_threads()}")
    agents = _agents()
    for n_busy in args.busy:
        with busy(n_busy):
            for name in NETWORKS:
                rates = measure(name, agents[name], args.rounds, args.calls)
                cells = ", ".join(f"{key} {rate:,.0f}/s" for key, rate in rates.items())
                print(f"busy {n_busy}, {name}: {cells}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
