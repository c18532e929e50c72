"""Where SAC's update stands against SBX's on this CPU (issue 50's speed target: at most 0.9 x SBX's
wall-clock), measured as ratios in one run, one thread, pinned to one core:

1. the 256 x 256 matmul at a batch of 256 (most of a SAC update's arithmetic: 16 of them per update), torch
   against JAX's XLA (SBX's, in ``.venv-peers``, built by ``benchmarks/peers_venv.sh``), and torch in bf16;
2. the minimal SAC update of `benchmarks.minimal` in eager PyTorch against the same with its two losses
   under ``torch.compile`` (the one way past eager dispatch PyTorch offers on a CPU).

    taskset -c 1 .venv/bin/python -m benchmarks.sbx_gap
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from typing import Any

import torch

from benchmarks import minimal
from benchmarks.peers import ONE_THREAD, PEER_PYTHON, _one_core

SIZE = 256
"""Batch, width in, width out: SAC's Pendulum update (RL Zoo's 256 x 256 networks, batch 256)."""

_JAX_MATMUL = """
import json, time
import jax, jax.numpy as jnp
n = {size}
x, w, b = jnp.ones((n, n)), jnp.ones((n, n)), jnp.ones(n)
f = jax.jit(lambda x, w, b: x @ w + b)
for _ in range(50):
    f(x, w, b).block_until_ready()
runs = []
for _ in range({rounds}):
    t = time.perf_counter()
    for _ in range({reps}):
        f(x, w, b).block_until_ready()
    runs.append((time.perf_counter() - t) / {reps})
print(json.dumps(min(runs)))
"""


def _best_seconds(call: Callable[[], Any], reps: int = 2000, rounds: int = 3) -> float:
    """The fastest of ``rounds`` means over ``reps`` calls, after a warm-up."""
    for _ in range(50):
        call()
    runs = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(reps):
            call()
        runs.append((time.perf_counter() - start) / reps)
    return min(runs)


def matmuls() -> dict[str, float]:
    """Seconds per ``x @ w + b`` at `SIZE`: torch fp32 and bf16 here, JAX in the peers' virtualenv."""
    x, w, b = (torch.randn(SIZE, SIZE), torch.randn(SIZE, SIZE), torch.randn(SIZE))
    xb, wb, bb = x.bfloat16(), w.bfloat16(), b.bfloat16()
    out = {
        "torch fp32": _best_seconds(lambda: torch.addmm(b, x, w)),
        "torch bf16": _best_seconds(lambda: torch.addmm(bb, xb, wb)),
    }
    if PEER_PYTHON.exists():
        code = _JAX_MATMUL.format(size=SIZE, rounds=3, reps=2000)
        done = subprocess.run(
            [*_one_core(), str(PEER_PYTHON), "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env=ONE_THREAD,
        )
        out["jax (XLA) fp32"] = float(json.loads(done.stdout.strip().splitlines()[-1]))
    return out


def _sac_data(n: int = 100_000) -> minimal.Data:
    g = torch.Generator().manual_seed(0)
    return {
        "obs": torch.randn(n, 3, generator=g),
        "act": torch.rand(n, 1, generator=g) * 2 - 1,
        "reward": torch.randn(n, generator=g),
        "next_obs": torch.randn(n, 3, generator=g),
        "done": torch.zeros(n),
    }


def _sac_update(data: minimal.Data, compiled: bool) -> Callable[[int], None]:
    """`benchmarks.minimal.sac`'s update (alpha fixed at 0.1; the policy's backward reaches the critics'
    weights too, whose gradients the critics' next step clears), its two losses compiled when
    ``compiled``: the same work either way."""
    torch.manual_seed(0)
    actor = minimal.mlp(3, 2, (SIZE, SIZE))
    critics, targets = minimal._critics(3, 1, (SIZE, SIZE))
    opt_a, opt_c = minimal._adam(actor.parameters(), 3e-4), minimal._adam(critics.parameters(), 3e-4)
    online: list[torch.Tensor] = list(critics.parameters())
    tgt: list[torch.Tensor] = list(targets.parameters())

    def critic_loss(b: minimal.Data) -> torch.Tensor:
        with torch.no_grad():
            a2, logp2 = minimal._squashed(actor, b["next_obs"])
            q2 = minimal._q(targets, b["next_obs"], a2).min(dim=0).values - 0.1 * logp2
            y = b["reward"] + 0.99 * (1.0 - b["done"]) * q2
        return (0.5 * (minimal._q(critics, b["obs"], b["act"]) - y) ** 2).mean(dim=1).sum()

    def policy_loss(b: minimal.Data) -> torch.Tensor:
        a, logp = minimal._squashed(actor, b["obs"])
        return (0.1 * logp - minimal._q(critics, b["obs"], a).min(dim=0).values).mean()

    losses = (
        (torch.compile(critic_loss), torch.compile(policy_loss)) if compiled else (critic_loss, policy_loss)
    )

    def run(n: int) -> None:
        for _ in range(n):
            b = minimal._batch(data, SIZE)
            minimal._step(opt_c, losses[0](b))
            minimal._step(opt_a, losses[1](b))
            torch._foreach_lerp_(tgt, online, 0.005)

    return run


def updates(n: int = 300) -> dict[str, float]:
    """Updates per second of the minimal SAC update, eager and compiled, alternating twice (the best of
    each); the compiled one's first calls (its compilation) are outside the timing."""
    data, best = _sac_data(), {"eager": 0.0, "torch.compile": 0.0}
    for _ in range(2):
        for name in best:
            run = _sac_update(data, compiled=name != "eager")
            run(20)
            start = time.perf_counter()
            run(n)
            best[name] = max(best[name], n / (time.perf_counter() - start))
    return best


def main() -> None:
    torch.set_num_threads(1)
    torch.set_flush_denormal(True)
    times = matmuls()
    base = times["torch fp32"]
    print(f"| {SIZE} x {SIZE} matmul, batch {SIZE} | us | torch fp32 / this |")
    print("|---|---|---|")
    for name, seconds in times.items():
        print(f"| {name} | {seconds * 1e6:.0f} | {base / seconds:.2f} |")
    rates = updates()
    print(f"\n| minimal SAC update, {SIZE} x {SIZE} | updates/s | this / eager |")
    print("|---|---|---|")
    for name, rate in rates.items():
        print(f"| {name} | {rate:.1f} | {rate / rates['eager']:.2f} |")


if __name__ == "__main__":
    main()
