"""Fakes of every role, shipped with the package so tests and docs can drive the trainer exactly."""

from border_py.testing.fakes import (
    ConstantPolicy,
    CountingEnv,
    CountingEnvConfig,
    FakeAgent,
    FakeItem,
    ListBuffer,
    ListBufferConfig,
    ListDataset,
    ListDatasetConfig,
    RecordingStepProcessor,
    RecordingStepProcessorConfig,
    ScriptedEvaluator,
    count_dirs,
    counting_trainer,
)

__all__ = [
    "ConstantPolicy",
    "CountingEnv",
    "CountingEnvConfig",
    "FakeAgent",
    "FakeItem",
    "ListBuffer",
    "ListBufferConfig",
    "ListDataset",
    "ListDatasetConfig",
    "RecordingStepProcessor",
    "RecordingStepProcessorConfig",
    "ScriptedEvaluator",
    "count_dirs",
    "counting_trainer",
]
