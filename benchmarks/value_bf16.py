"""DQN's and IQN's update on Pong pixels (the zoo's ``ALE/Pong-v5`` entries: a batch of 32 frame stacks
through the Nature CNN, online and target networks), float32 against ``update_dtype: bfloat16`` (the loss
under autocast), interleaved in one process so the machine's load falls on both alike, and the learner time
that projects to for the entries' 500,000 updates (2M env steps, one update every 4).

    python -m benchmarks.value_bf16 --algos dqn iqn --threads 1 2 --rounds 8

The batches are random frames (the update's cost does not depend on what the pixels show); each round
times 10 updates of each dtype, fp32 first.
"""

from __future__ import annotations

import argparse
import time
from typing import Any, Literal

import attrs
import numpy as np
import torch

from border_py.agents.q_config import DeepQConfig
from border_py.agents.value_based import ValueBasedAgent
from border_py.base import Spaces
from border_py.replay_buffer import TransitionBatch
from border_py.run import zoo

_DTYPES: tuple[Literal["float32", "bfloat16"], ...] = ("float32", "bfloat16")
UPDATES_PER_ROUND, BUDGET_UPDATES = 10, 500_000


class _RandomFrames:
    """A replay buffer of fresh random Pong-sized frame stacks, one batch per call."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def _frames(self, n: int) -> torch.Tensor:
        return torch.from_numpy(self.rng.integers(0, 256, (n, 4, 84, 84), dtype=np.uint8))

    def batch(self, size: int) -> TransitionBatch:
        zeros = torch.zeros(size)
        return TransitionBatch(
            obs=self._frames(size),
            act=torch.from_numpy(self.rng.integers(0, 6, size)),
            next_obs=self._frames(size),
            reward=zeros,
            is_terminated=zeros,
            is_truncated=zeros,
            discount=zeros + 0.99,
            ix_sample=np.arange(size),
            weight=None,
        )

    def update_priority(self, indices: np.ndarray, td_errors: np.ndarray) -> None:
        raise AssertionError("the Pong entries replay uniformly")

    def __len__(self) -> int:
        return 1_000_000


def _agent(algo: str, update_dtype: Literal["float32", "bfloat16"]) -> ValueBasedAgent[Any, Any, Any]:
    entry = zoo.experiment(algo, "ALE/Pong-v5").agent
    assert isinstance(entry, DeepQConfig)
    config = attrs.evolve(entry, update_dtype=update_dtype)
    agent = config.build(Spaces(obs_shape=(4, 84, 84), n_actions=6), seed=0)
    assert isinstance(agent, ValueBasedAgent)
    return agent


def measure(algo: str, threads: int, rounds: int) -> dict[str, float]:
    """Seconds per update of each dtype (after 2 warm-up updates each)."""
    torch.set_num_threads(threads)
    agents = {dtype: _agent(algo, dtype) for dtype in _DTYPES}
    buffer = _RandomFrames()
    for agent in agents.values():
        for _ in range(2):
            agent.opt(buffer)
    spent = dict.fromkeys(agents, 0.0)
    for _ in range(rounds):
        for dtype, agent in agents.items():
            start = time.perf_counter()
            for _ in range(UPDATES_PER_ROUND):
                agent.opt(buffer)
            spent[dtype] += time.perf_counter() - start
    return {dtype: s / (rounds * UPDATES_PER_ROUND) for dtype, s in spent.items()}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--algos", nargs="+", default=["dqn", "iqn"], choices=["dqn", "qrdqn", "iqn"])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args()
    print(
        "| algorithm | threads | update fp32 (ms) | update bf16 (ms) | fp32 / bf16 | 500k updates fp32 (h)"
        " | bf16 (h) |"
    )
    print("|---|---|---|---|---|---|---|")
    for algo in args.algos:
        for threads in args.threads:
            t = measure(algo, threads, args.rounds)
            full, half = t["float32"], t["bfloat16"]
            hours = BUDGET_UPDATES / 3600
            print(
                f"| {algo} | {threads} | {full * 1e3:.1f} | {half * 1e3:.1f} | {full / half:.2f} | "
                f"{full * hours:.1f} | {half * hours:.1f} |"
            )


if __name__ == "__main__":
    main()
