"""``ActorWorker``: one actor process of asynchronous training (a Ray actor).

It owns an env, its step processor(s) and a copy of the agent that only acts. Each request from the
learner runs ``steps`` env steps and returns their items and env records; the request carries the newest
policy weights (an object reference inside a list, so Ray fetches them only when the version is new).
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Generic

import attrs

from border_py.base.builder import Builder, SeededBuilder
from border_py.base.env import AnyEnv, VecEnv
from border_py.base.step_processor import StepProcessor
from border_py.base.sync_model import ActingAgent
from border_py.base.typevars import A, I, O
from border_py.distributed.gym_ids import register_missing
from border_py.record import Record
from border_py.trainer.sampler import SyncSampler


@attrs.frozen(kw_only=True)
class Collected(Generic[I]):
    """What one request brought back."""

    items: list[I]
    records: Sequence[Record]
    env_steps: int
    version: int
    """The policy version the items were collected with."""
    seconds: float
    """Time spent stepping the env and acting."""
    pid: int
    """The actor's process (a new one after Ray restarted it)."""


class ItemSink(Generic[I]):
    """The push side of an actor's sampler: items wait here until the request returns."""

    def __init__(self) -> None:
        self.items: list[I] = []

    def push(self, item: I) -> None:
        self.items.append(item)

    def __len__(self) -> int:
        return len(self.items)


class ActorWorker(Generic[O, A, I]):
    """One actor: env, step processor(s) and an acting copy of the agent (in train mode: exploring).

    A restarted actor (Ray restarts one whose process died) seeds its env anew, from its seed and its
    process id, rather than repeating the episodes it played before.

    Args:
        seed: seeds its env and its agent copy.
        env_config: builds its env.
        step_proc_config: builds its step processor (one per sub-env of a vector env).
        make_agent: builds its agent copy from a seed.
        registrations: Gymnasium registrations the driver made (`registrations_of`), made here too.
    """

    def __init__(
        self,
        seed: int,
        env_config: SeededBuilder[AnyEnv[O, A]],
        step_proc_config: Builder[StepProcessor[O, A, I]],
        make_agent: Callable[[int], ActingAgent[O, A]],
        registrations: Sequence[Any] = (),
    ) -> None:
        import ray

        register_missing(registrations)  # an id the driver registered (a user's env): unknown here

        with warnings.catch_warnings():  # Ray 2.60 deprecates the property without a replacement for it
            warnings.simplefilter("ignore", DeprecationWarning)
            restarted = ray.get_runtime_context().was_current_actor_reconstructed
        if restarted:
            seed = seed + 7919 * os.getpid()
        env = env_config.build(seed)
        processors: StepProcessor[O, A, I] | list[StepProcessor[O, A, I]] = (
            [step_proc_config.build() for _ in range(env.num_envs)]
            if isinstance(env, VecEnv)
            else step_proc_config.build()
        )
        self.sampler = SyncSampler(env, processors)
        self.agent = make_agent(seed)
        self.agent.train()
        self.version = -1

    def pid(self) -> int:
        """The actor's process id (tests kill it)."""
        return os.getpid()

    def collect(self, steps: int, weights: list[Any], version: int, env_steps: int) -> Collected[I]:
        """Runs at least ``steps`` env steps (a vector env's steps come in multiples of its size) with
        the policy of ``version``, loading it first when it is newer than the one held.

        Args:
            steps: env steps to run.
            weights: ``[ObjectRef]`` of the agent's acting state (in a list: fetched only when needed).
            version: that state's version.
            env_steps: the run's env steps when the version was published.
        """
        start = time.perf_counter()
        if version > self.version:
            import ray

            self.agent.load_acting_state(ray.get(weights[0]), env_steps)
            self.version = version
        sink: ItemSink[I] = ItemSink()
        records: list[Record] = []
        done = 0
        while done < steps:
            records.extend(self.sampler.sample_and_push(self.agent, sink))
            done += self.sampler.num_envs
        return Collected(
            items=sink.items,
            records=records,
            env_steps=done,
            version=self.version,
            seconds=time.perf_counter() - start,
            pid=os.getpid(),
        )
