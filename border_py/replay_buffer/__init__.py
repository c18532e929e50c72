"""Replay buffers: transitions in (push side), batches out (sample side); datasets: batches out of a fixed
set of transitions."""

from border_py.replay_buffer.dataset import ArrayDataset, ArrayDatasetConfig
from border_py.replay_buffer.frames import FrameReplayBuffer, FrameReplayBufferConfig
from border_py.replay_buffer.rollout import Rollout, RolloutBuffer, RolloutBufferConfig
from border_py.replay_buffer.simple import PerConfig, SimpleReplayBuffer, SimpleReplayBufferConfig
from border_py.replay_buffer.storage import TransitionStorage
from border_py.replay_buffer.sum_tree import SumTree
from border_py.replay_buffer.transition import FrameTransition, Transition, TransitionBatch

__all__ = [
    "ArrayDataset",
    "ArrayDatasetConfig",
    "FrameReplayBuffer",
    "FrameReplayBufferConfig",
    "FrameTransition",
    "PerConfig",
    "Rollout",
    "RolloutBuffer",
    "RolloutBufferConfig",
    "SimpleReplayBuffer",
    "SimpleReplayBufferConfig",
    "SumTree",
    "Transition",
    "TransitionBatch",
    "TransitionStorage",
]
