"""Replay buffers: push and ``sample(256)`` against Stable-Baselines3's ``ReplayBuffer``, prioritized
sample + priority update against Tianshou's ``PrioritizedReplayBuffer``. CartPole-shaped transitions
(4 float32 observations, a discrete action)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from benchmarks.common import Row, Workload, compare
from border_py.replay_buffer import PerConfig, SimpleReplayBuffer, SimpleReplayBufferConfig
from border_py.replay_buffer.transition import Transition

OBS_DIM = 4
BATCH = 256
_OBS_SPACE = gym.spaces.Box(-np.inf, np.inf, (OBS_DIM,), np.float32)
_ACT_SPACE = gym.spaces.Discrete(2)


def _transitions(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    obs = rng.standard_normal((n, OBS_DIM)).astype(np.float32)
    return obs, rng.integers(0, 2, n), rng.standard_normal(n).astype(np.float32)


def ours_filled(capacity: int, per: bool) -> SimpleReplayBuffer:
    buffer = SimpleReplayBufferConfig(capacity=capacity, per=PerConfig() if per else None).build(seed=0)
    push = ours_push(buffer)
    push(capacity)
    return buffer


def ours_push(buffer: SimpleReplayBuffer) -> Workload:
    """``push`` of a ``Transition`` made from numpy parts (what the step processor hands over)."""
    obs, act, reward = _transitions(1024)

    def run(n: int) -> None:
        for i in range(n):
            j = i & 1023
            buffer.push(
                Transition(
                    obs=obs[j],
                    act=act[j],
                    next_obs=obs[j],
                    reward=float(reward[j]),
                    is_terminated=False,
                    is_truncated=False,
                    discount=0.99,
                )
            )

    return run


def sb3_buffer(capacity: int) -> Any:
    from stable_baselines3.common.buffers import ReplayBuffer

    return ReplayBuffer(capacity, _OBS_SPACE, _ACT_SPACE, device="cpu")


def sb3_push(buffer: Any) -> Workload:
    """``ReplayBuffer.add`` of one transition (``n_envs`` = 1 shaped arrays, as its rollout passes them)."""
    obs, act, reward = _transitions(1024)
    obs_b, act_b, rew_b = obs[:, None, :], act[:, None], reward[:, None]
    done = np.zeros(1, np.float32)
    infos: list[dict[str, Any]] = [{}]

    def run(n: int) -> None:
        for i in range(n):
            j = i & 1023
            buffer.add(obs_b[j], obs_b[j], act_b[j], rew_b[j], done, infos)

    return run


def ours_sample(buffer: SimpleReplayBuffer) -> Workload:
    def run(n: int) -> None:
        for _ in range(n):
            buffer.batch(BATCH)

    return run


def sb3_sample(buffer: Any) -> Workload:
    def run(n: int) -> None:
        for _ in range(n):
            buffer.sample(BATCH)

    return run


def ours_per(buffer: SimpleReplayBuffer) -> Workload:
    """Prioritized ``batch(256)`` (torch tensors and importance weights) and ``update_priority``."""
    td = np.random.default_rng(1).standard_normal(BATCH).astype(np.float32)

    def run(n: int) -> None:
        for _ in range(n):
            b = buffer.batch(BATCH)
            buffer.update_priority(b.ix_sample, td)

    return run


def tianshou_per(capacity: int) -> Workload:
    """Tianshou's ``PrioritizedReplayBuffer``: ``sample(256)`` (numpy batches and weights) and
    ``update_weight``."""
    from tianshou.data import Batch, PrioritizedReplayBuffer

    buffer = PrioritizedReplayBuffer(capacity, alpha=0.6, beta=0.4)
    obs, act, reward = _transitions(capacity)
    for i in range(capacity):
        buffer.add(
            Batch(
                obs=obs[i],
                act=act[i],
                rew=reward[i],
                terminated=False,
                truncated=False,
                obs_next=obs[i],
                info={},
            )
        )
    td = np.random.default_rng(1).standard_normal(BATCH).astype(np.float32)

    def run(n: int) -> None:
        for _ in range(n):
            _, ix = buffer.sample(BATCH)
            buffer.update_weight(ix, td)

    return run


def run(threads: int, quick: bool) -> list[Row]:
    """The buffer rows (torch threads matter only for the tensor wrapping)."""
    rows = []
    n_push = 20_000 if quick else 100_000
    ours, sb3 = compare(
        ours_push(SimpleReplayBufferConfig(capacity=n_push).build(seed=0)),
        sb3_push(sb3_buffer(n_push)),
        n_push,
    )
    rows.append(
        Row(
            name="push 1 transition (/s)",
            threads=threads,
            ours=ours.median,
            reference=sb3.median,
            reference_name="SB3 ReplayBuffer.add",
            unit="/s",
            target=1.0,
        )
    )
    for capacity in (10_000, 100_000) if quick else (100_000, 1_000_000):
        sb3 = sb3_buffer(capacity)
        sb3_push(sb3)(capacity)
        ours_rate, sb3_rate = compare(ours_sample(ours_filled(capacity, per=False)), sb3_sample(sb3), 2_000)
        rows.append(
            Row(
                name=f"sample(256) from {capacity:.0e} (/s)",
                threads=threads,
                ours=ours_rate.median,
                reference=sb3_rate.median,
                reference_name="SB3 ReplayBuffer.sample",
                unit="/s",
                target=3.0,
            )
        )
    capacity = 10_000 if quick else 100_000
    ours_rate, ts_rate = compare(ours_per(ours_filled(capacity, per=True)), tianshou_per(capacity), 2_000)
    rows.append(
        Row(
            name=f"prioritized sample(256) + update from {capacity:.0e} (/s)",
            threads=threads,
            ours=ours_rate.median,
            reference=ts_rate.median,
            reference_name="Tianshou PrioritizedReplayBuffer",
            unit="/s",
            target=3.0,
        )
    )
    return rows
