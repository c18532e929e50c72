"""Where a step of the sampling path goes: ``python -m benchmarks.sampling_profile [--threads N]``.

Runs `benchmarks.sampling`'s random-policy and acting workloads (20,000 CartPole steps after 2,000 of
warm-up) once without a profiler, for the time a step takes, and once under cProfile, for how that time
splits between the parts of the data path. Each part's share of the profiled time is scaled to the
unprofiled step: cProfile slows Python more than numpy's and torch's kernels, so the split is an estimate,
good to a few tenths of a microsecond.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

import torch

from benchmarks.common import Workload
from benchmarks.sampling import acting_loop, sampler_loop

# The parts, by the function whose cumulative time is the part's (file suffix, function name). The env
# adapter is `GymEnv.step` less the Gymnasium env's own `step` (CartPole and its wrappers); the sampler is
# what `sample_and_push` spends outside the other parts.
PARTS = {
    "policy (acting)": [("sampling.py", "sample"), ("torch_agent.py", "sample")],
    "Gymnasium env.step (wrappers + CartPole)": [("gymnasium/wrappers/common.py", "step")],
    "env adapter (GymEnv.step: checks, Step, records)": [("envs/gymnasium.py", "step")],
    "step processor": [("step_processor.py", "process")],
    "replay buffer push": [("replay_buffer/simple.py", "push")],
    "sampler": [("trainer/sampler.py", "sample_and_push")],
}


def _cumulative(stats: pstats.Stats, where: list[tuple[str, str]]) -> float:
    """The largest cumulative time of the functions ``where`` names (the outermost of nested wrappers)."""
    found = [
        value[3]
        # pstats.Stats.stats is set at run time and missing from typeshed's stub
        for (path, _, name), value in stats.stats.items()  # type: ignore[attr-defined]
        if any(path.endswith(suffix) and name == fn for suffix, fn in where)
    ]
    return max(found, default=0.0)


def split(work: Workload, n: int = 20_000) -> dict[str, float]:
    """Microseconds per step of each of `PARTS`, and ``total``, for ``n`` steps of ``work``."""
    work(n // 10)
    start = time.perf_counter()
    work(n)
    per_step = (time.perf_counter() - start) / n * 1e6
    profile = cProfile.Profile()
    profile.runcall(work, n)
    stats = pstats.Stats(profile)
    cum = {part: _cumulative(stats, where) for part, where in PARTS.items()}
    total = cum.pop("sampler")
    gym_step = cum["Gymnasium env.step (wrappers + CartPole)"]
    adapter = "env adapter (GymEnv.step: checks, Step, records)"
    cum[adapter] -= gym_step
    cum["sampler (the rest)"] = total - sum(cum.values())
    scale = per_step / total
    return {**{part: seconds * scale for part, seconds in cum.items()}, "total": per_step}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    random_split, acting_split = split(sampler_loop()), split(acting_loop((64, 64)))
    print("| part | random policy (us/step) | greedy 64x64 DQN, numpy acting (us/step) |")
    print("|---|---|---|")
    for part in random_split:
        print(f"| {part} | {random_split[part]:.2f} | {acting_split[part]:.2f} |")


if __name__ == "__main__":
    main()
