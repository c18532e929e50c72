"""Offline RL against d3rlpy: BC, IQL and AWAC on the same Minari dataset (``pendulum-medium-v0``, built by
``make datasets``), with the same gradient-step budget, batch size and 256x256 networks, at the thread
count of the run: gradient steps per second, and the greedy return over the same 10 evaluation episodes
(reset seeds 0..9) at the end of the budget.

d3rlpy gets the setup its documentation prescribes for continuous control: ``MinMaxActionScaler`` with
Pendulum's bounds (its tanh policies cover [-1, 1] otherwise) and ``StandardObservationScaler``;
border_py's agents normalise observations with the dataset's statistics (``normalize_obs``) and map the
bounds to unit actions themselves. Batch sizes are d3rlpy's defaults (BC 100, IQL 256, AWAC 1024).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.common import Row
from benchmarks.end_to_end import greedy_return
from border_py.agents import Awac, AwacConfig, Bc, BcConfig, Iql, IqlConfig
from border_py.datasets import MinariDatasetConfig, observation_stats
from border_py.replay_buffer import ArrayDataset

DATASET = MinariDatasetConfig(dataset_id="pendulum-medium-v0", gamma=0.99, data_path="runs/datasets")
LOW, HIGH = np.array([-2.0], np.float32), np.array([2.0], np.float32)
BUDGETS = {"BC": 10_000, "IQL": 10_000, "AWAC": 5_000}
"""Gradient steps per algorithm: d3rlpy's AWAC at batch 1024 takes minutes per thousand."""
BATCHES = {"BC": 100, "IQL": 256, "AWAC": 1024}


def ours(name: str, dataset: ArrayDataset, steps: int, seed: int) -> tuple[float, Callable[[Any], Any]]:
    """Gradient steps per second over ``steps`` steps, and the trained policy."""
    stats = observation_stats(dataset)
    agent: Bc | Iql | Awac
    if name == "BC":
        agent = Bc(
            BcConfig(batch_size=BATCHES[name], normalize_obs=True),
            3,
            seed,
            action_bounds=(LOW, HIGH),
            obs_stats=stats,
        )
    elif name == "IQL":
        agent = Iql(IqlConfig(batch_size=BATCHES[name], normalize_obs=True), 3, (LOW, HIGH), seed, stats)
    else:
        agent = Awac(AwacConfig(batch_size=BATCHES[name], normalize_obs=True), 3, (LOW, HIGH), seed, stats)
    start = time.perf_counter()
    for _ in range(steps):
        agent.opt(dataset)
    rate = steps / (time.perf_counter() - start)
    agent.eval()
    return rate, agent.sample


def d3rlpy_algo(name: str, steps: int, seed: int) -> tuple[float, Callable[[Any], Any]]:
    """d3rlpy's gradient steps per second over ``steps`` steps (its ``fit`` with no logging and no
    evaluation), and the trained policy."""
    import d3rlpy

    d3rlpy.seed(seed)
    episodes = list(DATASET.load().iterate_episodes())
    dataset = d3rlpy.dataset.MDPDataset(
        observations=np.concatenate([e.observations[:-1] for e in episodes]).astype(np.float32),
        actions=np.concatenate([e.actions for e in episodes]).astype(np.float32),
        rewards=np.concatenate([e.rewards for e in episodes]).astype(np.float32),
        terminals=np.concatenate([e.terminations for e in episodes]).astype(np.float32),
        timeouts=np.concatenate([e.truncations for e in episodes]).astype(np.float32),
    )
    scalers = {
        "action_scaler": d3rlpy.preprocessing.MinMaxActionScaler(minimum=LOW, maximum=HIGH),
        "observation_scaler": d3rlpy.preprocessing.StandardObservationScaler(),
    }
    encoder = d3rlpy.models.VectorEncoderFactory([256, 256])
    if name == "BC":
        config: Any = d3rlpy.algos.BCConfig(batch_size=BATCHES[name], encoder_factory=encoder, **scalers)
    elif name == "IQL":
        config = d3rlpy.algos.IQLConfig(
            batch_size=BATCHES[name], actor_encoder_factory=encoder, critic_encoder_factory=encoder,
            value_encoder_factory=encoder, **scalers,
        )  # fmt: skip
    else:
        config = d3rlpy.algos.AWACConfig(
            batch_size=BATCHES[name], actor_encoder_factory=encoder, critic_encoder_factory=encoder, **scalers
        )
    algo = config.create(device="cpu:0")
    algo.build_with_dataset(dataset)
    start = time.perf_counter()
    algo.fit(
        dataset, n_steps=steps, n_steps_per_epoch=steps, show_progress=False,
        logger_adapter=d3rlpy.logging.NoopAdapterFactory(), save_interval=10**9,
    )  # fmt: skip
    rate = steps / (time.perf_counter() - start)
    return rate, lambda obs: np.clip(algo.predict(obs[None])[0], LOW, HIGH)


def run(threads: int, quick: bool, seed: int = 0) -> list[Row]:
    """Each algorithm on both sides (200 steps each with ``quick``, no return compared)."""
    dataset = DATASET.build(seed)
    rows = []
    for name, budget in BUDGETS.items():
        steps = 200 if quick else budget
        ours_rate, ours_policy = ours(name, dataset, steps, seed)
        ref_rate, ref_policy = d3rlpy_algo(name, steps, seed)
        note = f"batch {BATCHES[name]}, {steps:,} steps"
        if not quick:
            ours_ret, ref_ret = (
                greedy_return(ours_policy, "Pendulum-v1"),
                greedy_return(ref_policy, "Pendulum-v1"),
            )
            note += f"; greedy return border_py {ours_ret:.1f}, d3rlpy {ref_ret:.1f}"
        rows.append(
            Row(
                name=f"{name} on pendulum-medium-v0: gradient steps/s",
                threads=threads,
                ours=ours_rate,
                reference=ref_rate,
                reference_name="d3rlpy",
                unit="/s",
                target=1.5,
                note=note,
            )
        )
    return rows
