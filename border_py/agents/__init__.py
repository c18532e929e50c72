"""Agents on PyTorch. Each has the same layout: config, model, explorer (if any), losses (pure tensor
functions, tested by hand-computed values), agent (networks, optimisers, targets, ``opt``)."""

from border_py.agents.dqn import Dqn, DqnConfig, EpsilonGreedyConfig, SoftmaxConfig

__all__ = ["Dqn", "DqnConfig", "EpsilonGreedyConfig", "SoftmaxConfig"]
