"""PPO on Pong pixels (the zoo's ``ppo`` ``ALE/Pong-v5`` entry): where one rollout's time goes, at 1 and 2
torch threads, fp32 and under bf16 autocast, and the wall-clock that projects to for the run's budget.

    python -m benchmarks.ppo_atari --rollouts 3 --threads 1 2 --budget 2500000

A rollout is 8 games x 128 steps (1,024 env steps): collection (ale-py's vector env stepping 8 games, the
policy acting for all 8 with one forward pass, the step processors and the rollout buffer), then ``opt``:
the rollout's preparation (values and log-probabilities of the collecting policy, GAE) and the update (4
epochs of 4 minibatches of 256). The bf16 update (``update_dtype: bfloat16``, the forward passes under
autocast) is timed on a copy of the agent; the zoo entry trains in fp32.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
from typing import Any

import attrs
import torch

from border_py import AtariEnvConfig, AtariVecEnvConfig, SimpleStepProcessorConfig
from border_py.agents import Ppo, PpoConfig
from border_py.base import Spaces
from border_py.replay_buffer import RolloutBufferConfig
from border_py.replay_buffer.rollout import Rollout
from border_py.run import zoo
from border_py.trainer.sampler import SyncSampler

GAMES, STEPS = 8, 128


def _agent(spaces: Any) -> Ppo:
    """The zoo's ``ALE/Pong-v5`` agent: the one the campaign trains."""
    config = zoo.experiment("ppo", "ALE/Pong-v5").agent
    assert isinstance(config, PpoConfig)
    return config.build(spaces, seed=0)


def _timed(work: Any) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def _opt_times(agent: Ppo, rollout: Rollout) -> tuple[float, float, float]:
    """Seconds of the preparation, the fp32 update and the bf16 update (on a copy) of ``rollout``."""
    data: dict[str, torch.Tensor] = {}
    prepare = _timed(lambda: data.update(agent._prepare(rollout)))
    twin = copy.deepcopy(agent)
    twin.config = attrs.evolve(agent.config, update_dtype="bfloat16")  # the agent's own bf16 update
    update = _timed(lambda: agent._update(data))
    return prepare, update, _timed(lambda: twin._update(data))


def measure(rollouts: int, threads: int) -> dict[str, float]:
    """Median seconds per rollout of each part, over ``rollouts`` rollouts after one warm-up."""
    torch.set_num_threads(threads)
    env = AtariVecEnvConfig(env=AtariEnvConfig(game="pong"), num_envs=GAMES).build(seed=0)
    spaces = Spaces(obs_shape=(4, 84, 84), n_actions=6)  # Pong's minimal action set
    agent = _agent(spaces)
    agent.train()
    procs = [SimpleStepProcessorConfig(gamma=0.99).build() for _ in range(GAMES)]
    sampler: SyncSampler[Any, Any, Any] = SyncSampler(env, procs)
    buffer = RolloutBufferConfig(n_steps=STEPS, num_envs=GAMES).build(seed=0)
    times: dict[str, list[float]] = {"collect": [], "prepare": [], "update": [], "update_bf16": []}
    for k in range(rollouts + 1):
        collect = _timed(lambda: [sampler.sample_and_push(agent, buffer) for _ in range(STEPS)])
        parts = _opt_times(agent, buffer.batch(len(buffer)))
        if k:  # the first rollout warms the allocator and the kernels up
            for name, value in zip(times, (collect, *parts), strict=True):
                times[name].append(value)
    env.close()
    return {name: statistics.median(values) for name, values in times.items()}


def vector_rates(seconds: float) -> dict[str, float]:
    """Env steps per second of 8 Pong games with random actions: ale-py's vector env on one thread (what
    `AtariVecEnv` runs) against Gymnasium's async vector env of 8 processes, each ``ALE/Pong-v5`` with
    Gymnasium's ``AtariPreprocessing`` and ``FrameStackObservation`` (the same DeepMind preprocessing)."""
    import ale_py
    import gymnasium as gym
    import numpy as np
    from ale_py.vector_env import AtariVectorEnv

    gym.register_envs(ale_py)

    def preprocessed() -> gym.Env[Any, Any]:
        env = gym.make("ALE/Pong-v5", frameskip=1, repeat_action_probability=0.0)
        env = gym.wrappers.AtariPreprocessing(env, frame_skip=4, noop_max=30)
        return gym.wrappers.FrameStackObservation(env, 4)

    envs = {
        "ale-py vector env, 1 thread": AtariVectorEnv("pong", num_envs=GAMES, num_threads=1),
        "Gymnasium async vector env, 8 processes": gym.vector.AsyncVectorEnv([preprocessed] * GAMES),
    }
    rates: dict[str, float] = {}
    acts = np.random.default_rng(0).integers(0, 6, (1024, GAMES))
    for name, env in envs.items():
        env.reset(seed=0)
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            env.step(acts[steps % 1024])
            steps += 1
        rates[name] = steps * GAMES / (time.perf_counter() - start)
        env.close()
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rollouts", type=int, default=3)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--budget", type=int, default=2_500_000, help="env steps to project to")
    parser.add_argument("--envs", type=float, default=0.0, help="seconds per vector env rate (0: none)")
    args = parser.parse_args()
    if args.envs:
        for name, rate in vector_rates(args.envs).items():
            print(f"{name}: {rate:,.0f} env steps/s")
        return
    print(
        "| threads | collect (s) | prepare (s) | update fp32 (s) | update bf16 (s) | env steps/s fp32 |"
        " projected h fp32 | projected h bf16 |"
    )
    print("|---|---|---|---|---|---|---|---|")
    n = GAMES * STEPS
    for threads in args.threads:
        t = measure(args.rollouts, threads)
        fp32 = t["collect"] + t["prepare"] + t["update"]
        bf16 = t["collect"] + t["prepare"] + t["update_bf16"]
        hours = args.budget / n / 3600
        print(
            f"| {threads} | {t['collect']:.2f} | {t['prepare']:.2f} | {t['update']:.2f} | "
            f"{t['update_bf16']:.2f} | {n / fp32:.0f} | {fp32 * hours:.1f} | {bf16 * hours:.1f} |"
        )


if __name__ == "__main__":
    main()
