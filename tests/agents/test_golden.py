"""Every agent kind acts, trains and saves exactly as its golden files say, and they load; a checkpoint of the
former critic layout (0.2.0's per-critic ``ModuleList``) loads into the stacked `CriticEnsemble` (the golden
files and how they were made: `tests/agents/golden.py`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from border_py.agents.ensemble import CriticEnsemble
from border_py.agents.td3.model import BoxCritic
from tests.agents.golden import CASES, GOLDEN, LEGACY, _build, run_case


def _same(a: Any, b: Any, where: str) -> list[str]:
    """Where ``a`` and ``b`` differ: tensors by ``torch.equal``, arrays exactly, containers recursively."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        equal = isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and torch.equal(a, b)
        return [] if equal else [where]
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return [f"{where}: keys {sorted(map(str, a))} != {sorted(map(str, b))}"]
        return [d for k in a for d in _same(a[k], b[k], f"{where}.{k}")]
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        if len(a) != len(b):
            return [f"{where}: lengths {len(a)} != {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _same(x, y, f"{where}[{i}]")]
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return [] if np.array_equal(a, b) else [where]
    return [] if a == b else [f"{where}: {a!r} != {b!r}"]


def _differences(saved: Path, golden: Path) -> list[str]:
    names = sorted(p.name for p in golden.glob("*.pt"))
    assert sorted(p.name for p in saved.glob("*.pt")) == names
    return [
        d
        for name in names
        for d in _same(
            torch.load(saved / name, weights_only=True), torch.load(golden / name, weights_only=True), name
        )
    ]


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_agent_acts_trains_and_saves_exactly_as_before(name: str, tmp_path: Path) -> None:
    agent, acts = run_case(name)
    np.testing.assert_array_equal(acts, np.load(GOLDEN / name / "actions.npy"))
    agent.save_params(tmp_path)
    assert _differences(tmp_path, GOLDEN / name) == []


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_checkpoint_of_the_previous_release_loads_and_saves_back_unchanged(
    name: str, tmp_path: Path
) -> None:
    agent = _build(name)
    agent.load_params(GOLDEN / name)
    agent.save_params(tmp_path)
    assert _differences(tmp_path, GOLDEN / name) == []


def test_a_difference_is_seen() -> None:
    assert _same({"a": torch.zeros(2)}, {"a": torch.tensor([0.0, 1e-30])}, "state") == ["state.a"]


def _upgraded(agent: Any, legacy: Path, name: str) -> Any:
    """A file of the former critic layout as the agent's stacked critic would save it: the critics' files
    and the critic optimiser's state mapped by `CriticEnsemble`'s own upgrade functions."""
    state = torch.load(legacy / name, weights_only=True)
    critic = agent.parts.critic.net
    if name.startswith("critic"):
        return critic.upgrade_state_dict(state)
    if name == "state.pt":
        holder = state.get("optimizers", state)
        holder[agent.parts.critic.optimizer_key] = critic.upgrade_optimizer_state(
            holder[agent.parts.critic.optimizer_key]
        )
    return state


@pytest.mark.parametrize("name", sorted(p.name for p in LEGACY.iterdir()))
def test_a_checkpoint_of_the_former_critic_layout_loads_into_the_stacked_critics(
    name: str, tmp_path: Path
) -> None:
    agent = _build(name)
    agent.load_params(LEGACY / name)
    critic = agent.parts.critic.net
    assert isinstance(critic, CriticEnsemble)
    agent.save_params(tmp_path)
    for file in sorted(p.name for p in (LEGACY / name).glob("*.pt")):
        saved = torch.load(tmp_path / file, weights_only=True)
        assert _same(saved, _upgraded(agent, LEGACY / name, file), file) == []
    # Each stacked critic computes what the former per-critic MLP of the file computed (TD3's critics
    # take the action rescaled to [-1, 1]).
    former = torch.load(LEGACY / name / "critic.pt", weights_only=True)
    obs, act = torch.randn(7, 4), torch.randn(7, 2)
    act_in = (act - critic.bias) / critic.scale if isinstance(critic, BoxCritic) else act
    for i in range(critic.n):
        h = torch.cat([obs, act_in], dim=-1)
        for j in (0, 2, 4):
            h = torch.nn.functional.linear(h, former[f"qs.{i}.{j}.weight"], former[f"qs.{i}.{j}.bias"])
            h = h.relu() if j < 4 else h
        torch.testing.assert_close(critic(obs, act)[i], h.squeeze(-1))
