"""Asynchronous training on Ray against the synchronous trainer, in one run (the ``distributed`` extra):

    python -m benchmarks.distributed [--only efficiency throughput ingest] [--seeds 0 1 2] [--actors 2]

- ``efficiency``: the zoo's DQN CartPole-v1 entry against its asynchronous variant
  (``--variant async``, 2 actors, the same 2 env steps per opt step held by the rate limiter):
  env steps until a greedy evaluation scores 475, per seed, and the ratio of the medians (target <= 1.2).
- ``throughput``: CartPole whose every step burns ``--burn-ms`` of CPU (1 ms: a MuJoCo-sized env), a small
  DQN at 8 env steps per opt step: env steps per second of the whole run, ``--actors`` actors against the
  synchronous trainer (target >= 1.6 with 2 actors on 2 cores).
- ``ingest``: what bounds the learner. Its ingest ceiling (transitions per second it takes in from actors
  that answer at once, with no opt steps), its opt steps per second (from a full buffer), and one actor's
  env steps per second; ``docs/distributed.md`` builds the scaling model from them.

Every run shares one local Ray (``num_cpus`` = ``--actors``, on 127.0.0.1): its start is not timed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import attrs

from border_py import (
    BufferedRecorder,
    GymEnv,
    GymEnvConfig,
    SimpleReplayBufferConfig,
    SimpleStepProcessorConfig,
)
from border_py.agents import Dqn, DqnConfig, EpsilonGreedyConfig
from border_py.base import Spaces
from border_py.base.replay_buffer import TrainingBuffer
from border_py.base.step import Step
from border_py.distributed import AsyncConfig, AsyncTrainer
from border_py.distributed.actor import Collected, ItemSink
from border_py.envs import Act, Obs
from border_py.record import Record
from border_py.recorders import NullRecorder
from border_py.run import prepare, zoo
from border_py.seeding import configure_torch
from border_py.trainer import Trainer, TrainerConfig, TrainResult
from border_py.trainer.sampler import SyncSampler

THRESHOLD = 475.0


# -- efficiency ----------------------------------------------------------------------------------------------


def efficiency(seeds: list[int], actors: int, work: Path) -> None:
    """Env steps to greedy 475: the synchronous zoo entry against its asynchronous variant, seed by seed."""
    sync_steps, async_steps = [], []
    for seed in seeds:
        trainer = {"seed": seed, "stop_score": THRESHOLD, "save_interval": None}
        sync = zoo.experiment("dqn", "CartPole-v1", str(work / f"sync{seed}"), trainer=trainer)
        start = time.perf_counter()
        with prepare(sync) as run:
            result = run.run(NullRecorder())
        sync_steps.append(_report("sync", seed, result, time.perf_counter() - start))

        distributed = {"n_actors": actors}
        asynchronous = zoo.experiment(
            "dqn",
            "CartPole-v1",
            str(work / f"async{seed}"),
            variant="async",
            trainer=trainer,
            distributed=distributed,
        )
        start = time.perf_counter()
        with prepare(asynchronous) as run:
            result = run.run(NullRecorder())
        async_steps.append(_report(f"async ({actors} actors)", seed, result, time.perf_counter() - start))
    if all(s is not None for s in sync_steps + async_steps):
        sync_median = statistics.median(s for s in sync_steps if s is not None)
        async_median = statistics.median(s for s in async_steps if s is not None)
        print(
            f"efficiency: median env steps to {THRESHOLD:g}: sync {sync_median:,.0f}, async "
            f"{async_median:,.0f}; async / sync = {async_median / sync_median:.2f} (target <= 1.2)",
            flush=True,
        )


def _report(name: str, seed: int, result: TrainResult, seconds: float) -> int | None:
    steps = result.env_steps_to_reach(THRESHOLD)
    shown = f"{steps:,}" if steps is not None else f"not reached in {result.env_steps:,}"
    print(
        f"efficiency: {name} seed {seed}: env steps to {THRESHOLD:g}: {shown} ({seconds:.0f} s)", flush=True
    )
    return steps


# -- throughput ----------------------------------------------------------------------------------------------


@attrs.frozen
class BurnEnvConfig:
    """CartPole-v1 whose every step also burns ``ms`` milliseconds of CPU (module level: actors import it)."""

    ms: float = 1.0

    def build(self, seed: int) -> BurnEnv:
        return BurnEnv(self.ms, seed)


class BurnEnv(GymEnv):
    """CartPole-v1 with a busy-wait in each step (a stand-in for a costly simulator)."""

    def __init__(self, ms: float, seed: int) -> None:
        super().__init__(GymEnvConfig(name="CartPole-v1"), seed)
        self.burn = ms / 1000.0

    def step(self, act: Act) -> tuple[Step[Obs, Act], Record]:
        end = time.perf_counter() + self.burn
        while time.perf_counter() < end:
            pass
        return super().step(act)


SMALL_DQN = DqnConfig(hidden=(64, 64), batch_size=64, explorer=EpsilonGreedyConfig(final_step=5_000))


def small_dqn(seed: int) -> Dqn:
    """The throughput runs' agent (module level: actors import it)."""
    return Dqn(SMALL_DQN, Spaces(obs_shape=(4,), n_actions=2), seed=seed)


def throughput(actors: int, burn_ms: float, env_steps: int, work: Path) -> None:
    """Env steps per second with a costly env, ``actors`` actors against one process: the steady rate (the
    median of the ``time/fps`` records after the first, every 2,000 env steps) and the whole run's (with
    the actors' start)."""
    config = TrainerConfig(
        max_env_steps=env_steps,
        max_opts=env_steps,
        opt_interval=8,
        warmup_period=1_000,
        eval_interval=None,
        record_interval=250,
        save_interval=None,
        model_dir=str(work / "burn"),
    )
    env = BurnEnvConfig(burn_ms)
    buffer = SimpleReplayBufferConfig(capacity=100_000)
    steady: dict[str, list[float]] = {"sync": [], "async": []}
    whole: dict[str, list[float]] = {"sync": [], "async": []}
    for _ in range(2):  # alternating rounds: both sides see the same machine
        for side in ("sync", "async"):
            shutil.rmtree(work / "burn", ignore_errors=True)
            recorder = BufferedRecorder()
            start = time.perf_counter()
            if side == "sync":
                trainer: Any = Trainer(config, env, SimpleStepProcessorConfig(), buffer)
                result = trainer.train(small_dqn(0), recorder)
            else:
                async_config = AsyncConfig(n_actors=actors, actor_steps=64, sync_interval=50)
                trainer = AsyncTrainer(config, async_config, env, SimpleStepProcessorConfig(), buffer)
                result = trainer.train(small_dqn(0), small_dqn, recorder)
            whole[side].append(result.env_steps / (time.perf_counter() - start))
            fps = [float(r["time/fps"]) for _, r in recorder.records if "time/fps" in r]  # type: ignore[arg-type]
            steady[side].append(statistics.median(fps[1:]))
    ratio = statistics.median(steady["async"]) / statistics.median(steady["sync"])
    print(
        f"throughput: {burn_ms:g} ms/step env, {env_steps:,} env steps, DQN 64x64 at 8 env steps per opt "
        f"step, env steps/s per round: steady: sync {_rounds(steady['sync'])}, {actors} actors "
        f"{_rounds(steady['async'])}; whole run: sync {_rounds(whole['sync'])}, {actors} actors "
        f"{_rounds(whole['async'])}; async / sync (steady) = {ratio:.2f} (target >= 1.6)",
        flush=True,
    )


def _rounds(rates: list[float]) -> str:
    return "/".join(f"{r:,.0f}" for r in rates)


# -- ingest ceiling ------------------------------------------------------------------------------------------


def _cartpole_sampler() -> tuple[SyncSampler[Any, Any, Any], ItemSink[Any]]:
    """A CartPole-v1 sampler as an actor has it, and the sink it pushes into."""
    sampler = SyncSampler(GymEnvConfig(name="CartPole-v1").build(0), SimpleStepProcessorConfig().build())
    return sampler, ItemSink()


class ReadyActor:
    """An actor that answers each request at once with the same ``steps`` CartPole transitions."""

    def __init__(self, steps: int) -> None:
        sampler, sink = _cartpole_sampler()
        agent = small_dqn(0)
        while len(sink) < steps:
            sampler.sample_and_push(agent, sink)
        self.collected = Collected(
            items=sink.items[:steps], records=[], env_steps=steps, version=0, seconds=0.0, pid=0
        )

    def collect(self) -> Any:
        return self.collected


def ingest(actors: int, seconds: float) -> None:
    """The learner's ceilings: transitions per second taken in (no training), opt steps per second."""
    import ray

    steps = 64
    ready_actor: Any = ray.remote(num_cpus=1)(ReadyActor)  # Ray's stubs type remote methods poorly
    handles = [ready_actor.remote(steps) for _ in range(actors)]
    buffer: TrainingBuffer[Any, Any] = SimpleReplayBufferConfig(capacity=100_000).build(0)
    ray.get([h.collect.remote() for h in handles])  # built (seconds: torch imports) before the clock starts
    pending = {h.collect.remote(): h for h in handles}
    taken, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        ready, _ = ray.wait(list(pending), num_returns=1)
        for ref in ready:
            handle = pending.pop(ref)
            for item in ray.get(ref).items:
                buffer.push(item)
            taken += steps
            pending[handle.collect.remote()] = handle
    ingest_rate = taken / (time.perf_counter() - start)
    for h in handles:
        ray.kill(h)

    agent = small_dqn(0)
    agent.train()
    agent.opt(buffer)
    opts, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        agent.opt(buffer)
        opts += 1
    opt_rate = opts / (time.perf_counter() - start)

    sampler, sink = _cartpole_sampler()
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        sampler.sample_and_push(agent, sink)
        n += 1
    actor_rate = n / (time.perf_counter() - start)
    print(
        f"ingest: learner takes in {ingest_rate:,.0f} transitions/s from {actors} ready actors "
        f"({steps} per request, no training); DQN 64x64 batch 64: {opt_rate:,.0f} opt steps/s; one "
        f"CartPole actor (env + epsilon-greedy act): {actor_rate:,.0f} env steps/s",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--only", nargs="+", choices=("efficiency", "throughput", "ingest"))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--actors", type=int, default=2)
    parser.add_argument("--burn-ms", type=float, default=1.0)
    parser.add_argument("--env-steps", type=int, default=20_000, help="per throughput run")
    parser.add_argument("--seconds", type=float, default=5.0, help="per ingest measurement")
    args = parser.parse_args(argv)
    if args.actors < 1:
        parser.error(f"--actors must be >= 1, got {args.actors}")
    only = args.only or ["efficiency", "throughput", "ingest"]
    import ray

    configure_torch(1)
    start = time.perf_counter()
    ray.init(num_cpus=args.actors, include_dashboard=False, _node_ip_address="127.0.0.1")
    print(f"ray.init: {time.perf_counter() - start:.1f} s; {os.cpu_count()} CPUs", flush=True)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            if "ingest" in only:
                ingest(args.actors, args.seconds)
            if "throughput" in only:
                throughput(args.actors, args.burn_ms, args.env_steps, Path(tmp))
            if "efficiency" in only:
                efficiency(args.seeds, args.actors, Path(tmp))
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
