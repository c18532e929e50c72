"""``AsyncTrainer``: one learner, N actors on Ray, the same bookkeeping core as every other regime.

::

    ray session (local, or the cluster at address);  N ActorWorkers (env + step processor + acting copy)
    publish version 0 of the agent's acting state
    loop (the one loop of border_py.trainer.loop):
        regime.advance:  hand new requests to idle actors while the rate limiter allows;
                         take in the finished ones (push their items, count their env steps, store their
                         records and policy lag); wait for one when no opt step is allowed yet;
                         publish a new version every sync_interval opt steps
        opt steps as the limiter allows; the bookkeeper evaluates, records, saves and stops as always

The learner never receives more than it asked for: an actor works only on a request, so actors cannot
swamp it (no back-pressure to crash on). An actor that dies (its process killed, or its env raising) is
restarted by Ray, up to ``max_restarts`` times; the run goes on and records ``async/actor_restarts``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Generic

from border_py.base.builder import Builder, SeededBuilder
from border_py.base.env import AnyEnv
from border_py.base.evaluator import Evaluator
from border_py.base.recorder import Recorder
from border_py.base.replay_buffer import TrainingBuffer
from border_py.base.step_processor import StepProcessor
from border_py.base.sync_model import ActingAgent, SyncAgent
from border_py.base.typevars import A, B, I, O
from border_py.config import to_dict
from border_py.distributed.config import AsyncConfig
from border_py.distributed.regime import SAME_ON_RESUME, AsyncRegime, check_cluster_fits
from border_py.model_dir import ModelDir
from border_py.trainer.checks import HasRolloutShape
from border_py.trainer.config import TrainerConfig
from border_py.trainer.loop import (
    OnStart,
    PreparedRun,
    RunSettings,
    check_checkpoint,
    checked_start,
    run_session,
)
from border_py.trainer.online import E, P, R, show_spaces
from border_py.trainer.result import EvaluationObserver, TrainResult
from border_py.trainer.state import describe_config


@contextmanager
def ray_session(address: str | None) -> Iterator[None]:
    """A Ray session for the run: the one already initialised in this process, else ``ray.init(address)``
    (a local Ray when ``address`` and ``RAY_ADDRESS`` are unset), shut down afterwards.

    Raises:
        ImportError: ray is not installed (the ``distributed`` extra).
    """
    try:
        import ray
    except ImportError as exc:
        raise ImportError("asynchronous training needs ray: pip install 'border_py[distributed]'") from exc
    if ray.is_initialized():
        yield
        return
    ray.init(address=address, include_dashboard=False, logging_level=logging.WARNING)
    try:
        yield
    finally:
        ray.shutdown()


class AsyncTrainer(Generic[E, P, R]):
    """Trains an agent from the experience of ``async_config.n_actors`` actors on Ray.

    It is typed as `Trainer` is: the step processor's items are the buffer's, the agent
    reads the env's observations and learns from the buffer's batches. The agent must also be a
    `SyncAgent` (DQN, IQN and SAC are), and ``train`` needs a function that builds an
    actor's acting copy from a seed (it is sent to the actor processes, so it must pickle: a module-level
    function or a closure over configs, never over the learner's agent).

    Args:
        config: the schedule; ``opt_interval`` and ``warmup_period`` count the env steps of all actors.
        async_config: the actors and the rate limiter.
        env_config: builds each actor's env (actor ``i`` with ``config.seed + 1000 * (i + 1)``).
        step_proc_config: builds each actor's step processor(s).
        replay_buffer_config: builds the learner's buffer.
    """

    env_config: SeededBuilder[E]
    step_proc_config: Builder[P]
    replay_buffer_config: SeededBuilder[R]

    def __init__(
        self: AsyncTrainer[AnyEnv[O, A], StepProcessor[O, A, I], TrainingBuffer[I, B]],
        config: TrainerConfig,
        async_config: AsyncConfig,
        env_config: SeededBuilder[AnyEnv[O, A]],
        step_proc_config: Builder[StepProcessor[O, A, I]],
        replay_buffer_config: SeededBuilder[TrainingBuffer[I, B]],
    ) -> None:
        if isinstance(replay_buffer_config, HasRolloutShape):
            raise ValueError("AsyncTrainer trains off-policy agents: a rollout buffer (PPO) needs Trainer")
        self.config = config
        self.async_config = async_config
        self.tolerance = async_config.tolerance_for(config.opt_interval)
        self.env_config = env_config
        self.step_proc_config = step_proc_config
        self.replay_buffer_config = replay_buffer_config
        self.observers: list[EvaluationObserver] = []
        """Hear each evaluation; one returning ``True`` stops training (tuning's pruner, early stopping)."""

    def prepare(
        self: AsyncTrainer[AnyEnv[O, A], StepProcessor[O, A, I], TrainingBuffer[I, B]],
        agent: SyncAgent[O, A, B],
        make_actor_agent: Callable[[int], ActingAgent[O, A]],
        evaluator: Evaluator[O, A] | None = None,
        *,
        resume_from: Path | str | None = None,
        held: ModelDir | None = None,
    ) -> PreparedRun:
        """Runs every check the learner can run before Ray starts, writing nothing: an evaluator for
        ``eval_interval``, the agent's batch against the buffer, the resume point (its agent files loaded
        into ``agent``, once), and the env (built once with the actors' first seed and closed: the actors
        build their own). `PreparedRun.run` then joins or starts Ray, checks the cluster's CPUs and trains
        (``held``: as `border_py.trainer.Trainer.prepare`).

        Raises:
            ValueError, FileNotFoundError: a check failed; nothing was written.
        """
        config = self.config
        regime_setup = (AsyncRegime.name, self.setup(), SAME_ON_RESUME)
        resume = checked_start(config, agent, self.replay_buffer_config, evaluator, resume_from, regime_setup)
        buffer = self.replay_buffer_config.build(config.seed)
        env = self.env_config.build(config.seed + 1000)
        try:
            show_spaces(buffer, env)
        finally:
            env.close()
        settings = RunSettings(config=config, agent=agent, buffer=buffer, evaluator=evaluator,
                               observers=tuple(self.observers), resume=resume, held=held)  # fmt: skip

        def start(recorder: Recorder, progress: bool, on_start: OnStart) -> TrainResult:
            with ray_session(self.async_config.address):
                check_cluster_fits(self.async_config)  # before the model directory is touched
                regime = AsyncRegime(self, buffer, agent, make_actor_agent)  # starts the actors
                try:
                    return run_session(settings, regime, recorder, progress, on_start)
                finally:
                    regime.stop()

        return PreparedRun(start, lambda: None)

    def train(
        self: AsyncTrainer[AnyEnv[O, A], StepProcessor[O, A, I], TrainingBuffer[I, B]],
        agent: SyncAgent[O, A, B],
        make_actor_agent: Callable[[int], ActingAgent[O, A]],
        recorder: Recorder,
        evaluator: Evaluator[O, A] | None = None,
        *,
        progress: bool = False,
        resume_from: Path | str | None = None,
    ) -> TrainResult:
        """Runs the actors and the learner until ``max_opts``, ``max_env_steps`` (over all actors),
        ``stop_score`` or an observer's stop (`prepare`, then `PreparedRun.run`); see
        `border_py.Trainer.train` for the arguments, the result and the errors they share.

        Args:
            agent: the learner's agent.
            make_actor_agent: builds an actor's acting copy from a seed (run in each actor's process).

        Raises:
            ImportError: ray is not installed.
            RuntimeError: an actor died more than ``max_restarts`` times.
        """
        prepared = self.prepare(agent, make_actor_agent, evaluator, resume_from=resume_from)
        return prepared.run(recorder, progress=progress)

    def setup(self) -> dict[str, Any]:
        """What a checkpoint's ``meta.yaml`` records: trainer, async config, env, step processor, buffer."""
        return {
            "trainer": to_dict(self.config),
            "async": to_dict(self.async_config),
            "env": describe_config(self.env_config, "env"),
            "step_processor": describe_config(self.step_proc_config, "step processor"),
            "replay_buffer": describe_config(self.replay_buffer_config, "replay buffer"),
        }

    def check_resume(self, path: Path | str) -> None:
        """Checks, without changing anything, that training can resume from the checkpoint ``path``."""
        check_checkpoint(Path(path), AsyncRegime.name, self.setup(), SAME_ON_RESUME)
