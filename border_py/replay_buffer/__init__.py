"""Replay buffers: transitions in (push side), batches out (sample side)."""

from border_py.replay_buffer.simple import PerConfig, SimpleReplayBuffer, SimpleReplayBufferConfig
from border_py.replay_buffer.sum_tree import SumTree
from border_py.replay_buffer.transition import Transition, TransitionBatch

__all__ = [
    "PerConfig",
    "SimpleReplayBuffer",
    "SimpleReplayBufferConfig",
    "SumTree",
    "Transition",
    "TransitionBatch",
]
