"""The contract of border_py: protocols and small value types only (no torch).

Read in the order of the data path: `env` and `step` (Env, Step), `policy`, `agent`,
`step_processor` (and `goal_env`: what goal relabelling reads of an env), `replay_buffer`
(ExperienceBuffer, ReplayBuffer, TrainingBuffer and DatasetBuffer), `batch` (TransitionBatchLike, what an
agent may learn from), `evaluator`, `recorder`, `builder` (what the trainer needs of a config), and
`sync_model` (an agent's acting part, for actors in other processes).
"""

from border_py.base.agent import Agent
from border_py.base.batch import TransitionBatchLike
from border_py.base.builder import AgentBuilder, Builder, SeededBuilder
from border_py.base.env import AnyEnv, Env, RewindableVecEnv, VecEnv
from border_py.base.evaluator import Evaluator
from border_py.base.goal_env import EnvReader, GoalEnv, GoalReward
from border_py.base.obs_parts import ObsPart, ObsParts
from border_py.base.policy import BatchPolicy, EpisodicNoise, Policy, RecurrentPolicy
from border_py.base.recorder import Recorder
from border_py.base.replay_buffer import DatasetBuffer, ExperienceBuffer, ReplayBuffer, TrainingBuffer
from border_py.base.spaces import HasSpaces, Spaces
from border_py.base.step import Step
from border_py.base.step_processor import StepProcessor
from border_py.base.sync_model import ActingAgent, SyncAgent, SyncModel

__all__ = [
    "ActingAgent",
    "Agent",
    "AgentBuilder",
    "AnyEnv",
    "BatchPolicy",
    "Builder",
    "DatasetBuffer",
    "Env",
    "EnvReader",
    "EpisodicNoise",
    "Evaluator",
    "ExperienceBuffer",
    "GoalEnv",
    "GoalReward",
    "HasSpaces",
    "ObsPart",
    "ObsParts",
    "Policy",
    "Recorder",
    "RecurrentPolicy",
    "ReplayBuffer",
    "RewindableVecEnv",
    "SeededBuilder",
    "Spaces",
    "Step",
    "StepProcessor",
    "SyncAgent",
    "SyncModel",
    "TrainingBuffer",
    "TransitionBatchLike",
    "VecEnv",
]
