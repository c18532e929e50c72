"""``Trainer[E, P, R]``: online training. Builds the env, step processor and replay buffer from their
configs; a `SyncSampler` feeds the buffer between opt steps.

The loop (online):

    build env(seed), step processor, buffer, sampler;  agent.train()
    loop:
        store(sampler.sample_and_push(agent, buffer));  env_steps += 1   # += N with a vector env of N
        if env_steps <= warmup_period or env_steps % opt_interval != 0: continue
        r = agent.opt(buffer)                   # with N envs: once per multiple of opt_interval passed
        if r is None: continue                  # the agent skipped: not an opt step
        opt_steps += 1;  store(r)
        every eval_interval:   evaluate in eval mode; save model_dir/best on a new best score
        every record_interval: store env_steps, opt_steps, time/fps, time/opt_steps_per_sec; flush(opt_steps)
        every save_interval:   save model_dir/<opt_steps>
        stop at max_opts, max_env_steps or an evaluation reaching stop_score; flush what is still stored

``opt_interval`` and ``warmup_period`` count env steps; ``eval_interval``, ``record_interval``,
``save_interval`` and ``max_opts`` count opt steps. ``None`` means never.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Generic, TypeAlias, TypeVar

from border_py.base.agent import Agent
from border_py.base.builder import Builder, SeededBuilder
from border_py.base.env import AnyEnv, Env, VecEnv
from border_py.base.evaluator import Evaluator
from border_py.base.policy import Policy
from border_py.base.recorder import Recorder
from border_py.base.replay_buffer import ObservesSpaces, TrainingBuffer
from border_py.base.spaces import Spaces
from border_py.base.step_processor import StepProcessor
from border_py.base.typevars import A, B, I, O
from border_py.checkpoint import TRAINER_STATE_FILE, CheckpointError
from border_py.config import to_dict
from border_py.model_dir import ModelDir
from border_py.trainer.bookkeeper import Bookkeeper
from border_py.trainer.checks import check_rollout_fits, opts_due
from border_py.trainer.config import TrainerConfig
from border_py.trainer.loop import (
    PreparedRun,
    RunSettings,
    check_checkpoint,
    checked_start,
    run_session,
)
from border_py.trainer.result import EvaluationObserver, TrainResult
from border_py.trainer.sampler import SyncSampler
from border_py.trainer.state import describe_config

E = TypeVar("E", bound=Env[Any, Any] | VecEnv[Any, Any], covariant=True)
P = TypeVar("P", bound=StepProcessor[Any, Any, Any], covariant=True)
R = TypeVar("R", bound=TrainingBuffer[Any, Any], covariant=True)


class Trainer(Generic[E, P, R]):
    """Trains an agent in an env ``E`` whose steps a step processor ``P`` turns into items of a replay
    buffer ``R``.

    mypy binds the three together: the constructor's self type is
    ``Trainer[AnyEnv[O, A], StepProcessor[O, A, I], TrainingBuffer[I, B]]`` (``AnyEnv``: an ``Env`` or a
    ``VecEnv``), so a step processor whose item type differs from the buffer's, or an env whose
    observations it cannot read, is a type error ("Cannot infer value of type parameter"). ``train`` then
    requires an ``Agent[O, A, B]`` and an ``Evaluator[O, A]``. Annotate a trainer you pass around as
    `TrainerOf` ``[O, A, I, B]``, not ``Trainer[Any, Any, Any]``, which switches both checks off.

    Args:
        config: the schedule.
        env_config: builds the training env with ``config.seed``.
        step_proc_config: builds the step processor (one per sub-env of a vector env).
        replay_buffer_config: builds the replay buffer with ``config.seed``.

    Examples:
        >>> from border_py.testing import (CountingEnvConfig, FakeAgent, ListBufferConfig,
        ...                                RecordingStepProcessorConfig)
        >>> from border_py.recorders import BufferedRecorder
        >>> trainer = Trainer(TrainerConfig(max_opts=3), CountingEnvConfig(),
        ...                   RecordingStepProcessorConfig(), ListBufferConfig())
        >>> trainer.train(FakeAgent(), BufferedRecorder()).opt_steps
        3
    """

    env_config: SeededBuilder[E]
    step_proc_config: Builder[P]
    replay_buffer_config: SeededBuilder[R]

    def __init__(
        self: Trainer[AnyEnv[O, A], StepProcessor[O, A, I], TrainingBuffer[I, B]],
        config: TrainerConfig,
        env_config: SeededBuilder[AnyEnv[O, A]],
        step_proc_config: Builder[StepProcessor[O, A, I]],
        replay_buffer_config: SeededBuilder[TrainingBuffer[I, B]],
    ) -> None:
        self.config = config
        self.env_config = env_config
        self.step_proc_config = step_proc_config
        self.replay_buffer_config = replay_buffer_config
        self.observers: list[EvaluationObserver] = []
        """Hear each evaluation; one returning ``True`` stops training (tuning's pruner, early stopping)."""

    def prepare(
        self: Trainer[AnyEnv[O, A], StepProcessor[O, A, I], TrainingBuffer[I, B]],
        agent: Agent[O, A, B],
        evaluator: Evaluator[O, A] | None = None,
        *,
        resume_from: Path | str | None = None,
        held: ModelDir | None = None,
    ) -> PreparedRun:
        """Builds the env (once) and the buffer and runs every check of the run, writing nothing: an
        evaluator for ``eval_interval``, the agent's batch against the buffer, a rollout buffer's shape
        against the env, and the resume point against this setup (its agent files loaded into ``agent``,
        once). `PreparedRun.run` then trains, taking ``model_dir``'s lock first unless ``held`` is the
        directory as the caller holds it already.

        Raises:
            ValueError, FileNotFoundError: a check failed (see `train`); nothing was written.
        """
        config = self.config
        regime_setup = (OnlineRegime.name, self.setup(), _SAME_ON_RESUME)
        resume = checked_start(config, agent, self.replay_buffer_config, evaluator, resume_from, regime_setup)
        env = self.env_config.build(config.seed)
        try:
            check_rollout_fits(
                config, self.replay_buffer_config, env.num_envs if isinstance(env, VecEnv) else 1
            )
            buffer = self.replay_buffer_config.build(config.seed)
            show_spaces(buffer, env)
            regime = OnlineRegime(config, self.setup(), env, self.step_proc_config, buffer, agent)
        except BaseException:
            env.close()
            raise
        settings = RunSettings(config=config, agent=agent, buffer=buffer, evaluator=evaluator,
                               observers=tuple(self.observers), resume=resume, held=held)  # fmt: skip
        return PreparedRun(functools.partial(run_session, settings, regime), env.close)

    def train(
        self: Trainer[AnyEnv[O, A], StepProcessor[O, A, I], TrainingBuffer[I, B]],
        agent: Agent[O, A, B],
        recorder: Recorder,
        evaluator: Evaluator[O, A] | None = None,
        *,
        progress: bool = False,
        resume_from: Path | str | None = None,
    ) -> TrainResult:
        """Runs the training loop until ``max_opts`` opt steps, ``max_env_steps`` env steps, an
        evaluation scoring ``stop_score`` or an observer's stop, whichever comes first: `prepare`,
        then `PreparedRun.run`.

        Args:
            agent: the agent to train; it is left in train mode.
            recorder: receives the records; the trainer flushes it at each ``record_interval``, at each
                checkpoint and at the end, and leaves closing it to the caller.
            evaluator: scores the agent every ``eval_interval`` opt steps (and tells ``observers``).
            progress: show a progress bar (over opt steps, or env steps when only ``max_env_steps`` is set).
            resume_from: a checkpoint directory (``model_dir/<opt_steps>``, e.g. from
                `latest_checkpoint`) to continue from: the agent, counters,
                evaluations, best score, RNG states, the unfinished episode and (if saved) the buffer.

        Returns:
            The final counters and scores (counted from the start of the first run when resuming), and why
            training stopped.

        Raises:
            ValueError: ``eval_interval`` is set but no evaluator was given; the agent's batch is larger
                than the buffer's capacity; or ``resume_from`` is corrupt, or was saved with another env,
                step processor, replay buffer or seed (the message names the file or the differing field).
            FileNotFoundError: ``resume_from`` is not a complete checkpoint.
            FileExistsError: ``model_dir`` holds another run and ``resume_from`` is not given.
            PermissionError: ``model_dir`` is not writable (checked before the first env step).
            border_py.lock.ModelDirBusyError: another process trains into ``model_dir``.
            RuntimeError: the agent skipped ``max_skipped_opts`` opt calls in a row.
            OSError: a save failed (a full disk); the previous checkpoints are intact.
            TrainingInterrupted: SIGINT or SIGTERM arrived; a checkpoint was saved first.
        """
        return self.prepare(agent, evaluator, resume_from=resume_from).run(recorder, progress=progress)

    def setup(self) -> dict[str, Any]:
        """The configs a checkpoint's ``meta.yaml`` records: trainer, env, step processor, replay buffer."""
        return {
            "trainer": to_dict(self.config),
            "env": describe_config(self.env_config, "env"),
            "step_processor": describe_config(self.step_proc_config, "step processor"),
            "replay_buffer": describe_config(self.replay_buffer_config, "replay buffer"),
        }

    def check_resume(self, path: Path | str) -> None:
        """Checks that training can resume from the checkpoint ``path``, without changing anything: it is
        complete, readable and of this env, step processor, replay buffer, seed and ``opt_interval``
        (``max_opts``, the intervals and ``model_dir`` may differ).

        Raises:
            FileNotFoundError: ``path`` is not a complete checkpoint.
            ValueError: a file is corrupt or of an older border_py, or a config differs (named).
        """
        check_checkpoint(Path(path), OnlineRegime.name, self.setup(), _SAME_ON_RESUME)


def show_spaces(buffer: object, env: object) -> None:
    """Tells ``buffer`` the spaces of ``env`` where the buffer takes them (`ObservesSpaces`) and the env
    states them (every env of border_py does; a user's may not, and its buffer then learns nothing)."""
    if not isinstance(buffer, ObservesSpaces):
        return
    spaces = getattr(env, "spaces", None)
    if isinstance(spaces, Spaces):
        buffer.observe_spaces(spaces)


_SAME_ON_RESUME = ("env", "step_processor", "replay_buffer", "trainer.seed", "trainer.opt_interval")
"""What a resumed online run must share with its checkpoint."""

TrainerOf: TypeAlias = Trainer[AnyEnv[O, A], StepProcessor[O, A, I], TrainingBuffer[I, B]]
"""The type of a trainer over observations ``O``, actions ``A``, items ``I`` and batches ``B``: annotate
with it (``def make_trainer() -> TrainerOf[Obs, Act, Transition, TransitionBatch]``) to keep the pairing
checks that ``Trainer[Any, Any, Any]`` switches off."""


class OnlineRegime(Generic[O, A, I, B]):
    """The online `Regime`: each turn takes one sampler step (one env step,
    or one in every sub-env) and calls for one opt step per multiple of ``opt_interval`` passed after the
    warm-up. A checkpoint holds the sampler's unfinished episode and, with ``checkpoint_buffer``, the
    buffer."""

    name = "online"

    def __init__(
        self,
        config: TrainerConfig,
        setup: dict[str, Any],
        env: AnyEnv[O, A],
        step_proc_config: Builder[StepProcessor[O, A, I]],
        buffer: TrainingBuffer[I, B],
        policy: Policy[O, A],
    ) -> None:
        self.config = config
        self._setup = setup
        self.buffer = buffer
        self.policy = policy
        self.sampler = SyncSampler(
            env,
            [step_proc_config.build() for _ in range(env.num_envs)]
            if isinstance(env, VecEnv)
            else step_proc_config.build(),
        )

    def setup(self) -> dict[str, Any]:
        """The trainer's `Trainer.setup`."""
        return self._setup

    def advance(self, books: Bookkeeper[Any, Any]) -> int:
        """One sampler step; the opt steps it makes due."""
        for env_record in self.sampler.sample_and_push(self.policy, self.buffer):
            books.recorder.store(env_record, books.opt_steps)
        before = books.env_steps
        books.env_steps += self.sampler.num_envs
        return opts_due(before, books.env_steps, books.warmup_end, self.config.opt_interval)

    def take_record(self) -> dict[str, float]:
        """Since the last call: ``time/fps``, the sampler's env steps per second, and its seconds in the
        policy (``time/act_seconds``) and in the env (``time/env_seconds``)."""
        return self.sampler.take_times()

    def state_dict(self) -> dict[str, Any]:
        """The sampler's unfinished episode and whether the buffer is saved beside it."""
        return {"sampler": self.sampler.state_dict(), "buffer_saved": self.config.checkpoint_buffer}

    def save_files(self, path: Path) -> list[Path]:
        """The buffer's file, with ``checkpoint_buffer``."""
        return self.buffer.save(path) if self.config.checkpoint_buffer else []

    def restore(self, path: Path, state: dict[str, Any], books: Bookkeeper[Any, Any]) -> None:
        """Loads the buffer (if saved) and replays the unfinished episode; without a saved buffer the
        warm-up starts again."""
        if not (
            isinstance(state, dict) and isinstance(state.get("buffer_saved"), bool) and "sampler" in state
        ):
            raise CheckpointError(
                f"{path / TRAINER_STATE_FILE}: source must hold 'buffer_saved' (true or false) and 'sampler'"
            )
        if state["buffer_saved"]:
            self.buffer.load(path)
        else:
            books.warmup_end = books.env_steps + self.config.warmup_period  # refill the empty buffer first
        try:
            self.sampler.load_state_dict(state["sampler"])
        except ValueError as exc:  # a saved action the env refuses, say: the checkpoint's fault
            raise CheckpointError(f"{path / TRAINER_STATE_FILE}: source.sampler: {exc}") from exc
