"""DQN: opt steps per second against SB3's gradient steps (the minimal plain-PyTorch update is in the
``minimal_update`` group); the one-opt-per-env-step loop against SB3's ``learn`` with the same settings."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from torch import nn

from benchmarks.buffers import OBS_DIM
from benchmarks.common import Row, Workload, compare
from border_py.agents.dqn import Dqn, DqnConfig
from border_py.base import Spaces
from border_py.envs import GymEnvConfig
from border_py.recorders import NullRecorder
from border_py.replay_buffer import SimpleReplayBuffer, SimpleReplayBufferConfig
from border_py.replay_buffer.transition import Transition
from border_py.step_processor import SimpleStepProcessorConfig
from border_py.trainer import Trainer, TrainerConfig

BATCH = 64
N_ACTIONS = 2
CAPACITY = 100_000
MAX_GRAD_NORM = 10.0  # SB3 DQN's default; both sides clip


def _mlp(hidden: tuple[int, ...]) -> nn.Sequential:
    sizes = (OBS_DIM, *hidden)
    layers: list[nn.Module] = []
    for i, o in itertools.pairwise(sizes):
        layers += [nn.Linear(i, o), nn.ReLU()]
    return nn.Sequential(*layers, nn.Linear(sizes[-1], N_ACTIONS))


def random_buffer() -> SimpleReplayBuffer:
    """A full buffer of random CartPole-shaped transitions."""
    rng = np.random.default_rng(0)
    obs = rng.standard_normal((CAPACITY, OBS_DIM)).astype(np.float32)
    buffer = SimpleReplayBufferConfig(capacity=CAPACITY).build(seed=0)
    for i in range(CAPACITY):
        buffer.push(
            Transition(
                obs=obs[i],
                act=np.array(i % 2),
                next_obs=obs[i - 1],
                reward=1.0,
                is_terminated=i % 50 == 0,
                is_truncated=False,
                discount=0.99,
            )
        )
    return buffer


def ours_opt(hidden: tuple[int, ...], buffer: SimpleReplayBuffer) -> Workload:
    """``Dqn.opt``: sample, online and target forward, Huber TD loss, backward, clip, Adam, record."""
    agent = Dqn(
        DqnConfig(hidden=hidden, batch_size=BATCH, max_grad_norm=MAX_GRAD_NORM, target_update_interval=1000),
        Spaces(obs_shape=(OBS_DIM,), n_actions=N_ACTIONS),
        seed=0,
    )

    def run(n: int) -> None:
        for _ in range(n):
            agent.opt(buffer)

    return run


def _sb3_logger() -> Any:
    from stable_baselines3.common.logger import Logger

    return Logger(folder=None, output_formats=[])


def sb3_opt(hidden: tuple[int, ...], buffer: SimpleReplayBuffer) -> Workload:
    """SB3 ``DQN.train(gradient_steps=n)`` from a replay buffer holding the same transitions."""
    from stable_baselines3 import DQN

    model = DQN(
        "MlpPolicy",
        "CartPole-v1",
        policy_kwargs={"net_arch": list(hidden)},
        batch_size=BATCH,
        buffer_size=CAPACITY,
        max_grad_norm=MAX_GRAD_NORM,
        seed=0,
        device="cpu",
    )
    model.set_logger(_sb3_logger())
    rb = model.replay_buffer
    storage = buffer._storage  # the benchmark copies our rows into SB3's arrays instead of 1e5 add() calls
    assert storage is not None
    assert rb is not None
    rb.observations[:, 0] = storage.obs
    rb.next_observations[:, 0] = storage.next_obs
    rb.actions[:, 0, 0] = storage.act
    rb.rewards[:, 0] = storage.reward
    rb.dones[:, 0] = storage.is_terminated
    rb.full, rb.pos = True, 0

    def run(n: int) -> None:
        model.train(gradient_steps=n, batch_size=BATCH)

    return run


LOOP_WARMUP = 1000


def ours_loop(n: int) -> None:
    """``n`` env steps of a ``Trainer`` with one DQN opt step (64x64) per env step after 1000 warm-up
    steps: env, sampler, buffer, acting and learning together."""
    env_config = GymEnvConfig(name="CartPole-v1")
    env = env_config.build(seed=0)
    agent = Dqn(
        DqnConfig(
            hidden=(64, 64), batch_size=BATCH, max_grad_norm=MAX_GRAD_NORM, target_update_interval=1000
        ),
        Spaces(obs_shape=(env.obs_dim,), n_actions=env.n_actions),
        seed=0,
    )
    trainer = Trainer(
        TrainerConfig(
            max_opts=n - LOOP_WARMUP, opt_interval=1, warmup_period=LOOP_WARMUP, record_interval=1000
        ),
        env_config,
        SimpleStepProcessorConfig(gamma=0.99),
        SimpleReplayBufferConfig(capacity=CAPACITY),
    )
    trainer.train(agent, NullRecorder())


def sb3_loop(n: int) -> None:
    """SB3 DQN ``learn(n)`` with ``train_freq=1, gradient_steps=1, learning_starts=1000``."""
    from stable_baselines3 import DQN

    model = DQN(
        "MlpPolicy",
        "CartPole-v1",
        policy_kwargs={"net_arch": [64, 64]},
        batch_size=BATCH,
        buffer_size=CAPACITY,
        learning_starts=LOOP_WARMUP,
        train_freq=1,
        gradient_steps=1,
        target_update_interval=1000,
        max_grad_norm=MAX_GRAD_NORM,
        seed=0,
        device="cpu",
    )
    model.learn(total_timesteps=n)


def run(threads: int, quick: bool) -> list[Row]:
    rows = []
    buffer = random_buffer()
    n = 300 if quick else 3_000
    for hidden in ((64, 64), (256, 256)):
        arch = "x".join(map(str, hidden))
        ours, sb3 = compare(ours_opt(hidden, buffer), sb3_opt(hidden, buffer), n)
        rows.append(
            Row(
                name=f"DQN opt steps/s, batch 64, MLP {arch}",
                threads=threads,
                ours=ours.median,
                reference=sb3.median,
                reference_name="SB3 DQN.train",
                unit="/s",
            )
        )
    n = 2_000 if quick else 6_000
    ours, sb3 = compare(ours_loop, sb3_loop, n, rounds=1 if quick else 3, warmup=0)
    rows.append(
        Row(
            name="DQN one opt step per env step, 64x64 (env steps/s)",
            threads=threads,
            ours=ours.median,
            reference=sb3.median,
            reference_name="SB3 DQN learn",
            unit="/s",
            target=1.3,
            note=f"{n} env steps incl. {LOOP_WARMUP} warm-up",
        )
    )
    return rows
