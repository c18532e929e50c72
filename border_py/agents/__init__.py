"""Agents on PyTorch. Each has the same layout: config, model, losses (pure tensor functions, tested by
hand-computed values), agent (networks, optimisers, targets, ``opt``). They are built from
`border_py.agents.toolkit` (public: a new agent uses it too); DQN, QR-DQN and IQN stand on `ValueBasedAgent`
(`border_py.agents.value_based`), the base for a value-based agent of your own, with the explorers
(`EpsilonGreedy`, `Softmax`, `build_explorer`, `discrete_action`) and IQN's quantile Huber loss; PPO and A2C
on `OnPolicyAgent` (`border_py.agents.on_policy`).

Names are imported on first use, here and in each agent's package, and the configs (each ``config.py``,
`cnn_config`, `explorer_config`, `devices`) import no torch: an experiment is read and checked without it
(a YAML file, ``--set agent.lr=...``), and torch comes with the first agent built."""

from __future__ import annotations

from typing import TYPE_CHECKING

from border_py.lazy import lazy_face

if TYPE_CHECKING:
    from border_py.agents.a2c.agent import A2c
    from border_py.agents.a2c.config import A2cConfig
    from border_py.agents.awac.agent import Awac
    from border_py.agents.awac.config import AwacConfig
    from border_py.agents.bc.agent import Bc
    from border_py.agents.bc.config import BcConfig
    from border_py.agents.cnn import NatureCnn
    from border_py.agents.cnn_config import MultiInputConfig, NatureCnnConfig
    from border_py.agents.cql.agent import Cql
    from border_py.agents.cql.config import CqlConfig
    from border_py.agents.crossq.agent import CrossQ
    from border_py.agents.crossq.config import CrossQConfig
    from border_py.agents.dqn.agent import Dqn
    from border_py.agents.dqn.config import DqnConfig
    from border_py.agents.explorer_config import EpsilonGreedyConfig, SoftmaxConfig
    from border_py.agents.explorers import (
        EpsilonGreedy,
        Explorer,
        Softmax,
        build_explorer,
        discrete_action,
        discrete_actions,
        explorer_record,
    )
    from border_py.agents.iql.agent import Iql
    from border_py.agents.iql.config import IqlConfig
    from border_py.agents.iqn.agent import Iqn
    from border_py.agents.iqn.config import IqnConfig
    from border_py.agents.iqn.losses import quantile_huber_loss, quantile_target
    from border_py.agents.iqn.taus import EvenTaus, FixedTaus, UniformTaus
    from border_py.agents.multi_input import MultiInputEncoder
    from border_py.agents.on_policy.agent import OnPolicyAgent, OnPolicyParts
    from border_py.agents.on_policy.config import OnPolicyConfig
    from border_py.agents.ppo.agent import Ppo
    from border_py.agents.ppo.config import PpoConfig
    from border_py.agents.qrdqn.agent import QrDqn
    from border_py.agents.qrdqn.config import QrDqnConfig
    from border_py.agents.recurrent_ppo.agent import RecurrentPpo
    from border_py.agents.recurrent_ppo.config import RecurrentPpoConfig
    from border_py.agents.sac.agent import Sac
    from border_py.agents.sac.config import SacConfig
    from border_py.agents.td3.agent import Td3
    from border_py.agents.td3.config import Td3Config
    from border_py.agents.td3bc.agent import Td3Bc
    from border_py.agents.td3bc.config import Td3BcConfig
    from border_py.agents.tqc.agent import Tqc
    from border_py.agents.tqc.config import TqcConfig
    from border_py.agents.value_based import (
        ValueBasedAgent,
        ValueBasedConfig,
        ValueBatch,
        ValueParts,
        observation_shape,
    )

_EXPORTS: dict[str, str] = {
    "A2c": "border_py.agents.a2c.agent",
    "A2cConfig": "border_py.agents.a2c.config",
    "Awac": "border_py.agents.awac.agent",
    "AwacConfig": "border_py.agents.awac.config",
    "Bc": "border_py.agents.bc.agent",
    "BcConfig": "border_py.agents.bc.config",
    "NatureCnn": "border_py.agents.cnn",
    "NatureCnnConfig": "border_py.agents.cnn_config",
    "MultiInputConfig": "border_py.agents.cnn_config",
    "MultiInputEncoder": "border_py.agents.multi_input",
    "Cql": "border_py.agents.cql.agent",
    "CqlConfig": "border_py.agents.cql.config",
    "CrossQ": "border_py.agents.crossq.agent",
    "CrossQConfig": "border_py.agents.crossq.config",
    "Dqn": "border_py.agents.dqn.agent",
    "DqnConfig": "border_py.agents.dqn.config",
    "EpsilonGreedy": "border_py.agents.explorers",
    "EpsilonGreedyConfig": "border_py.agents.explorer_config",
    "Explorer": "border_py.agents.explorers",
    "Softmax": "border_py.agents.explorers",
    "SoftmaxConfig": "border_py.agents.explorer_config",
    "build_explorer": "border_py.agents.explorers",
    "discrete_action": "border_py.agents.explorers",
    "discrete_actions": "border_py.agents.explorers",
    "explorer_record": "border_py.agents.explorers",
    "Iql": "border_py.agents.iql.agent",
    "IqlConfig": "border_py.agents.iql.config",
    "EvenTaus": "border_py.agents.iqn.taus",
    "FixedTaus": "border_py.agents.iqn.taus",
    "Iqn": "border_py.agents.iqn.agent",
    "IqnConfig": "border_py.agents.iqn.config",
    "UniformTaus": "border_py.agents.iqn.taus",
    "quantile_huber_loss": "border_py.agents.iqn.losses",
    "quantile_target": "border_py.agents.iqn.losses",
    "OnPolicyAgent": "border_py.agents.on_policy.agent",
    "OnPolicyConfig": "border_py.agents.on_policy.config",
    "OnPolicyParts": "border_py.agents.on_policy.agent",
    "Ppo": "border_py.agents.ppo.agent",
    "PpoConfig": "border_py.agents.ppo.config",
    "RecurrentPpo": "border_py.agents.recurrent_ppo.agent",
    "RecurrentPpoConfig": "border_py.agents.recurrent_ppo.config",
    "QrDqn": "border_py.agents.qrdqn.agent",
    "QrDqnConfig": "border_py.agents.qrdqn.config",
    "Sac": "border_py.agents.sac.agent",
    "SacConfig": "border_py.agents.sac.config",
    "Td3": "border_py.agents.td3.agent",
    "Td3Config": "border_py.agents.td3.config",
    "Td3Bc": "border_py.agents.td3bc.agent",
    "Td3BcConfig": "border_py.agents.td3bc.config",
    "Tqc": "border_py.agents.tqc.agent",
    "TqcConfig": "border_py.agents.tqc.config",
    "ValueBasedAgent": "border_py.agents.value_based",
    "ValueBasedConfig": "border_py.agents.value_based",
    "ValueBatch": "border_py.agents.value_based",
    "ValueParts": "border_py.agents.value_based",
    "observation_shape": "border_py.agents.value_based",
}
"""Each public name and the module that defines it."""

if not TYPE_CHECKING:  # mypy would take a module __getattr__ as "any attribute exists"
    __getattr__, __dir__ = lazy_face(__name__, _EXPORTS, globals())


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
    "MultiInputConfig",
    "MultiInputEncoder",
    "NatureCnn",
    "NatureCnnConfig",
    "OnPolicyAgent",
    "OnPolicyConfig",
    "OnPolicyParts",
    "Ppo",
    "PpoConfig",
    "QrDqn",
    "QrDqnConfig",
    "RecurrentPpo",
    "RecurrentPpoConfig",
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
