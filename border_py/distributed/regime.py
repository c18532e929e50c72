"""``AsyncRegime``: the asynchronous `Regime` of
`AsyncTrainer` (the requests to the actors, what comes back, the weights
they act with, their restarts)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, Protocol

from border_py.base.builder import Builder, SeededBuilder
from border_py.base.env import AnyEnv
from border_py.base.replay_buffer import TrainingBuffer
from border_py.base.step_processor import StepProcessor
from border_py.base.sync_model import ActingAgent, SyncAgent
from border_py.base.typevars import A, B, I, O
from border_py.checkpoint import TRAINER_STATE_FILE, CheckpointError
from border_py.config import MAX_INT
from border_py.distributed.actor import ActorWorker, Collected
from border_py.distributed.config import AsyncConfig
from border_py.distributed.gym_ids import registrations_of
from border_py.distributed.limiter import RateLimiter
from border_py.record import Record
from border_py.trainer.bookkeeper import Bookkeeper
from border_py.trainer.config import TrainerConfig
from border_py.trainer.interrupts import ExperienceSourceError

SAME_ON_RESUME = ("env", "step_processor", "replay_buffer", "trainer.seed", "trainer.opt_interval")
"""What a resumed asynchronous run must share with its checkpoint."""

ACTOR_SEED_STRIDE = 1000
"""Actor ``i`` seeds its env and agent copy with ``trainer.seed + 1000 * (i + 1)``: apart from the
evaluation env's ``seed + 1`` and from each other."""


def check_cluster_fits(config: AsyncConfig) -> None:
    """Refuses more actors than the Ray cluster has CPUs for: Ray would wait for CPUs forever, and the run
    with it.

    Raises:
        ValueError: naming ``n_actors`` and ``num_cpus_per_actor``.
    """
    import ray

    cpus = float(ray.cluster_resources().get("CPU", 0.0))  # type: ignore[no-untyped-call]
    need = config.n_actors * config.num_cpus_per_actor
    if need > cpus:
        raise ValueError(
            f"AsyncConfig: {config.n_actors} actors (n_actors) x {config.num_cpus_per_actor:g} CPUs "
            f"(num_cpus_per_actor) = {need:g} CPUs, but the Ray cluster has {cpus:g}: lower either, or "
            "join a larger cluster (address)"
        )


class AsyncSetup(Protocol):
    """What the asynchronous regime is given by its trainer (`border_py.distributed.AsyncTrainer`):
    the schedule, the actors' settings and the configs each actor builds its env and step processor from."""

    @property
    def config(self) -> TrainerConfig: ...
    @property
    def async_config(self) -> AsyncConfig: ...
    @property
    def tolerance(self) -> int: ...
    @property
    def env_config(self) -> SeededBuilder[AnyEnv[Any, Any]]: ...
    @property
    def step_proc_config(self) -> Builder[StepProcessor[Any, Any, Any]]: ...

    def setup(self) -> dict[str, Any]:
        """What a checkpoint's ``meta.yaml`` records."""
        ...


class AsyncRegime(Generic[O, A, I, B]):
    """The asynchronous `Regime`: items come from Ray actors, and opt steps
    are due as the rate limiter allows. A checkpoint holds the buffer (with ``checkpoint_buffer``), the
    policy version and the restart count; the actors' unfinished episodes are not kept (a resumed run's
    actors start new ones)."""

    name = "async"

    def __init__(
        self,
        trainer: AsyncSetup,
        buffer: TrainingBuffer[I, B],
        agent: SyncAgent[O, A, B],
        make_actor_agent: Callable[[int], ActingAgent[O, A]],
    ) -> None:
        import ray

        self._setup = trainer.setup()
        self.env_config, self.step_proc_config = trainer.env_config, trainer.step_proc_config
        self.config = trainer.config
        self.async_config = c = trainer.async_config
        self.buffer = buffer
        self.agent = agent
        self.limiter = RateLimiter(self.config.opt_interval, trainer.tolerance)
        self.make_actor_agent = make_actor_agent
        # max_task_retries=-1: a request in flight when its actor died runs again on the restarted actor,
        # and one sent while it restarts waits for it (instead of failing at once).
        remote = ray.remote(num_cpus=c.num_cpus_per_actor, max_restarts=c.max_restarts, max_task_retries=-1)
        # Ray's stubs type a remote class's handle poorly (``.remote`` on methods is unknown to them).
        self.worker_class: Any = remote(ActorWorker)
        self.actors: list[Any] = [self._spawn(i) for i in range(c.n_actors)]
        # Every actor built (seconds: each imports torch and builds its env) before the first request.
        try:
            self._pids: list[int | None] = list(ray.get([actor.pid.remote() for actor in self.actors]))
        except ray.exceptions.RayActorError as exc:  # an actor's env or agent could not be built
            for actor in self.actors:
                ray.kill(actor, no_restart=True)
            cause = [line for line in str(exc).splitlines() if line.strip()][-1:] or [type(exc).__name__]
            raise ExperienceSourceError(f"the actors could not start: {cause[0].strip()}") from exc
        self._starting: dict[int, Any] = {}
        """Replacement actors still being built: index -> the reference of their pid (no request before)."""
        self.pending: dict[Any, tuple[int, int]] = {}
        """In-flight requests: object ref -> (actor, env steps asked for)."""
        self.sent_at: dict[Any, float] = {}
        self.request_seconds = 1.0
        """A running mean of how long a request takes, to tell a stuck one."""
        self.version = -1
        self.version_opt_steps: dict[int, int] = {}
        """The opt step at which each recent version was published (policy lag in opt steps)."""
        self.weights: Any = None
        self.weights_env_steps = 0
        self.restarts = [0] * c.n_actors
        self._failed = [False] * c.n_actors
        """Whether the actor's last request failed (its restart is counted already)."""
        self.inserted_since_record = 0
        self.collect_seconds = 0.0
        self.wait_seconds = 0.0
        self._last_record: float | None = None
        self._books: Bookkeeper[Any, Any] | None = None

    def _spawn(self, index: int) -> Any:
        """A new actor process ``index`` (its handle)."""
        return self.worker_class.remote(
            self.config.seed + ACTOR_SEED_STRIDE * (index + 1),
            self.env_config,
            self.step_proc_config,
            self.make_actor_agent,
            registrations_of(self.env_config),
        )

    def setup(self) -> dict[str, Any]:
        """The trainer's `AsyncTrainer.setup`."""
        return self._setup

    # -- the regime's turn ---------------------------------------------------------------------------------

    def advance(self, books: Bookkeeper[Any, Any]) -> int:
        """Publishes weights when due, keeps the actors busy as the limiter allows, takes in what they
        finished (waiting for one when no opt step is allowed yet); returns the opt steps allowed."""
        import ray

        self._books = books
        published = self.version_opt_steps.get(self.version)
        if published is None or books.opt_steps >= published + self.async_config.sync_interval:
            self._publish(books)
        self._request(books)
        allowed = self.limiter.opts_allowed(books.env_steps, books.opt_steps, books.warmup_end)
        if not self.pending and self._starting and allowed == 0:  # nothing to do but wait for them
            ray.wait(list(self._starting.values()), num_returns=1, timeout=1.0)
            self._request(books)
        if self.pending:
            # Block only when the learner has nothing to do; otherwise take what is already done.
            start = time.perf_counter()
            # Never unbounded: with every actor stuck, the watchdog below must still get its turn.
            ready, _ = ray.wait(list(self.pending), num_returns=1, timeout=1.0 if allowed == 0 else 0.0)
            stuck = self._wait_for_stuck()
            self._replace_lost()
            if ready or stuck:
                ready, _ = ray.wait(list(self.pending), num_returns=len(self.pending), timeout=0.0)
            if allowed == 0:
                self.wait_seconds += time.perf_counter() - start
            for ref in ready:
                self._take(ref, books)
            self._request(books)
        # No further than the next publication: weights go out every sync_interval opt steps exactly.
        next_sync = self.version_opt_steps[self.version] + self.async_config.sync_interval
        return min(
            self.limiter.opts_allowed(books.env_steps, books.opt_steps, books.warmup_end),
            next_sync - books.opt_steps,
        )

    def _publish(self, books: Bookkeeper[Any, Any]) -> None:
        import ray

        self.version += 1
        state = self.agent.acting_state()
        # The learner's own copy follows the actors' schedules too (DQN's epsilon, which its records show).
        self.agent.load_acting_state(state, books.env_steps)
        self.weights = ray.put(state)
        self.weights_env_steps = books.env_steps
        self.version_opt_steps[self.version] = books.opt_steps
        for old in [v for v in self.version_opt_steps if v < self.version - 1000]:
            del self.version_opt_steps[old]

    def _wait_for_stuck(self) -> list[Any]:
        """Waits (up to half a second) on requests that take ten times longer than usual (and at least two
        seconds). Ray resubmits a dead actor's request to its restarted process only while the driver
        waits: a learner that never stops training would starve it (seen here: a request stuck for the
        rest of a run until the driver blocked)."""
        import ray

        now = time.perf_counter()
        limit = max(2.0, 10.0 * self.request_seconds)
        stuck = [ref for ref in self.pending if now - self.sent_at[ref] > limit]
        if not stuck:
            return []
        start = time.perf_counter()
        ready, _ = ray.wait(stuck, num_returns=1, timeout=0.5)
        self.wait_seconds += time.perf_counter() - start
        return list(ready)

    def _replace_lost(self) -> None:
        """Kills and replaces the actor of each request older than ``stuck_timeout`` (a restart)."""
        import ray

        now = time.perf_counter()
        timeout = self.async_config.stuck_timeout
        for ref in [r for r in self.pending if now - self.sent_at[r] > timeout]:
            index, _ = self.pending.pop(ref)
            del self.sent_at[ref]
            ray.kill(self.actors[index], no_restart=True)
            self._count_restart(index)
            self.actors[index] = self._spawn(index)
            # No request until it is built: its start (seconds) would count against its first request.
            self._starting[index] = self.actors[index].pid.remote()
            self._pids[index] = None  # the new process's first answer is no restart of its own

    def _started(self, index: int) -> bool:
        """Whether actor ``index`` may take requests (a replacement only once it is built)."""
        import ray

        ref = self._starting.get(index)
        if ref is None:
            return True
        if not ray.wait([ref], timeout=0.0)[0]:
            return False
        del self._starting[index]
        return True

    def _request(self, books: Bookkeeper[Any, Any]) -> None:
        busy = {actor for actor, _ in self.pending.values()}
        steps = self.async_config.actor_steps
        budget = self.config.max_env_steps
        for i, actor in enumerate(self.actors):
            in_flight = sum(n for _, n in self.pending.values())
            if (
                i in busy
                or not self._started(i)
                or not self.limiter.may_insert(
                    books.env_steps, in_flight, steps, books.opt_steps, books.warmup_end
                )
            ):
                continue
            if budget is not None and books.env_steps + in_flight >= budget:
                break
            ref = actor.collect.remote(steps, [self.weights], self.version, self.weights_env_steps)
            self.pending[ref] = (i, steps)
            self.sent_at[ref] = time.perf_counter()

    def _take(self, ref: Any, books: Bookkeeper[Any, Any]) -> None:
        import ray

        index, _ = self.pending.pop(ref)
        took = time.perf_counter() - self.sent_at.pop(ref)
        self.request_seconds += 0.1 * (took - self.request_seconds)
        try:
            collected: Collected[I] = ray.get(ref)
        except ray.exceptions.RayActorError:  # it died for good: Ray restarted it max_restarts times
            self._count_restart(index)
            return
        except ray.exceptions.RayTaskError:  # its env (or policy) raised: restart it afresh
            self._count_restart(index)
            ray.kill(self.actors[index], no_restart=False)
            return
        # A process that died between two requests is restarted by Ray unseen: its new pid tells.
        if self._pids[index] not in (None, collected.pid) and not self._failed[index]:
            self._count_restart(index)
        self._pids[index], self._failed[index] = collected.pid, False
        for item in collected.items:
            self.buffer.push(item)
        books.env_steps += collected.env_steps
        self.inserted_since_record += collected.env_steps
        self.collect_seconds += collected.seconds
        for record in collected.records:
            books.recorder.store(record, books.opt_steps)
        lag = books.opt_steps - self.version_opt_steps.get(collected.version, 0)
        books.recorder.store(
            Record({"async/policy_lag": float(lag), f"async/actor{index}/policy_lag": float(lag)}),
            books.opt_steps,
        )

    def _count_restart(self, index: int) -> None:
        self.restarts[index] += 1
        self._failed[index] = True
        if self.restarts[index] > self.async_config.max_restarts:
            raise ExperienceSourceError(
                f"actor {index} died {self.restarts[index]} times (distributed.max_restarts is "
                f"{self.async_config.max_restarts}); see its log under Ray's session directory"
            )

    def take_record(self) -> dict[str, float]:
        """Since the last record: ``time/fps`` (env steps taken in per second), ``async/actor_fps`` (env
        steps per second of one actor's working time), ``async/learner_wait_fraction`` (of the learner's
        time spent waiting for actors); and the run's ``async/actor_restarts``, ``async/policy_version``,
        ``async/opt_steps_per_env_step`` after the warm-up and ``async/samples_per_insert`` (that times
        the agent's batch size)."""
        now = time.perf_counter()
        elapsed = now - self._last_record if self._last_record is not None else 0.0
        self._last_record = now
        record = {
            "time/fps": self.inserted_since_record / elapsed if elapsed > 0 else 0.0,
            "async/actor_fps": self.inserted_since_record / self.collect_seconds
            if self.collect_seconds
            else 0.0,
            "async/learner_wait_fraction": self.wait_seconds / elapsed if elapsed > 0 else 0.0,
            "async/actor_restarts": float(sum(self.restarts)),
            "async/policy_version": float(self.version),
        }
        books = self._books
        if books is not None and books.env_steps > books.warmup_end:
            ratio = books.opt_steps / (books.env_steps - books.warmup_end)
            record["async/opt_steps_per_env_step"] = ratio
            batch = getattr(self.agent, "batch_size", None)
            if isinstance(batch, int):
                record["async/samples_per_insert"] = ratio * batch
        self.inserted_since_record, self.wait_seconds, self.collect_seconds = 0, 0.0, 0.0
        return record

    # -- checkpoints ---------------------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """The policy version, the restarts and whether the buffer is saved beside it."""
        return {
            "version": self.version,
            "restarts": list(self.restarts),
            "buffer_saved": self.config.checkpoint_buffer,
        }

    def save_files(self, path: Path) -> list[Path]:
        """The buffer's file, with ``checkpoint_buffer``."""
        return self.buffer.save(path) if self.config.checkpoint_buffer else []

    def restore(self, path: Path, state: dict[str, Any], books: Bookkeeper[Any, Any]) -> None:
        """Loads the buffer (if saved; otherwise the warm-up starts again) and the counters, every value
        checked first (`checked_source`)."""
        saved, version, restarts = checked_source(path, state)
        if saved:
            self.buffer.load(path)
        else:
            books.warmup_end = books.env_steps + self.config.warmup_period
        self.version = version  # the first publication of the resumed run is the next version
        n = len(self.actors)
        self.restarts = restarts[:n] + [0] * max(0, n - len(restarts))

    def stop(self) -> None:
        """Ends every actor (their work in flight is dropped)."""
        import ray

        for actor in self.actors:
            ray.kill(actor, no_restart=True)
        self.actors = []
        self.pending.clear()
        self.sent_at.clear()
        self._starting.clear()


def checked_source(path: Path, state: Any) -> tuple[bool, int, list[int]]:
    """Whether checkpoint ``path`` saved the buffer, its policy version and each actor's restarts, from its
    trainer state's ``source`` (``state``), each value checked as `OnlineRegime.restore` checks its own.

    Raises:
        CheckpointError: a value is missing or out of range (the file and the key named).
    """
    file = path / TRAINER_STATE_FILE
    keys = {"buffer_saved", "version", "restarts"}
    if not (isinstance(state, dict) and keys <= state.keys() and isinstance(state["buffer_saved"], bool)):
        raise CheckpointError(
            f"{file}: source must hold 'buffer_saved' (true or false), 'version' and 'restarts'"
        )
    version, restarts = state["version"], state["restarts"]
    if isinstance(version, bool) or not isinstance(version, int) or not -1 <= version <= MAX_INT:
        raise CheckpointError(
            f"{file}: source.version must be a whole number in [-1, 2**63 - 1] (-1: none published yet), "
            f"got {version!r:.60}"
        )
    if not isinstance(restarts, list) or not all(type(r) is int and 0 <= r <= MAX_INT for r in restarts):
        raise CheckpointError(
            f"{file}: source.restarts must be a list of whole numbers in [0, 2**63 - 1], got {restarts!r:.60}"
        )
    return state["buffer_saved"], version, restarts
