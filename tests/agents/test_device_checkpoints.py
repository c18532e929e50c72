"""A checkpoint written on another device loads here: a model trained on ``cuda`` is evaluated, exported or
resumed on a CPU machine. The random generator's state is the device's own (16 bytes on CUDA: its seed and
offset), so it cannot carry over; everything else does. The CUDA side runs in ``make test-cuda``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from border_py.agents import Iqn, IqnConfig, Ppo, PpoConfig, Sac, SacConfig, Td3, Td3Config
from border_py.agents.torch_agent import TorchAgent, restore_generator
from border_py.base import Spaces
from border_py.checkpoint import CheckpointError

BOX = Spaces(obs_shape=(3,), action_low=np.array([-2.0], np.float32), action_high=np.array([2.0], np.float32))
AGENTS: dict[str, Callable[[], TorchAgent[Any]]] = {
    "sac": lambda: Sac(SacConfig(actor_hidden=(8,), critic_hidden=(8,)), BOX, seed=0),
    "td3": lambda: Td3(Td3Config(actor_hidden=(8,), critic_hidden=(8,)), BOX, seed=0),
    "ppo": lambda: Ppo(PpoConfig(hidden=(8,)), BOX, seed=0),
    "iqn": lambda: Iqn(IqnConfig(hidden=(8,)), Spaces(obs_shape=(3,), n_actions=2), seed=0),
}
CUDA_GENERATOR_STATE = torch.tensor([7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], dtype=torch.uint8)
"""What ``torch.Generator("cuda").get_state()`` returns: 16 bytes, where a CPU generator's state is 5,056."""


@pytest.mark.parametrize("name", list(AGENTS))
def test_a_checkpoint_with_a_cuda_generator_state_loads_on_the_cpu(name: str, tmp_path: Path) -> None:
    saved = AGENTS[name]()
    saved.save_params(tmp_path)
    state = torch.load(tmp_path / "state.pt", weights_only=True)
    state["generator"] = CUDA_GENERATOR_STATE
    torch.save(state, tmp_path / "state.pt")
    loaded = AGENTS[name]()
    loaded.load_params(tmp_path)  # before: RuntimeError, "Expected a CPUGeneratorImplState of size 5056"
    obs = np.zeros(3, np.float32)
    loaded.eval()
    saved.eval()
    assert np.array_equal(np.asarray(loaded.sample(obs)), np.asarray(saved.sample(obs)))


def test_restore_generator_sets_a_state_of_its_own_device_type() -> None:
    generator = torch.Generator().manual_seed(1)
    state = generator.get_state()
    first = torch.rand(3, generator=generator)
    restore_generator(generator, state)
    assert torch.equal(torch.rand(3, generator=generator), first)
    restore_generator(generator, CUDA_GENERATOR_STATE)  # kept as it was: the next draws follow on
    assert not torch.equal(torch.rand(3, generator=generator), first)


@pytest.mark.parametrize(
    ("state", "says"),
    [
        (-1, r"generator must be a generator state \(a 1-d uint8 tensor\), got -1"),
        (torch.zeros(5056), r"generator must be a generator state \(a 1-d uint8 tensor\), got torch\.float"),
        (torch.zeros(5056, dtype=torch.uint8), r"generator is not a state torch's generator takes: Invalid"),
    ],
    ids=["int", "float", "zeros"],
)
def test_a_generator_state_torch_refuses_is_refused_naming_the_file_before_the_agent_changes(
    tmp_path: Path, state: object, says: str
) -> None:
    """Each was a traceback (``AttributeError``, ``RuntimeError``) after the networks had been loaded."""
    AGENTS["sac"]().save_params(tmp_path)
    saved = torch.load(tmp_path / "state.pt", weights_only=True)
    saved["generator"] = state
    torch.save(saved, tmp_path / "state.pt")
    agent = Sac(SacConfig(actor_hidden=(8,), critic_hidden=(8,)), BOX, seed=1)
    before = [p.clone() for p in agent.parts.actor.net.parameters()]
    with pytest.raises(CheckpointError, match=rf"^{tmp_path / 'state.pt'}: {says}"):
        agent.load_params(tmp_path)
    assert all(torch.equal(a, b) for a, b in zip(before, agent.parts.actor.net.parameters(), strict=True))
