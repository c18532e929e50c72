"""border_py: a typed reinforcement-learning library on PyTorch and Gymnasium.

It ports the architecture of the Rust library *border*. Data flows along one path::

    Env ──obs──▶ Agent.sample ──act──▶ Env.step ──▶ Step(obs, act, reward, is_terminated, is_truncated, ...)
      StepProcessor.process(step) ──item──▶ ExperienceBuffer.push        (SyncSampler does these)
      ReplayBuffer.batch(n) ──batch──▶ Agent.opt(buffer) ──▶ Record | None
      Trainer: every eval_interval evaluate (Evaluator) and save model_dir/best on a new best score;
               every record_interval flush records to a Recorder;
               every save_interval save model_dir/<opt_steps> (the full training state: resume_from=...)

The protocols of each role live in :mod:`border_py.base` (no torch there). ``Trainer[E, P, R]`` is generic
in the env, the step processor and the replay buffer, and mypy checks that the step processor's items are
what the buffer stores and the buffer's batches are what the agent learns from.

Example:
    >>> from border_py import GymEnvConfig, SimpleReplayBufferConfig, SimpleStepProcessorConfig
    >>> from border_py import Trainer, TrainerConfig
    >>> trainer = Trainer(
    ...     TrainerConfig(max_opts=1000, opt_interval=1, warmup_period=100),
    ...     GymEnvConfig(name="CartPole-v1"),
    ...     SimpleStepProcessorConfig(),
    ...     SimpleReplayBufferConfig(capacity=10_000),
    ... )
"""

from border_py.base import (
    Agent,
    AnyEnv,
    BatchPolicy,
    Builder,
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
    VecEnv,
)
from border_py.checkpoint import latest_checkpoint
from border_py.config import ConfigError, from_dict, load_yaml, save_yaml, to_dict
from border_py.envs import GymEnv, GymEnvConfig, GymVecEnv, GymVecEnvConfig
from border_py.evaluator import DefaultEvaluator, DefaultEvaluatorConfig
from border_py.record import Record, RecordValue, aggregate
from border_py.recorders import BufferedRecorder, NullRecorder, TensorboardRecorder
from border_py.replay_buffer import (
    PerConfig,
    SimpleReplayBuffer,
    SimpleReplayBufferConfig,
    SumTree,
    Transition,
    TransitionBatch,
)
from border_py.sampler import ResumeWarning, SyncSampler
from border_py.seeding import seed_everything
from border_py.step_processor import (
    NStepStepProcessor,
    NStepStepProcessorConfig,
    SimpleStepProcessor,
    SimpleStepProcessorConfig,
)
from border_py.trainer import Evaluation, Trainer, TrainerConfig, TrainingInterrupted, TrainResult

__all__ = [
    "Agent",
    "AnyEnv",
    "BatchPolicy",
    "BufferedRecorder",
    "Builder",
    "ConfigError",
    "DefaultEvaluator",
    "DefaultEvaluatorConfig",
    "Env",
    "Evaluation",
    "Evaluator",
    "ExperienceBuffer",
    "GymEnv",
    "GymEnvConfig",
    "GymVecEnv",
    "GymVecEnvConfig",
    "NStepStepProcessor",
    "NStepStepProcessorConfig",
    "NullRecorder",
    "PerConfig",
    "Policy",
    "Record",
    "RecordValue",
    "Recorder",
    "ReplayBuffer",
    "ResumeWarning",
    "SeededBuilder",
    "SimpleReplayBuffer",
    "SimpleReplayBufferConfig",
    "SimpleStepProcessor",
    "SimpleStepProcessorConfig",
    "Step",
    "StepProcessor",
    "SumTree",
    "SyncSampler",
    "TensorboardRecorder",
    "TrainResult",
    "Trainer",
    "TrainerConfig",
    "TrainingBuffer",
    "TrainingInterrupted",
    "Transition",
    "TransitionBatch",
    "VecEnv",
    "aggregate",
    "from_dict",
    "latest_checkpoint",
    "load_yaml",
    "save_yaml",
    "seed_everything",
    "to_dict",
]
