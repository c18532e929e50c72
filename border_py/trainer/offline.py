"""``OfflineTrainer``: training on a fixed dataset, with the online trainer's bookkeeping.

Every turn of the loop is one opt step on batches of a read-only
`DatasetBuffer`; evaluation (in an evaluator's own env), ``model_dir/best``, records,
periodic checkpoints, ``max_opts``, ``stop_score``, interrupts and exact resume are those of
`Trainer`, from the same code (`run_training`).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Generic, TypeVar

from border_py.base.agent import Agent
from border_py.base.builder import SeededBuilder
from border_py.base.evaluator import Evaluator
from border_py.base.recorder import Recorder
from border_py.base.replay_buffer import DatasetBuffer
from border_py.base.typevars import A, B, O
from border_py.config import to_dict
from border_py.model_dir import ModelDir
from border_py.trainer.bookkeeper import Bookkeeper
from border_py.trainer.checks import HasBatchSize
from border_py.trainer.config import TrainerConfig
from border_py.trainer.loop import (
    PreparedRun,
    RunSettings,
    check_checkpoint,
    checked_start,
    run_session,
)
from border_py.trainer.result import EvaluationObserver, TrainResult
from border_py.trainer.state import describe_config

D = TypeVar("D", bound=DatasetBuffer[Any], covariant=True)


class OfflineTrainer(Generic[D]):
    """Trains an agent on the batches of a dataset ``D``, with no env to train in.

    A class of its own rather than a ``Trainer.train_offline`` method: ``Trainer[E, P, R]`` is typed by
    the env, step processor and replay buffer it builds, and an offline run has no env to train in and no
    step processor. As a method it would need a ``Trainer`` built from configs it never uses, whose type
    parameters would check nothing; as a class it is typed by the one thing it has, the dataset's batch
    type ``B``, which binds the agent (``Agent[O, A, B]``). Both classes only build their regime and call
    the one loop, so the cadence (evaluation, best model, records, saves, stopping) is the same code.

    ``TrainerConfig`` fields about env steps do not apply: ``max_env_steps`` must be ``None``,
    ``opt_interval`` 1 and ``warmup_period`` 0. Each checkpoint holds the dataset's sampling state (never
    its data), whatever ``checkpoint_buffer`` says, so a resume is exact. ``meta.yaml`` records the dataset
    config and the dataset's size.

    Args:
        config: the schedule (``max_opts``, intervals, ``model_dir``, ``seed`` of the dataset's sampling).
        dataset_config: builds the dataset buffer with ``config.seed``.

    Raises:
        ValueError: ``config`` sets a field about env steps.

    Examples:
        >>> from border_py.testing import FakeAgent, ListDatasetConfig
        >>> from border_py.recorders import BufferedRecorder
        >>> trainer = OfflineTrainer(TrainerConfig(max_opts=3), ListDatasetConfig(n_items=10))
        >>> trainer.train(FakeAgent(), BufferedRecorder()).opt_steps
        3
    """

    dataset_config: SeededBuilder[D]

    def __init__(
        self: OfflineTrainer[DatasetBuffer[B]],
        config: TrainerConfig,
        dataset_config: SeededBuilder[DatasetBuffer[B]],
    ) -> None:
        offline_only = {
            "max_env_steps": (config.max_env_steps, None),
            "opt_interval": (config.opt_interval, 1),
            "warmup_period": (config.warmup_period, 0),
            "eval_interval_env_steps": (config.eval_interval_env_steps, None),
            "save_interval_env_steps": (config.save_interval_env_steps, None),
        }
        for field, (value, expected) in offline_only.items():
            if value != expected:
                raise ValueError(
                    f"TrainerConfig.{field} is {value!r}, but offline training takes no env steps: "
                    f"it must be {expected!r}"
                )
        self.config = config
        self.dataset_config = dataset_config
        self.observers: list[EvaluationObserver] = []
        """Hear each evaluation; one returning ``True`` stops training (tuning's pruner, early stopping)."""

    def prepare(
        self: OfflineTrainer[DatasetBuffer[B]],
        agent: Agent[O, A, B],
        evaluator: Evaluator[O, A] | None = None,
        *,
        resume_from: Path | str | None = None,
        dataset: DatasetBuffer[B] | None = None,
        held: ModelDir | None = None,
    ) -> PreparedRun:
        """Builds the dataset (unless the caller built it with ``dataset_config`` and ``config.seed``
        already, to size the agent from it) and runs every check of the run, writing nothing (see
        `border_py.trainer.Trainer.prepare`); here also an empty dataset or a batch larger than it.
        """
        config = self.config
        regime_setup = (OfflineRegime.name, self.setup(), _SAME_ON_RESUME)
        resume = checked_start(config, agent, self.dataset_config, evaluator, resume_from, regime_setup)
        if dataset is None:
            dataset = self.dataset_config.build(config.seed)
        if isinstance(agent, HasBatchSize) and agent.batch_size > len(dataset):
            raise ValueError(
                f"agent.batch_size ({agent.batch_size}) is larger than the dataset ({len(dataset)} "
                "items): the agent would never take an opt step"
            )
        regime = OfflineRegime(self.setup(len(dataset)), dataset)
        settings = RunSettings(config=config, agent=agent, buffer=dataset, evaluator=evaluator,
                               observers=tuple(self.observers), resume=resume, held=held)  # fmt: skip
        return PreparedRun(functools.partial(run_session, settings, regime), lambda: None)

    def train(
        self: OfflineTrainer[DatasetBuffer[B]],
        agent: Agent[O, A, B],
        recorder: Recorder,
        evaluator: Evaluator[O, A] | None = None,
        *,
        progress: bool = False,
        resume_from: Path | str | None = None,
    ) -> TrainResult:
        """Runs opt steps until ``max_opts``, an evaluation scoring ``stop_score`` or an observer's stop:
        `prepare`, then `PreparedRun.run`.

        Arguments, returns and errors are those of `border_py.trainer.Trainer.train`; here
        ``env_steps`` stays 0 and ``ValueError`` also means an empty dataset or a batch larger than it.
        """
        return self.prepare(agent, evaluator, resume_from=resume_from).run(recorder, progress=progress)

    def setup(self, dataset_size: int | None = None) -> dict[str, Any]:
        """The configs a checkpoint's ``meta.yaml`` records: trainer and dataset, and the dataset's size
        (when known)."""
        setup = {"trainer": to_dict(self.config), "dataset": describe_config(self.dataset_config, "dataset")}
        return setup if dataset_size is None else {**setup, "dataset_size": dataset_size}

    def check_resume(self, path: Path | str) -> None:
        """Checks that training can resume from the checkpoint ``path``, without changing anything: it is
        complete, readable and of this dataset and seed.

        Raises:
            FileNotFoundError: ``path`` is not a complete checkpoint.
            ValueError: a file is corrupt or of an older border_py, or a config differs (named).
        """
        check_checkpoint(Path(path), OfflineRegime.name, self.setup(), _SAME_ON_RESUME)


_SAME_ON_RESUME = ("dataset", "trainer.seed")
"""What a resumed offline run must share with its checkpoint (the dataset's size is checked when its
sampling state is loaded)."""


class OfflineRegime(Generic[B]):
    """The offline `Regime`: no experience comes in, one opt step is due
    per turn; a checkpoint holds the dataset's sampling state."""

    name = "offline"

    def __init__(self, setup: dict[str, Any], dataset: DatasetBuffer[B]) -> None:
        self._setup = setup
        self.dataset = dataset

    def setup(self) -> dict[str, Any]:
        """The trainer's `OfflineTrainer.setup`, with the dataset's size."""
        return self._setup

    def advance(self, books: Bookkeeper[Any, Any]) -> int:
        """Nothing comes in; one opt step is due."""
        return 1

    def take_record(self) -> dict[str, float]:
        """No env steps, no ``time/fps``."""
        return {}

    def state_dict(self) -> dict[str, Any]:
        """Nothing beyond the dataset's file."""
        return {}

    def save_files(self, path: Path) -> list[Path]:
        """The dataset's sampling state."""
        return self.dataset.save(path)

    def restore(self, path: Path, state: dict[str, Any], books: Bookkeeper[Any, Any]) -> None:
        """Loads the dataset's sampling state."""
        self.dataset.load(path)
