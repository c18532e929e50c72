"""Agents on PyTorch. Each has the same layout: config, model, losses (pure tensor functions, tested by
hand-computed values), agent (networks, optimisers, targets, ``opt``). They are built from
`border_py.agents.toolkit` (public: a new agent uses it too); DQN, QR-DQN and IQN stand on `ValueBasedAgent`
(`border_py.agents.value_based`), the base for a value-based agent of your own, with the explorers
(`EpsilonGreedy`, `Softmax`, `build_explorer`, `discrete_action`) and IQN's quantile Huber loss; PPO and A2C
on `OnPolicyAgent` (`border_py.agents.on_policy`)."""

from border_py.agents.a2c import A2c, A2cConfig
from border_py.agents.awac import Awac, AwacConfig
from border_py.agents.bc import Bc, BcConfig
from border_py.agents.cnn import NatureCnn, NatureCnnConfig
from border_py.agents.cql import Cql, CqlConfig
from border_py.agents.crossq import CrossQ, CrossQConfig
from border_py.agents.dqn import Dqn, DqnConfig
from border_py.agents.explorers import (
    EpsilonGreedy,
    EpsilonGreedyConfig,
    Explorer,
    Softmax,
    SoftmaxConfig,
    build_explorer,
    discrete_action,
    discrete_actions,
    explorer_record,
)
from border_py.agents.iql import Iql, IqlConfig
from border_py.agents.iqn import EvenTaus, FixedTaus, Iqn, IqnConfig, UniformTaus
from border_py.agents.iqn.losses import quantile_huber_loss, quantile_target
from border_py.agents.on_policy import OnPolicyAgent, OnPolicyConfig, OnPolicyParts
from border_py.agents.ppo import Ppo, PpoConfig
from border_py.agents.qrdqn import QrDqn, QrDqnConfig
from border_py.agents.sac import Sac, SacConfig
from border_py.agents.td3 import Td3, Td3Config
from border_py.agents.td3bc import Td3Bc, Td3BcConfig
from border_py.agents.tqc import Tqc, TqcConfig
from border_py.agents.value_based import (
    ValueBasedAgent,
    ValueBasedConfig,
    ValueBatch,
    ValueParts,
    observation_shape,
)

__all__ = [
    "A2c",
    "A2cConfig",
    "Awac",
    "AwacConfig",
    "Bc",
    "BcConfig",
    "Cql",
    "CqlConfig",
    "CrossQ",
    "CrossQConfig",
    "Dqn",
    "DqnConfig",
    "EpsilonGreedy",
    "EpsilonGreedyConfig",
    "EvenTaus",
    "Explorer",
    "FixedTaus",
    "Iql",
    "IqlConfig",
    "Iqn",
    "IqnConfig",
    "NatureCnn",
    "NatureCnnConfig",
    "OnPolicyAgent",
    "OnPolicyConfig",
    "OnPolicyParts",
    "Ppo",
    "PpoConfig",
    "QrDqn",
    "QrDqnConfig",
    "Sac",
    "SacConfig",
    "Softmax",
    "SoftmaxConfig",
    "Td3",
    "Td3Bc",
    "Td3BcConfig",
    "Td3Config",
    "Tqc",
    "TqcConfig",
    "UniformTaus",
    "ValueBasedAgent",
    "ValueBasedConfig",
    "ValueBatch",
    "ValueParts",
    "build_explorer",
    "discrete_action",
    "discrete_actions",
    "explorer_record",
    "observation_shape",
    "quantile_huber_loss",
    "quantile_target",
]
