"""Offline RL against d3rlpy: BC, IQL, AWAC, TD3+BC and CQL on the same Minari dataset
(``pendulum-medium-v0``, built by ``make datasets``), with the same gradient-step budget, batch size and
256x256 networks, at the thread count of the run: gradient steps per second, and the greedy return over the
same 10 evaluation episodes (reset seeds 0..9) at the end of the budget. The ``offline_hopper`` group
(opt-in: ``--only offline_hopper``, after ``make datasets-hopper``) runs IQL, BC, TD3+BC and CQL the same
way on ``hopper-medium-v0`` (budgets in `HOPPER_BUDGETS`; IQL with CORL's and d3rlpy's reward scaling
on both sides: rewards times 1000 over the range of episode returns; TD3+BC and CQL with raw rewards, as
both projects run them), evaluates both sides every 10,000 steps (a single snapshot on Hopper swings by
hundreds) and adds D4RL-normalised returns; ``python -m benchmarks.offline --hopper --seed N [--algos
...]`` runs it for another seed.

d3rlpy gets the setup its documentation prescribes for continuous control: ``MinMaxActionScaler`` with
Pendulum's bounds (its tanh policies cover [-1, 1] otherwise) and ``StandardObservationScaler``;
border_py's agents normalise observations with the dataset's statistics (``normalize_obs``) and map the
bounds to unit actions themselves. Batch sizes are d3rlpy's defaults (BC 100, IQL 256, AWAC 1024, TD3+BC
and CQL 256). TD3+BC runs both sides' defaults, which are the paper's. CQL runs CORL's settings on both
sides (border_py's defaults; d3rlpy's weight 5 and learning rates 1e-4 changed to CORL's 10, 3e-5 and 3e-4,
its Lagrangian switched off with ``alpha_learning_rate=0``), with d3rlpy's 256x256 networks.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Callable
from typing import Any

import attrs
import numpy as np
import torch

from benchmarks.common import Row, table
from benchmarks.end_to_end import Act, greedy_return
from border_py.agents import (
    Awac,
    AwacConfig,
    Bc,
    BcConfig,
    Cql,
    CqlConfig,
    Iql,
    IqlConfig,
    Td3Bc,
    Td3BcConfig,
)
from border_py.base import Spaces
from border_py.datasets import MinariDatasetConfig, observation_stats
from border_py.replay_buffer import ArrayDataset
from border_py.seeding import configure_torch


@attrs.frozen
class Task:
    """A dataset and the env its policies are evaluated in."""

    dataset: MinariDatasetConfig
    env_id: str
    low: tuple[float, ...]
    high: tuple[float, ...]

    @property
    def bounds(self) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """The action bounds as float32 arrays."""
        return np.array(self.low, np.float32), np.array(self.high, np.float32)


PENDULUM = Task(
    MinariDatasetConfig(dataset_id="pendulum-medium-v0", gamma=0.99, data_path="runs/datasets"),
    "Pendulum-v1",
    (-2.0,),
    (2.0,),
)
HOPPER = Task(
    MinariDatasetConfig(
        dataset_id="hopper-medium-v0",
        gamma=0.99,
        data_path="runs/datasets",
        reward_normalization="return_range",
    ),
    "Hopper-v5",
    (-1.0,) * 3,
    (1.0,) * 3,
)
HOPPER_RAW = attrs.evolve(HOPPER, dataset=attrs.evolve(HOPPER.dataset, reward_normalization="none"))
"""Hopper without IQL's reward scaling: CORL and d3rlpy run TD3+BC and CQL on the raw rewards."""
HOPPER_TASKS = {"IQL": HOPPER, "BC": HOPPER, "TD3+BC": HOPPER_RAW, "CQL": HOPPER_RAW}
HOPPER_BUDGETS = {"IQL": 50_000, "BC": 50_000, "TD3+BC": 50_000, "CQL": 10_000}
"""Gradient steps on hopper-medium. AWAC is left out: d3rlpy's runs at about 20 steps/s at its batch of
1024. CQL's 10,000 (about 20 minutes a side here) measure speed and an early return, not CORL's 1,000,000."""
HOPPER_EVAL_EVERY = 10_000
BUDGETS = {"BC": 10_000, "IQL": 10_000, "AWAC": 5_000, "TD3+BC": 10_000, "CQL": 5_000}
"""Gradient steps per algorithm: d3rlpy's AWAC at batch 1024 takes minutes per thousand, and a CQL update
evaluates the critics at 31 actions per transition."""
BATCHES = {"BC": 100, "IQL": 256, "AWAC": 1024, "TD3+BC": 256, "CQL": 256}
NETWORKS = (256, 256)


Train = Callable[[int], None]
"""Runs that many more gradient steps."""


def ours(name: str, task: Task, dataset: ArrayDataset, seed: int) -> tuple[Train, Act]:
    """Our agent's training function and greedy policy."""
    stats = observation_stats(dataset)
    obs_dim, bounds, batch = dataset.storage.obs.shape[1], task.bounds, BATCHES[name]
    agent: Bc | Iql | Awac | Td3Bc | Cql
    if name == "BC":
        config = BcConfig(batch_size=batch, normalize_obs=True)
        agent = Bc(
            config,
            Spaces(obs_shape=(obs_dim,), action_low=bounds[0], action_high=bounds[1]),
            seed=seed,
            obs_stats=stats,
        )
    elif name == "IQL":
        agent = Iql(
            IqlConfig(batch_size=batch, normalize_obs=True),
            Spaces(obs_shape=(obs_dim,), action_low=bounds[0], action_high=bounds[1]),
            seed=seed,
            obs_stats=stats,
        )
    elif name == "AWAC":
        agent = Awac(
            AwacConfig(batch_size=batch, normalize_obs=True),
            Spaces(obs_shape=(obs_dim,), action_low=bounds[0], action_high=bounds[1]),
            seed=seed,
            obs_stats=stats,
        )
    elif name == "TD3+BC":
        agent = Td3Bc(
            Td3BcConfig(batch_size=batch),
            Spaces(obs_shape=(obs_dim,), action_low=bounds[0], action_high=bounds[1]),
            seed=seed,
            obs_stats=stats,
        )
    else:
        cql = CqlConfig(batch_size=batch, actor_hidden=NETWORKS, critic_hidden=NETWORKS)
        agent = Cql(
            cql,
            Spaces(obs_shape=(obs_dim,), action_low=bounds[0], action_high=bounds[1]),
            seed=seed,
            obs_stats=stats,
        )

    def train(steps: int) -> None:
        agent.train()
        for _ in range(steps):
            agent.opt(dataset)
        agent.eval()

    return train, agent.sample


def d3rlpy_algo(name: str, task: Task, seed: int) -> tuple[Train, Act]:
    """d3rlpy's training function (its ``fit`` with no logging and no evaluation; each call continues
    the same networks and optimizers) and greedy policy."""
    train, act, _ = d3rlpy_learner(name, task, seed)
    return train, act


def d3rlpy_learner(name: str, task: Task, seed: int, config: Any = None) -> tuple[Train, Act, Any]:
    """As `d3rlpy_algo`, with d3rlpy's algorithm itself (for diagnostics) and ``config`` instead of
    `d3rlpy_config`'s for ``name`` (its scalers are added)."""
    import d3rlpy

    d3rlpy.seed(seed)
    episodes = list(task.dataset.load().iterate_episodes())
    low, high = task.bounds
    dataset = d3rlpy.dataset.MDPDataset(
        observations=np.concatenate([e.observations[:-1] for e in episodes]).astype(np.float32),
        actions=np.concatenate([e.actions for e in episodes]).astype(np.float32),
        rewards=np.concatenate([e.rewards for e in episodes]).astype(np.float32),
        terminals=np.concatenate([e.terminations for e in episodes]).astype(np.float32),
        timeouts=np.concatenate([e.truncations for e in episodes]).astype(np.float32),
    )
    scalers: dict[str, Any] = {
        "action_scaler": d3rlpy.preprocessing.MinMaxActionScaler(minimum=low, maximum=high),
        "observation_scaler": d3rlpy.preprocessing.StandardObservationScaler(),
    }
    if task.dataset.reward_normalization == "return_range":  # what its IQL reproduction script uses
        scalers["reward_scaler"] = d3rlpy.preprocessing.ReturnBasedRewardScaler(multiplier=1000.0)
    config = d3rlpy_config(name, scalers) if config is None else dataclasses.replace(config, **scalers)
    algo = config.create(device="cpu:0")
    algo.build_with_dataset(dataset)

    def train(steps: int) -> None:
        algo.fit(
            dataset, n_steps=steps, n_steps_per_epoch=steps, show_progress=False,
            logger_adapter=d3rlpy.logging.NoopAdapterFactory(), save_interval=10**9,
        )  # fmt: skip

    return train, lambda obs: np.clip(algo.predict(obs[None])[0], low, high), algo


def d3rlpy_config(name: str, scalers: dict[str, Any]) -> Any:
    """d3rlpy's config for ``name``: its defaults but the batch, 256x256 networks, and CORL's CQL."""
    import d3rlpy

    encoder = d3rlpy.models.VectorEncoderFactory(list(NETWORKS))
    if name == "BC":
        return d3rlpy.algos.BCConfig(batch_size=BATCHES[name], encoder_factory=encoder, **scalers)
    common = {
        "batch_size": BATCHES[name],
        "actor_encoder_factory": encoder,
        "critic_encoder_factory": encoder,
    }
    if name == "IQL":
        return d3rlpy.algos.IQLConfig(**common, value_encoder_factory=encoder, **scalers)
    if name == "AWAC":
        return d3rlpy.algos.AWACConfig(**common, **scalers)
    if name == "TD3+BC":
        return d3rlpy.algos.TD3PlusBCConfig(**common, **scalers)
    return d3rlpy.algos.CQLConfig(
        **common, actor_learning_rate=3e-5, critic_learning_rate=3e-4, temp_learning_rate=3e-5,
        alpha_learning_rate=0.0, conservative_weight=10.0, n_action_samples=10, **scalers,
    )  # fmt: skip


def train_and_evaluate(
    train: Train, act: Act, steps: int, every: int, env_id: str | None
) -> tuple[float, list[float]]:
    """Gradient steps per second over ``steps`` steps (evaluations not counted), and the greedy return
    after every ``every`` steps (none when ``env_id`` is None)."""
    elapsed, returns = 0.0, []
    for _ in range(steps // every):
        start = time.perf_counter()
        train(every)
        elapsed += time.perf_counter() - start
        if env_id is not None:
            returns.append(greedy_return(act, env_id))
    return steps / elapsed, returns


def run(threads: int, quick: bool, seed: int = 0, algos: tuple[str, ...] = tuple(BUDGETS)) -> list[Row]:
    """``algos`` on both sides on pendulum-medium, the return at the end of the budget (200 steps each
    with ``quick``, no return compared)."""
    dataset = PENDULUM.dataset.build(seed)
    rows = []
    for name in algos:
        steps = 200 if quick else BUDGETS[name]
        rows.append(_compare(name, PENDULUM, dataset, steps, steps, threads, quick, seed))
    return rows


def run_hopper(
    threads: int, quick: bool, seed: int = 0, algos: tuple[str, ...] = tuple(HOPPER_TASKS)
) -> list[Row]:
    """``algos`` on both sides on hopper-medium, `HOPPER_BUDGETS` gradient steps, evaluated every
    `HOPPER_EVAL_EVERY` (200 steps with ``quick``, no return compared)."""
    datasets: dict[Task, ArrayDataset] = {}  # each variant loaded once, and only if an algorithm needs it
    rows = []
    for name in algos:
        steps, every = (200, 200) if quick else (HOPPER_BUDGETS[name], HOPPER_EVAL_EVERY)
        task = HOPPER_TASKS[name]
        if task not in datasets:
            datasets[task] = task.dataset.build(seed)
        rows.append(_compare(name, task, datasets[task], steps, every, threads, quick, seed))
    return rows


def _compare(
    name: str,
    task: Task,
    dataset: ArrayDataset,
    steps: int,
    every: int,
    threads: int,
    quick: bool,
    seed: int,
) -> Row:
    env_id = None if quick else task.env_id
    ours_rate, ours_returns = train_and_evaluate(*ours(name, task, dataset, seed), steps, every, env_id)
    ref_rate, ref_returns = train_and_evaluate(*d3rlpy_algo(name, task, seed), steps, every, env_id)
    note = f"batch {BATCHES[name]}, {steps:,} steps, seed {seed}"
    if not quick:
        note += (
            f"; greedy return border_py {_returns(task, ours_returns)}, d3rlpy {_returns(task, ref_returns)}"
        )
    return Row(
        name=f"{name} on {task.dataset.dataset_id}: gradient steps/s",
        threads=threads,
        ours=ours_rate,
        reference=ref_rate,
        reference_name="d3rlpy",
        unit="/s",
        target=1.5,
        note=note,
    )


def _returns(task: Task, returns: list[float]) -> str:
    """The last return (and, with several, every one and the mean of the last three), normalised the D4RL
    way (minari's ``get_normalized_score``, x100) when the dataset states its reference scores."""
    import minari

    dataset = task.dataset.load()
    has_refs = "ref_min_score" in dataset.storage.metadata

    def show(r: float) -> str:
        if not has_refs:
            return f"{r:.1f}"
        return f"{r:.1f} ({100.0 * float(minari.get_normalized_score(dataset, np.array(r))):.1f})"

    if len(returns) == 1:
        return show(returns[0])
    tail = returns[-3:]
    every = ", ".join(f"{r:.0f}" for r in returns)
    return f"{show(returns[-1])}, mean of the last {len(tail)} {show(sum(tail) / len(tail))} [{every}]"


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.offline --seed N [--hopper] [--algos IQL BC]``: one seed of a group (1 torch
    thread), all its algorithms or those named."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hopper", action="store_true", help="the offline_hopper group")
    parser.add_argument("--algos", nargs="+", choices=list(BUDGETS), help="default: all of the group's")
    args = parser.parse_args(argv)
    group = tuple(HOPPER_TASKS) if args.hopper else tuple(BUDGETS)
    algos = group if args.algos is None else tuple(args.algos)
    if not set(algos) <= set(group):
        parser.error(f"--algos: the group runs {', '.join(group)}; got {', '.join(algos)}")
    configure_torch(1)
    torch.set_flush_denormal(True)
    rows = run_hopper(1, False, args.seed, algos) if args.hopper else run(1, False, args.seed, algos)
    print(table(rows), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
