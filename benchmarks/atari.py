"""Atari: replay memory per transition and ``sample(32)`` of stacked 84x84 frames against Stable-Baselines3's
memory-optimized ``ReplayBuffer`` (``optimize_memory_usage=True``), and collection with the Nature CNN
policy on Pong against the issue's 800 env steps per second per core.

Both buffers hold 1e5 transitions (1e4 with ``--quick``) of random frames in episodes of 850 steps (a
random policy's Pong game is 760-900); the memory is what the arrays hold, extrapolated linearly to 1e6.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from benchmarks.common import Row, Workload, compare, measure
from border_py import (
    AtariEnvConfig,
    AtariVecEnvConfig,
    FrameReplayBufferConfig,
    FrameStackStepProcessorConfig,
)
from border_py.agents import Dqn, DqnConfig, EpsilonGreedyConfig, NatureCnnConfig
from border_py.agents.explorers import EpsilonGreedy
from border_py.base import Spaces
from border_py.replay_buffer import FrameReplayBuffer, FrameTransition
from border_py.trainer.sampler import SyncSampler

FRAME = (84, 84)
STACK = 4
EPISODE = 850
BATCH = 32
_FRAME_BYTES = FRAME[0] * FRAME[1]


def _frames(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(0, 256, (n, *FRAME), dtype=np.uint8)


def ours_filled(n: int) -> FrameReplayBuffer:
    """``n`` one-step transitions pushed as the frame step processor emits them."""
    buffer = FrameReplayBufferConfig(capacity=n + n // EPISODE + 1, stack=STACK).build(seed=0)
    frames = _frames(np.random.default_rng(0), 1024)
    for t in range(n):
        k = t % EPISODE
        last = k == EPISODE - 1
        buffer.push(
            FrameTransition(
                frame=frames[t & 1023],
                act=np.array(t % 6),
                reward=0.0,
                is_terminated=last,
                is_truncated=False,
                discount=0.99,
                episode_start=k == 0,
                next_offset=1,
                final_frame=frames[(t + 1) & 1023] if last else None,
            )
        )
    return buffer


def sb3_filled(n: int) -> Any:
    """SB3's memory-optimized buffer with ``n`` transitions: each observation a stored stack, the next
    observation read from the following row."""
    from stable_baselines3.common.buffers import ReplayBuffer

    obs_space = gym.spaces.Box(0, 255, (STACK, *FRAME), np.uint8)
    buffer = ReplayBuffer(
        n,
        obs_space,
        gym.spaces.Discrete(6),
        device="cpu",
        optimize_memory_usage=True,
        handle_timeout_termination=False,
    )
    stacks = _frames(np.random.default_rng(0), 1024 + STACK)
    done = np.zeros(1, np.float32)
    infos: list[dict[str, Any]] = [{}]
    for t in range(n):
        j = t & 1023
        obs = stacks[j : j + STACK][None]
        buffer.add(obs, obs, np.array([t % 6]), np.zeros(1, np.float32), done, infos)
    return buffer


def sb3_nbytes(buffer: Any) -> int:
    return sum(
        getattr(buffer, name).nbytes for name in ("observations", "actions", "rewards", "dones", "timeouts")
    )


def collection(steps: int, num_envs: int) -> Workload:
    """Pong with the Nature CNN DQN acting (train mode, epsilon at its final 0.01, so nearly every action
    is a forward pass), the frame step processor and the frame buffer: the training path, less ``opt``.
    With ``num_envs`` > 1, that many games in an ``AtariVecEnv`` and one forward pass for all; ``n`` is
    then in calls, each ``num_envs`` env steps."""
    game = AtariEnvConfig(game="pong")
    env = (
        game.build(seed=0) if num_envs == 1 else AtariVecEnvConfig(env=game, num_envs=num_envs).build(seed=0)
    )
    agent = Dqn(
        DqnConfig(encoder=NatureCnnConfig(), hidden=(512,), explorer=EpsilonGreedyConfig(final_step=1)),
        Spaces(obs_shape=(STACK, *FRAME), n_actions=6),
        seed=0,
    )
    assert isinstance(agent.explorer, EpsilonGreedy)
    agent.explorer.n_steps = 10  # past the schedule: epsilon 0.01
    procs = [FrameStackStepProcessorConfig(n_steps=1).build() for _ in range(num_envs)]
    sampler: SyncSampler[Any, Any, Any] = SyncSampler(env, procs if num_envs > 1 else procs[0])
    capacity = (steps + 100) * num_envs
    buffer = FrameReplayBufferConfig(capacity=capacity, streams=num_envs).build(seed=0)

    def run(n: int) -> None:
        for _ in range(n):
            sampler.sample_and_push(agent, buffer)

    return run


def raw_env() -> Workload:
    """ale-py's vector env (one Pong, DeepMind preprocessing) with random actions: the ceiling."""
    from ale_py.vector_env import AtariVectorEnv

    env = AtariVectorEnv("pong", num_envs=1, num_threads=1, autoreset_mode="SameStep")
    env.reset(seed=0)
    acts = np.random.default_rng(0).integers(0, 6, (1024, 1))

    def run(n: int) -> None:
        for i in range(n):
            env.step(acts[i & 1023])

    return run


def run(threads: int, quick: bool) -> list[Row]:
    """The memory, sampling and collection rows."""
    return [*_buffer_rows(threads, quick), *_collection_rows(threads, quick)]


def _buffer_rows(threads: int, quick: bool) -> list[Row]:
    """Memory and sample(32) of both buffers (freed on return: about 3.5 GB at 1e5)."""
    n = 10_000 if quick else 100_000
    ours, sb3 = ours_filled(n), sb3_filled(n)
    per_transition = ours.nbytes() / len(ours)
    rows = [
        Row(
            name=f"bytes per transition (1e6 extrapolated: {per_transition * 1e6 / 2**30:.2f} GiB)",
            threads=threads,
            ours=per_transition,
            reference=_FRAME_BYTES,
            reference_name="one 84x84 frame",
            unit="B",
            target=1.1,
            higher_is_better=False,
        ),
        Row(
            name=f"memory per transition, SB3 at 1e6: {sb3_nbytes(sb3) / n * 1e6 / 2**30:.2f} GiB",
            threads=threads,
            ours=per_transition,
            reference=sb3_nbytes(sb3) / n,
            reference_name="SB3 ReplayBuffer(optimize_memory_usage)",
            unit="B",
            higher_is_better=False,
        ),
    ]

    def ours_sample(k: int) -> None:
        for _ in range(k):
            ours.batch(BATCH)

    def sb3_sample(k: int) -> None:
        for _ in range(k):
            sb3.sample(BATCH)

    ours_rate, sb3_rate = compare(ours_sample, sb3_sample, 500 if quick else 2_000)
    rows.append(
        Row(
            name=f"sample({BATCH}) of 4x84x84 stacks from {n:.0e} (/s)",
            threads=threads,
            ours=ours_rate.median,
            reference=sb3_rate.median,
            reference_name="SB3 ReplayBuffer(optimize_memory_usage).sample",
            unit="/s",
            target=1.0,
        )
    )
    return rows


def _collection_rows(threads: int, quick: bool) -> list[Row]:
    """Collection with the CNN policy, one game and four."""
    rows = []
    steps = 500 if quick else 3_000
    ceiling = raw_env()
    ceiling(100)
    raw = measure(ceiling, steps)
    for num_envs in (1, 4):
        work = collection(steps, num_envs)
        calls = steps // num_envs
        work(calls // 10)
        rows.append(
            Row(
                name=f"Pong collection, CNN policy, {num_envs} game(s) (env steps/s; raw env {raw:.0f}/s)",
                threads=threads,
                ours=measure(work, calls) * num_envs,
                reference=800.0,
                reference_name="the target, 800 env steps/s per core",
                unit="/s",
                target=1.0,
            )
        )
    return rows
