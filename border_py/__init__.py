"""border_py: a typed reinforcement-learning library on PyTorch and Gymnasium.

It ports the architecture of the Rust library *border*. Data flows along one path:

    Env ──obs──▶ Agent.sample ──act──▶ Env.step ──▶ Step(obs, act, reward, is_terminated, is_truncated, ...)
      StepProcessor.process(step) ──item──▶ ExperienceBuffer.push        (SyncSampler does these)
      ReplayBuffer.batch(n) ──batch──▶ Agent.opt(buffer) ──▶ Record | None
      Bookkeeper: every eval_interval evaluate (Evaluator) and save model_dir/best on a new best score;
                  every record_interval flush records to a Recorder;
                  every save_interval save model_dir/<opt_steps> (the full training state: resume_from=...)

The protocols of each role live in `border_py.base` (no torch there). ``Trainer[E, P, R]`` trains
online and is generic in the env, the step processor and the replay buffer: mypy checks that the step
processor's items are what the buffer stores and the buffer's batches are what the agent learns from.
``OfflineTrainer`` trains on a fixed dataset with the same bookkeeping. See ``docs/architecture.md``.

Names are imported on first use, so ``import border_py`` is quick and imports neither torch nor any
optional dependency.

Examples:
    >>> from border_py import GymEnvConfig, SimpleReplayBufferConfig, SimpleStepProcessorConfig
    >>> from border_py import Trainer, TrainerConfig
    >>> trainer = Trainer(
    ...     TrainerConfig(max_opts=1000, opt_interval=1, warmup_period=100),
    ...     GymEnvConfig(name="CartPole-v1"),
    ...     SimpleStepProcessorConfig(),
    ...     SimpleReplayBufferConfig(capacity=10_000),
    ... )
"""

from __future__ import annotations

import importlib.metadata
from typing import TYPE_CHECKING

from border_py.lazy import lazy_face

try:
    __version__ = importlib.metadata.version("border_py")
    """The installed version (``pyproject.toml``'s; the CHANGELOG says what each one holds)."""
except importlib.metadata.PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"

if TYPE_CHECKING:
    from border_py.base import (
        Agent,
        AnyEnv,
        BatchPolicy,
        Builder,
        DatasetBuffer,
        Env,
        Evaluator,
        ExperienceBuffer,
        Policy,
        Recorder,
        ReplayBuffer,
        SeededBuilder,
        Step,
        StepProcessor,
        TrainingBuffer,
        TransitionBatchLike,
        VecEnv,
    )
    from border_py.checkpoint import CheckpointError
    from border_py.config import (
        ConfigError,
        from_dict,
        load_yaml,
        save_yaml,
        to_dict,
    )
    from border_py.envs import (
        AtariEnv,
        AtariEnvConfig,
        AtariVecEnv,
        AtariVecEnvConfig,
        GymEnv,
        GymEnvConfig,
        GymVecEnv,
        GymVecEnvConfig,
    )
    from border_py.evaluator import (
        DefaultEvaluator,
        DefaultEvaluatorConfig,
    )
    from border_py.her import HerStepProcessor, HerStepProcessorConfig
    from border_py.lock import (
        ModelDirBusyError,
    )
    from border_py.model_dir import clear_checkpoints, latest_checkpoint
    from border_py.record import (
        Record,
        RecordValue,
        aggregate,
    )
    from border_py.recorders import (
        BufferedRecorder,
        MlflowRecorder,
        NullRecorder,
        TeeRecorder,
        TensorboardRecorder,
    )
    from border_py.replay_buffer import (
        ArrayDataset,
        ArrayDatasetConfig,
        FrameReplayBuffer,
        FrameReplayBufferConfig,
        FrameTransition,
        PerConfig,
        Rollout,
        RolloutBuffer,
        RolloutBufferConfig,
        SimpleReplayBuffer,
        SimpleReplayBufferConfig,
        SumTree,
        Transition,
        TransitionBatch,
    )
    from border_py.seeding import (
        configure_torch,
        seed_everything,
    )
    from border_py.step_processor import (
        FrameStackStepProcessor,
        FrameStackStepProcessorConfig,
        NStepStepProcessor,
        NStepStepProcessorConfig,
        SimpleStepProcessor,
        SimpleStepProcessorConfig,
    )
    from border_py.trainer import (
        Evaluation,
        ExperienceSourceError,
        OfflineTrainer,
        ResumeWarning,
        StopReason,
        SyncSampler,
        Trainer,
        TrainerConfig,
        TrainerOf,
        TrainingInterrupted,
        TrainResult,
    )

_EXPORTS: dict[str, str] = {
    "Agent": "border_py.base",
    "AnyEnv": "border_py.base",
    "BatchPolicy": "border_py.base",
    "Builder": "border_py.base",
    "DatasetBuffer": "border_py.base",
    "Env": "border_py.base",
    "Evaluator": "border_py.base",
    "ExperienceBuffer": "border_py.base",
    "Policy": "border_py.base",
    "Recorder": "border_py.base",
    "ReplayBuffer": "border_py.base",
    "SeededBuilder": "border_py.base",
    "Step": "border_py.base",
    "StepProcessor": "border_py.base",
    "TrainingBuffer": "border_py.base",
    "TransitionBatchLike": "border_py.base",
    "VecEnv": "border_py.base",
    "CheckpointError": "border_py.checkpoint",
    "clear_checkpoints": "border_py.model_dir",
    "latest_checkpoint": "border_py.model_dir",
    "ConfigError": "border_py.config",
    "from_dict": "border_py.config",
    "load_yaml": "border_py.config",
    "save_yaml": "border_py.config",
    "to_dict": "border_py.config",
    "GymEnv": "border_py.envs",
    "GymEnvConfig": "border_py.envs",
    "AtariEnv": "border_py.envs",
    "AtariEnvConfig": "border_py.envs",
    "AtariVecEnv": "border_py.envs",
    "AtariVecEnvConfig": "border_py.envs",
    "GymVecEnv": "border_py.envs",
    "GymVecEnvConfig": "border_py.envs",
    "DefaultEvaluator": "border_py.evaluator",
    "DefaultEvaluatorConfig": "border_py.evaluator",
    "ModelDirBusyError": "border_py.lock",
    "Record": "border_py.record",
    "RecordValue": "border_py.record",
    "aggregate": "border_py.record",
    "BufferedRecorder": "border_py.recorders",
    "MlflowRecorder": "border_py.recorders",
    "NullRecorder": "border_py.recorders",
    "TeeRecorder": "border_py.recorders",
    "TensorboardRecorder": "border_py.recorders",
    "ArrayDataset": "border_py.replay_buffer",
    "ArrayDatasetConfig": "border_py.replay_buffer",
    "PerConfig": "border_py.replay_buffer",
    "Rollout": "border_py.replay_buffer",
    "RolloutBuffer": "border_py.replay_buffer",
    "RolloutBufferConfig": "border_py.replay_buffer",
    "FrameReplayBuffer": "border_py.replay_buffer",
    "FrameReplayBufferConfig": "border_py.replay_buffer",
    "FrameTransition": "border_py.replay_buffer",
    "SimpleReplayBuffer": "border_py.replay_buffer",
    "SimpleReplayBufferConfig": "border_py.replay_buffer",
    "SumTree": "border_py.replay_buffer",
    "Transition": "border_py.replay_buffer",
    "TransitionBatch": "border_py.replay_buffer",
    "configure_torch": "border_py.seeding",
    "seed_everything": "border_py.seeding",
    "FrameStackStepProcessor": "border_py.step_processor",
    "HerStepProcessor": "border_py.her",
    "HerStepProcessorConfig": "border_py.her",
    "FrameStackStepProcessorConfig": "border_py.step_processor",
    "NStepStepProcessor": "border_py.step_processor",
    "NStepStepProcessorConfig": "border_py.step_processor",
    "SimpleStepProcessor": "border_py.step_processor",
    "SimpleStepProcessorConfig": "border_py.step_processor",
    "Evaluation": "border_py.trainer",
    "OfflineTrainer": "border_py.trainer",
    "ResumeWarning": "border_py.trainer",
    "StopReason": "border_py.trainer",
    "SyncSampler": "border_py.trainer",
    "TrainResult": "border_py.trainer",
    "Trainer": "border_py.trainer",
    "TrainerConfig": "border_py.trainer",
    "TrainerOf": "border_py.trainer",
    "ExperienceSourceError": "border_py.trainer",
    "TrainingInterrupted": "border_py.trainer",
}
"""Each public name and the module that defines it."""

if not TYPE_CHECKING:  # mypy would take a module __getattr__ as "any attribute exists"
    __getattr__, __dir__ = lazy_face(__name__, _EXPORTS, globals())


__all__ = [
    "Agent",
    "AnyEnv",
    "ArrayDataset",
    "ArrayDatasetConfig",
    "AtariEnv",
    "AtariEnvConfig",
    "AtariVecEnv",
    "AtariVecEnvConfig",
    "BatchPolicy",
    "BufferedRecorder",
    "Builder",
    "CheckpointError",
    "ConfigError",
    "DatasetBuffer",
    "DefaultEvaluator",
    "DefaultEvaluatorConfig",
    "Env",
    "Evaluation",
    "Evaluator",
    "ExperienceBuffer",
    "ExperienceSourceError",
    "FrameReplayBuffer",
    "FrameReplayBufferConfig",
    "FrameStackStepProcessor",
    "FrameStackStepProcessorConfig",
    "FrameTransition",
    "GymEnv",
    "GymEnvConfig",
    "GymVecEnv",
    "GymVecEnvConfig",
    "HerStepProcessor",
    "HerStepProcessorConfig",
    "MlflowRecorder",
    "ModelDirBusyError",
    "NStepStepProcessor",
    "NStepStepProcessorConfig",
    "NullRecorder",
    "OfflineTrainer",
    "PerConfig",
    "Policy",
    "Record",
    "RecordValue",
    "Recorder",
    "ReplayBuffer",
    "ResumeWarning",
    "Rollout",
    "RolloutBuffer",
    "RolloutBufferConfig",
    "SeededBuilder",
    "SimpleReplayBuffer",
    "SimpleReplayBufferConfig",
    "SimpleStepProcessor",
    "SimpleStepProcessorConfig",
    "Step",
    "StepProcessor",
    "StopReason",
    "SumTree",
    "SyncSampler",
    "TeeRecorder",
    "TensorboardRecorder",
    "TrainResult",
    "Trainer",
    "TrainerConfig",
    "TrainerOf",
    "TrainingBuffer",
    "TrainingInterrupted",
    "Transition",
    "TransitionBatch",
    "TransitionBatchLike",
    "VecEnv",
    "aggregate",
    "clear_checkpoints",
    "configure_torch",
    "from_dict",
    "latest_checkpoint",
    "load_yaml",
    "save_yaml",
    "seed_everything",
    "to_dict",
]
