"""The ``minimal_update`` group: each agent's ``opt`` against the hand-written minimal update of the same
algorithm in plain PyTorch (`benchmarks.minimal`), same sizes, same thread count, on a full buffer of
random transitions: how far each agent stands from the arithmetic limit. DQN on CartPole's shapes (batch
64; 64x64 and 256x256), SAC, TD3 and CQL on Pendulum's (batch 256, 256x256, actions in [-1, 1]).

Ours samples from its numpy replay buffer and records its losses; the minimal update indexes tensors and
records nothing: both are part of the distance measured.
"""

from __future__ import annotations

import numpy as np
import torch

from benchmarks import minimal
from benchmarks.common import Row, Workload, compare
from benchmarks.dqn import BATCH as DQN_BATCH
from benchmarks.dqn import MAX_GRAD_NORM, N_ACTIONS, ours_opt, random_buffer
from border_py.agents import Cql, CqlConfig, Sac, SacConfig, Td3, Td3Config
from border_py.base import Spaces
from border_py.replay_buffer import SimpleReplayBuffer, SimpleReplayBufferConfig
from border_py.replay_buffer.transition import Transition

OBS_DIM, ACT_DIM, BATCH, HIDDEN = 3, 1, 256, (256, 256)
CAPACITY = 100_000
LOW, HIGH = np.full(ACT_DIM, -1.0, np.float32), np.full(ACT_DIM, 1.0, np.float32)


def continuous_buffer() -> SimpleReplayBuffer:
    """A full buffer of random Pendulum-shaped transitions."""
    rng = np.random.default_rng(0)
    obs = rng.standard_normal((CAPACITY, OBS_DIM)).astype(np.float32)
    act = rng.uniform(-1.0, 1.0, (CAPACITY, ACT_DIM)).astype(np.float32)
    reward = rng.standard_normal(CAPACITY)
    buffer = SimpleReplayBufferConfig(capacity=CAPACITY).build(seed=0)
    for i in range(CAPACITY):
        buffer.push(
            Transition(
                obs=obs[i], act=act[i], next_obs=obs[i - 1], reward=float(reward[i]),
                is_terminated=i % 200 == 0, is_truncated=False, discount=0.99,
            )
        )  # fmt: skip
    return buffer


def tensors(buffer: SimpleReplayBuffer) -> minimal.Data:
    """The buffer's transitions as the minimal updates' tensors."""
    s = buffer._storage  # the benchmark reads our rows instead of generating them twice
    assert s is not None
    return {
        "obs": torch.as_tensor(s.obs),
        "act": torch.as_tensor(s.act),
        "reward": torch.as_tensor(s.reward, dtype=torch.float32),
        "next_obs": torch.as_tensor(s.next_obs),
        "done": torch.as_tensor(s.is_terminated, dtype=torch.float32),
    }


def _opts(agent: Sac | Td3 | Cql, buffer: SimpleReplayBuffer) -> Workload:
    def run(n: int) -> None:
        for _ in range(n):
            agent.opt(buffer)

    return run


def _continuous_agents(buffer: SimpleReplayBuffer) -> dict[str, tuple[Workload, Workload, int]]:
    """Per agent: ours, the minimal update, and the updates per round."""
    data = tensors(buffer)
    sac = Sac(
        SacConfig(actor_hidden=HIDDEN, critic_hidden=HIDDEN, batch_size=BATCH),
        Spaces(obs_shape=(OBS_DIM,), action_low=LOW, action_high=HIGH),
        seed=0,
    )
    td3 = Td3(
        Td3Config(actor_hidden=HIDDEN, critic_hidden=HIDDEN, batch_size=BATCH),
        Spaces(obs_shape=(OBS_DIM,), action_low=LOW, action_high=HIGH),
        seed=0,
    )
    cql_config = CqlConfig(actor_hidden=HIDDEN, critic_hidden=HIDDEN, batch_size=BATCH, normalize_obs=False)
    cql = Cql(cql_config, Spaces(obs_shape=(OBS_DIM,), action_low=LOW, action_high=HIGH), seed=0)
    return {
        "SAC": (_opts(sac, buffer), minimal.sac(data, HIDDEN, BATCH), 200),
        "TD3": (_opts(td3, buffer), minimal.td3(data, HIDDEN, BATCH), 200),
        "CQL": (_opts(cql, buffer), minimal.cql(data, HIDDEN, BATCH), 20),
    }


def _row(name: str, threads: int, ours: float, reference: float, note: str) -> Row:
    return Row(
        name=name, threads=threads, ours=ours, reference=reference,
        reference_name="minimal plain PyTorch update", unit="/s", target=0.9, note=note,
    )  # fmt: skip


def run(threads: int, quick: bool) -> list[Row]:
    """Every agent's row (few updates per round with ``quick``)."""
    rows = []
    dqn_buffer = random_buffer()
    dqn_data = tensors(dqn_buffer)
    for hidden in ((64, 64), (256, 256)):
        plain = minimal.dqn(dqn_data, hidden, DQN_BATCH, N_ACTIONS, MAX_GRAD_NORM)
        ours, ref = compare(ours_opt(hidden, dqn_buffer), plain, 300 if quick else 3_000)
        arch = "x".join(map(str, hidden))
        rows.append(_row(f"DQN opt steps/s, batch 64, MLP {arch}", threads, ours.median, ref.median, ""))
    for name, (ours_work, plain, n) in _continuous_agents(continuous_buffer()).items():
        ours, ref = compare(ours_work, plain, max(2, n // 10) if quick else n)
        arch = "x".join(map(str, HIDDEN))
        rows.append(
            _row(f"{name} opt steps/s, batch {BATCH}, MLP {arch}", threads, ours.median, ref.median, "")
        )
    return rows
