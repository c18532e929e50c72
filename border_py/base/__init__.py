"""The contract of border_py: protocols and small value types only (no torch).

Read in the order of the data path: :mod:`env` and :mod:`step` (Env, Step), :mod:`policy`, :mod:`agent`,
:mod:`step_processor`, :mod:`replay_buffer` (ExperienceBuffer, ReplayBuffer, TrainingBuffer and
DatasetBuffer), :mod:`evaluator`, :mod:`recorder`, and :mod:`builder` (what the trainer needs of a config).
"""

from border_py.base.agent import Agent
from border_py.base.builder import Builder, SeededBuilder
from border_py.base.env import AnyEnv, Env, VecEnv
from border_py.base.evaluator import Evaluator
from border_py.base.policy import BatchPolicy, Policy
from border_py.base.recorder import Recorder
from border_py.base.replay_buffer import DatasetBuffer, ExperienceBuffer, ReplayBuffer, TrainingBuffer
from border_py.base.step import Step
from border_py.base.step_processor import StepProcessor

__all__ = [
    "Agent",
    "AnyEnv",
    "BatchPolicy",
    "Builder",
    "DatasetBuffer",
    "Env",
    "Evaluator",
    "ExperienceBuffer",
    "Policy",
    "Recorder",
    "ReplayBuffer",
    "SeededBuilder",
    "Step",
    "StepProcessor",
    "TrainingBuffer",
    "VecEnv",
]
