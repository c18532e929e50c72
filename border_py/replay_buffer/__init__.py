"""Replay buffers: transitions in (push side), batches out (sample side); datasets: batches out of a fixed
set of transitions.

Their modules import torch when they first make a batch of tensors, not when they are imported: an
experiment read from YAML is checked (its step processor's items against what its buffer stores, read from
the buffer's annotations) without torch, which comes with the agent."""

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
