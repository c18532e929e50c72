"""Vectorized sampling: transitions per second of ``SyncSampler`` over a ``GymVecEnv`` of N sub-envs
against the single-env sampler, with a random policy and with a batch MLP policy (one forward pass for
all sub-envs)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt

from benchmarks.common import Row, Workload, compare
from benchmarks.sampling import ENV, acting_loop, greedy_dqn, sampler_loop
from border_py.agents.dqn import Dqn
from border_py.base import Spaces
from border_py.envs import GymVecEnvConfig
from border_py.replay_buffer import SimpleReplayBufferConfig
from border_py.step_processor import SimpleStepProcessorConfig
from border_py.trainer import SyncSampler


class RandomBatchPolicy:
    """Uniform actions for every sub-env (one draw of the batched action space per call)."""

    def __init__(self, space: gym.spaces.Discrete, n: int) -> None:
        self.space, self.n = space, n
        self.rng = np.random.default_rng(0)

    def sample(self, obs: npt.NDArray[np.float32]) -> npt.NDArray[np.int64]:
        return np.array(self.rng.integers(self.space.n), dtype=np.int64)

    def sample_batch(self, obs: Any) -> list[npt.NDArray[np.int64]]:
        return list(self.rng.integers(self.space.n, size=self.n))


def vec_loop(n_envs: int, policy: str) -> Workload:
    """``n`` transitions (``n / n_envs`` sampler calls) from a ``GymVecEnv`` of ``n_envs`` CartPoles."""
    env = GymVecEnvConfig(name=ENV, num_envs=n_envs).build(seed=0)
    sampler = SyncSampler(env, [SimpleStepProcessorConfig().build() for _ in range(n_envs)])
    buffer = SimpleReplayBufferConfig(capacity=100_000).build(seed=0)
    assert isinstance(env.action_space, gym.spaces.Discrete)
    agent: Any = (
        RandomBatchPolicy(env.action_space, n_envs)
        if policy == "random"
        else Dqn(greedy_dqn((64, 64)), Spaces(obs_shape=(env.obs_dim,), n_actions=env.n_actions), seed=0)
    )

    def run(n: int) -> None:
        for _ in range(max(1, n // n_envs)):
            sampler.sample_and_push(agent, buffer)

    return run


def run(threads: int, quick: bool) -> list[Row]:
    rows = []
    for policy, single, n in (
        ("random", sampler_loop(), 4_000 if quick else 32_000),
        ("MLP 64x64", acting_loop((64, 64)), 1_600 if quick else 16_000),
    ):
        for n_envs in (1, 4, 16):
            ours, ref = compare(vec_loop(n_envs, "random" if policy == "random" else "mlp"), single, n)
            rows.append(
                Row(
                    name=f"vector sampling, {n_envs} CartPoles, {policy} policy (transitions/s)",
                    threads=threads,
                    ours=ours.median,
                    reference=ref.median,
                    reference_name="border_py single-env sampler",
                    unit="/s",
                    note="speed-up of the vector sampler",
                )
            )
    return rows
