"""Agents on PyTorch. Each has the same layout: config, model, losses (pure tensor functions, tested by
hand-computed values), agent (networks, optimisers, targets, ``opt``). They are built from
`border_py.agents.toolkit` (public: a new agent uses it too); DQN and IQN share
`border_py.agents.value_based` and the explorers of `border_py.agents.explorers`."""

from border_py.agents.awac import Awac, AwacConfig
from border_py.agents.bc import Bc, BcConfig
from border_py.agents.cnn import NatureCnn, NatureCnnConfig
from border_py.agents.cql import Cql, CqlConfig
from border_py.agents.dqn import Dqn, DqnConfig
from border_py.agents.explorers import EpsilonGreedyConfig, SoftmaxConfig
from border_py.agents.iql import Iql, IqlConfig
from border_py.agents.iqn import EvenTaus, FixedTaus, Iqn, IqnConfig, UniformTaus
from border_py.agents.ppo import Ppo, PpoConfig
from border_py.agents.sac import Sac, SacConfig
from border_py.agents.td3 import Td3, Td3Config
from border_py.agents.td3bc import Td3Bc, Td3BcConfig

__all__ = [
    "Awac",
    "AwacConfig",
    "Bc",
    "BcConfig",
    "Cql",
    "CqlConfig",
    "Dqn",
    "DqnConfig",
    "EpsilonGreedyConfig",
    "EvenTaus",
    "FixedTaus",
    "Iql",
    "IqlConfig",
    "Iqn",
    "IqnConfig",
    "NatureCnn",
    "NatureCnnConfig",
    "Ppo",
    "PpoConfig",
    "Sac",
    "SacConfig",
    "SoftmaxConfig",
    "Td3",
    "Td3Bc",
    "Td3BcConfig",
    "Td3Config",
    "UniformTaus",
]
