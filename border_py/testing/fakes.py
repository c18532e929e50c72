"""Deterministic fakes of every role, for tests and docs.

A `CountingEnv` observes its own global step count and pays 1.0 per step, a `FakeAgent`
counts its opt calls, a `ScriptedEvaluator` returns scores from a list: together they let a test
assert exactly when the trainer optimises, evaluates, records and saves.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import attrs
import numpy as np
import numpy.typing as npt

from border_py.agents.toolkit import TrainEvalMode
from border_py.base.env import AnyEnv
from border_py.base.policy import Policy
from border_py.base.replay_buffer import ReplayBuffer, TrainingBuffer
from border_py.base.step import Step
from border_py.base.step_processor import StepProcessor
from border_py.record import Record
from border_py.trainer import Trainer, TrainerConfig


@attrs.frozen(kw_only=True)
class CountingEnvConfig:
    """Config of `CountingEnv`."""

    episode_length: int = attrs.field(default=5, validator=attrs.validators.gt(0))
    """In env steps: every episode ends after this many."""
    truncate: bool = False
    """End episodes by truncation instead of termination."""

    def build(self, seed: int) -> CountingEnv:
        """Builds the env (``seed`` is kept but the env has no randomness)."""
        return CountingEnv(episode_length=self.episode_length, truncate=self.truncate, seed=seed)


class CountingEnv:
    """Observations are the number of ``step`` calls so far (over all episodes); every reward is 1.0.

    Episodes end after ``episode_length`` steps. ``reset`` and ``reset_with_index`` return the current
    count, so ``Step.init_obs`` of an ended episode equals its final ``obs``.
    """

    def __init__(self, episode_length: int = 5, truncate: bool = False, seed: int = 0) -> None:
        self.episode_length = episode_length
        self.truncate = truncate
        self.seed = seed
        self.n_steps = 0
        self.n_resets = 0
        self.reset_indices: list[int] = []
        self.actions: list[int] = []
        self.closed = False
        self._t = 0
        self._episode_start = 0

    def reset(self) -> int:
        """Starts an episode."""
        self._episode_start = self.n_steps
        self.n_resets += 1
        self._t = 0
        return self.n_steps

    def reset_with_index(self, ix: int) -> int:
        """Starts evaluation episode ``ix`` (recorded in ``reset_indices``)."""
        self.reset_indices.append(ix)
        return self.reset()

    def step(self, act: int) -> tuple[Step[int, int], Record]:
        """Counts a step; ends the episode after ``episode_length`` steps and resets."""
        self.n_steps += 1
        self._t += 1
        self.actions.append(act)
        done = self._t >= self.episode_length
        record = Record()
        init_obs = None
        if done:
            record = Record({"env/episode_return": float(self._t), "env/episode_length": self._t})
            init_obs = self.reset()
        step = Step(
            act=act,
            obs=self.n_steps,
            reward=1.0,
            is_terminated=done and not self.truncate,
            is_truncated=done and self.truncate,
            init_obs=init_obs,
        )
        return step, record

    def episode_start_state(self) -> int:
        """The step count when the current episode started."""
        return self._episode_start

    def restore_episode_start(self, state: int) -> None:
        """Rewinds the step count so that the next ``reset`` starts the saved episode again."""
        self.n_steps = state

    def close(self) -> None:
        """Marks the env closed."""
        self.closed = True


@attrs.frozen(kw_only=True)
class FakeItem:
    """The item `RecordingStepProcessor` emits."""

    obs: int
    act: int
    next_obs: int
    is_terminated: bool
    is_truncated: bool


class RecordingStepProcessor:
    """Emits a `FakeItem` per step, keeping the previous observation."""

    def __init__(self) -> None:
        self._prev: int | None = None

    def reset(self, init_obs: int) -> None:
        """Starts an episode."""
        self._prev = init_obs

    def process(self, step: Step[int, int]) -> list[FakeItem]:
        """Returns the one item for ``step``."""
        assert self._prev is not None, "process called before reset"
        item = FakeItem(
            obs=self._prev,
            act=step.act,
            next_obs=step.obs,
            is_terminated=step.is_terminated,
            is_truncated=step.is_truncated,
        )
        self._prev = step.init_obs if step.init_obs is not None else step.obs
        return [item]


@attrs.frozen(kw_only=True)
class RecordingStepProcessorConfig:
    """Config of `RecordingStepProcessor`."""

    def build(self) -> RecordingStepProcessor:
        """Builds the step processor."""
        return RecordingStepProcessor()


class ListBuffer:
    """Keeps every pushed item in a list; ``batch(n)`` returns the last ``n``."""

    def __init__(self) -> None:
        self.items: list[FakeItem] = []

    def push(self, item: FakeItem) -> None:
        """Appends ``item``."""
        self.items.append(item)

    def __len__(self) -> int:
        return len(self.items)

    def batch(self, size: int) -> list[FakeItem]:
        """Returns the last ``size`` items."""
        return self.items[-size:]

    def update_priority(self, indices: npt.NDArray[np.int64], td_errors: npt.NDArray[np.float32]) -> None:
        """Does nothing."""

    def save(self, path: Path) -> list[Path]:
        """Writes the items to ``list_buffer.json``."""
        file = path / "list_buffer.json"
        file.write_text(json.dumps([attrs.asdict(item) for item in self.items]))
        return [file]

    def load(self, path: Path) -> None:
        """Reads ``list_buffer.json``."""
        self.items = [FakeItem(**d) for d in json.loads((path / "list_buffer.json").read_text())]


@attrs.frozen(kw_only=True)
class ListBufferConfig:
    """Config of `ListBuffer`."""

    def build(self, seed: int) -> ListBuffer:
        """Builds an empty buffer."""
        return ListBuffer()


class ListDataset:
    """A fixed dataset of ``n_items`` `FakeItem` s (item ``i`` has ``obs = i``); ``batch(n)`` draws
    ``n`` of them with a seeded RNG, whose state ``save`` writes (the sample side alone, for
    `OfflineTrainer`).

    Attributes:
        drawn: the ``obs`` of every item drawn so far, in order.
    """

    def __init__(self, n_items: int, seed: int) -> None:
        self.items = [
            FakeItem(obs=i, act=0, next_obs=i + 1, is_terminated=False, is_truncated=False)
            for i in range(n_items)
        ]
        self._rng = np.random.default_rng(seed)
        self.drawn: list[int] = []

    def __len__(self) -> int:
        return len(self.items)

    def batch(self, size: int) -> list[FakeItem]:
        """``size`` items drawn uniformly with replacement."""
        batch = [self.items[i] for i in self._rng.integers(0, len(self.items), size)]
        self.drawn.extend(item.obs for item in batch)
        return batch

    def update_priority(self, indices: npt.NDArray[np.int64], td_errors: npt.NDArray[np.float32]) -> None:
        """Does nothing."""

    def save(self, path: Path) -> list[Path]:
        """Writes the RNG state to ``list_dataset.json``."""
        file = path / "list_dataset.json"
        file.write_text(json.dumps(self._rng.bit_generator.state))
        return [file]

    def load(self, path: Path) -> None:
        """Reads ``list_dataset.json``."""
        self._rng.bit_generator.state = json.loads((path / "list_dataset.json").read_text())


@attrs.frozen(kw_only=True)
class ListDatasetConfig:
    """Config of `ListDataset`."""

    n_items: int = attrs.field(default=20, validator=attrs.validators.ge(0))
    """How many items the dataset holds."""

    def build(self, seed: int) -> ListDataset:
        """Builds the dataset; its sampling is seeded with ``seed``."""
        return ListDataset(self.n_items, seed)


class ConstantPolicy:
    """Always returns the same action."""

    def __init__(self, act: int) -> None:
        self.act = act

    def sample(self, obs: int) -> int:
        """Returns the constant action."""
        return self.act


class FakeAgent(TrainEvalMode):
    """Counts opt calls; ``opt`` returns ``None`` for the first ``skip_first`` calls, and draws a batch of
    ``batch_size`` items at each opt step when ``batch_size > 0``.

    Attributes:
        n_opt_calls: every ``opt`` call, skipped ones included.
        opt_buffer_lens: the buffer length at each counted (non-skipped) opt step.
        saves: the directories saved into, in order.
    """

    def __init__(self, skip_first: int = 0, act: int = 0, batch_size: int = 0) -> None:
        self.skip_first = skip_first
        self.act = act
        self.batch_size = batch_size
        self.n_opt_calls = 0
        self.n_opts = 0
        self.opt_buffer_lens: list[int] = []
        self.saves: list[Path] = []

    def sample(self, obs: int) -> int:
        """Returns the fixed action."""
        return self.act

    def opt(self, buffer: ReplayBuffer[list[FakeItem]]) -> Record | None:
        """Counts a call; returns ``train/loss`` equal to the opt step number."""
        self.n_opt_calls += 1
        if self.n_opt_calls <= self.skip_first:
            return None
        self.n_opts += 1
        self.opt_buffer_lens.append(len(buffer))
        if self.batch_size > 0:
            buffer.batch(self.batch_size)
        return Record({"train/loss": float(self.n_opts)})

    def save_params(self, path: Path) -> list[Path]:
        """Writes ``fake_agent.json`` with the opt count."""
        self.saves.append(path)
        file = path / "fake_agent.json"
        file.write_text(json.dumps({"n_opts": self.n_opts}))
        return [file]

    def load_params(self, path: Path) -> None:
        """Reads ``fake_agent.json``."""
        self.n_opts = int(json.loads((path / "fake_agent.json").read_text())["n_opts"])


class ScriptedEvaluator:
    """Returns the scores of ``scores`` in turn; records whether the policy was in eval mode.

    Attributes:
        calls_in_eval_mode: for each call, whether the agent was in eval mode during it.
    """

    def __init__(self, scores: Sequence[float]) -> None:
        self.scores = list(scores)
        self.n_calls = 0
        self.calls_in_eval_mode: list[bool] = []

    def evaluate(self, policy: Policy[int, int]) -> tuple[float, Record]:
        """Returns the next scripted score."""
        is_train = getattr(policy, "is_train", None)
        self.calls_in_eval_mode.append(is_train is not None and not is_train())
        score = self.scores[self.n_calls % len(self.scores)]
        self.n_calls += 1
        return score, Record({"eval/episode_return": score})


FakeTrainer = Trainer[
    AnyEnv[int, int], StepProcessor[int, int, FakeItem], TrainingBuffer[FakeItem, list[FakeItem]]
]
"""The trainer `counting_trainer` builds."""


def counting_trainer(config: TrainerConfig, episode_length: int = 5) -> FakeTrainer:
    """A trainer over a `CountingEnv` (episodes of ``episode_length``), a
    `RecordingStepProcessor` and a `ListBuffer`: drive it with a `FakeAgent`."""
    return Trainer(
        config,
        CountingEnvConfig(episode_length=episode_length),
        RecordingStepProcessorConfig(),
        ListBufferConfig(),
    )


def count_dirs(path: Path) -> list[str]:
    """The names of the directories in ``path``, sorted (hidden temporaries included)."""
    return sorted(p.name for p in path.iterdir() if p.is_dir())
