"""The offline agents (BC, IQL, AWAC, TD3+BC, CQL) on a dict observation with images: with ``encoder`` each
network that takes observations builds its own multi-input encoder (the critics of an ensemble share one),
trains it, saves, loads and resumes it, and exports it; without it, an image part is refused naming it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import numpy as np
import pytest
import torch
from torch import nn

from border_py.agents import AwacConfig, BcConfig, CqlConfig, IqlConfig, Td3BcConfig
from border_py.agents.cnn_config import MultiInputConfig
from border_py.agents.multi_input import MultiInputEncoder
from border_py.base.obs_parts import ObsParts
from border_py.base.spaces import Spaces
from border_py.config import ConfigError, from_dict
from border_py.envs.gymnasium import GymEnvConfig
from border_py.replay_buffer.simple import SimpleReplayBuffer
from tests.agents.random_buffer import random_buffer
from tests.unit.test_export_multi_input import _assert_acts_as_the_agent, _load, _observations

ENCODER = MultiInputConfig(image_features=8)
HIDDEN = (16,)
AC: dict[str, Any] = {"actor_hidden": HIDDEN, "critic_hidden": HIDDEN, "batch_size": 8, "encoder": ENCODER}

CONFIGS: dict[str, tuple[Any, int]] = {
    # name: (config with the encoder, the agent's own encoders: one per network that takes observations)
    "bc": (BcConfig(hidden=HIDDEN, batch_size=8, encoder=ENCODER), 1),
    "bc_gaussian": (BcConfig(hidden=HIDDEN, batch_size=8, encoder=ENCODER, policy="gaussian"), 1),
    "bc_discrete": (BcConfig(hidden=HIDDEN, batch_size=8, encoder=ENCODER), 1),
    "iql": (IqlConfig(**AC), 3),  # the policy, the critics, the value network
    "awac": (AwacConfig(**AC), 2),
    "td3bc": (Td3BcConfig(**AC, normalize_obs=False, policy_delay=1), 2),
    "cql": (CqlConfig(**AC, normalize_obs=False, n_actions=2), 2),
}


def _spaces(discrete: bool) -> Spaces:
    """``border_py/PixelTarget-v0``'s: a 36x36x1 image and a one-value offset."""
    env = GymEnvConfig(name="border_py/PixelTarget-v0", kwargs={"discrete": True} if discrete else {}).build(
        0
    )
    try:
        return env.spaces
    finally:
        env.close()


def _agent(name: str, seed: int = 0) -> tuple[Any, Spaces]:
    spaces = _spaces(name == "bc_discrete")
    return CONFIGS[name][0].build(spaces, seed), spaces


def _buffer(spaces: Spaces, seed: int = 0) -> SimpleReplayBuffer:
    """32 transitions of random pixel values (the offset's place too), actions of the env's kind."""

    def act(rng: np.random.Generator) -> np.ndarray:
        if spaces.discrete:
            return np.array(rng.integers(5))
        return rng.uniform(-1, 1, 1).astype(np.float32)

    return random_buffer(
        32, act, seed=seed, sample_obs=lambda rng: rng.integers(0, 256, spaces.obs_dim).astype(np.float32)
    )


def _networks(agent: Any) -> dict[str, nn.Module]:
    """The agent's trained networks (not their targets; not its scalars), by part."""
    parts = [(f.name, getattr(agent.parts, f.name)) for f in attrs.fields(type(agent.parts))]
    return {name: part.net for name, part in parts if hasattr(part, "net")}


def _encoders(agent: Any) -> list[MultiInputEncoder]:
    """The multi-input encoders of the agent's trained networks, each once."""
    nets = _networks(agent).values()
    found = [m for net in nets for m in net.modules() if isinstance(m, MultiInputEncoder)]
    return list({id(m): m for m in found}.values())


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_each_network_trains_an_encoder_of_its_own(name: str) -> None:
    agent, spaces = _agent(name)
    encoders = _encoders(agent)
    assert len(encoders) == CONFIGS[name][1]
    before = [[p.detach().clone() for p in e.parameters()] for e in encoders]
    buffer = _buffer(spaces)
    agent.train()
    for _ in range(2):
        record = agent.opt(buffer)
        assert record is not None
        assert all(np.isfinite(v) for v in record.values())
    for encoder, old in zip(encoders, before, strict=True):
        new = list(encoder.parameters())
        assert any(not torch.equal(a, b) for a, b in zip(old, new, strict=True)), type(agent).__name__


def _image_obs(spaces: Spaces, n: int = 6) -> list[np.ndarray]:
    assert spaces.obs_parts is not None
    return list(_observations(spaces.obs_parts, n)[1])


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_saving_and_loading_gives_the_same_actions_and_a_resume_the_same_updates(
    name: str, tmp_path: Path
) -> None:
    agent, spaces = _agent(name)
    agent.train()
    agent.opt(_buffer(spaces))
    agent.save_params(tmp_path)
    other, _ = _agent(name, seed=1)  # other initial weights and generator, then the saved ones
    other.load_params(tmp_path)
    obs = _image_obs(spaces)
    agent.eval()
    other.eval()
    np.testing.assert_array_equal(np.stack(other.sample_batch(obs)), np.stack(agent.sample_batch(obs)))
    # Resumed: the optimisers' states and the generator came back, so the next update is the same.
    for a in (agent, other):
        a.train()
        a.opt(_buffer(spaces, seed=1))
        a.eval()
    np.testing.assert_array_equal(np.stack(other.sample_batch(obs)), np.stack(agent.sample_batch(obs)))
    theirs = _networks(other)
    for part, net in _networks(agent).items():
        for key, value in net.state_dict().items():
            assert torch.equal(value, theirs[part].state_dict()[key]), f"{part}.{key}"


def _spread(agent: Any, parts: ObsParts) -> Any:
    """BC's discrete policy with its last bias centred on the observations' mean logits: untouched, its
    biases outweigh what the observations change and it picks one action for all."""
    last = [m for m in agent.parts.policy.net.modules() if isinstance(m, nn.Linear)][-1]
    _, flat = _observations(parts)
    with torch.no_grad():
        last.bias.sub_(agent.parts.policy.net(torch.as_tensor(flat)).mean(dim=0))
    return agent


EXPORTS = [*((name, "numpy") for name in sorted(CONFIGS)), ("cql", "onnx"), ("bc_discrete", "onnx")]
"""Numpy for each agent; ONNX (seconds an agent) for a tanh-Gaussian's mean head and an argmax."""


@pytest.mark.parametrize(("name", "runtime"), EXPORTS)
def test_the_exported_policy_takes_the_dict_and_acts_as_the_agent(
    name: str, runtime: str, tmp_path: Path
) -> None:
    agent, spaces = _agent(name)
    assert spaces.obs_parts is not None
    if name == "bc_discrete":
        _spread(agent, spaces.obs_parts)
    agent.eval()
    policy = _load(runtime, agent, tmp_path)
    assert policy.obs_parts.keys == ("image", "offset")
    _assert_acts_as_the_agent(policy, agent, spaces.obs_parts)


PLAIN = [BcConfig(), IqlConfig(), AwacConfig(), Td3BcConfig(), CqlConfig()]


@pytest.mark.parametrize("config", PLAIN, ids=lambda c: type(c).__name__)
@pytest.mark.parametrize("discrete", [False, True], ids=["box", "discrete"])
def test_an_offline_agent_without_the_encoder_refuses_an_image_part_naming_it(
    config: Any, discrete: bool
) -> None:
    name = {"BcConfig": "BC", "Td3BcConfig": "TD3\\+BC"}.get(type(config).__name__)
    agent = name or type(config).__name__.removesuffix("Config").upper()
    with pytest.raises(
        TypeError, match=f"^{agent}: the observation's part 'image' is an image \\(36, 36, 1\\)"
    ):
        config.build(_spaces(discrete), 0)


def test_the_encoder_with_normalize_obs_is_refused_naming_the_field() -> None:
    with pytest.raises(ValueError, match="normalize_obs is for flat observations"):
        Td3BcConfig(encoder=ENCODER)  # its normalize_obs is on by default
    with pytest.raises(ConfigError, match="set normalize_obs: false with an encoder"):
        from_dict(CqlConfig, {"encoder": {"kind": "multi_input"}})
    config = from_dict(IqlConfig, {"encoder": {"kind": "multi_input", "image_features": 32}})
    assert config.encoder == MultiInputConfig(image_features=32)
