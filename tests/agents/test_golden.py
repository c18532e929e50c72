"""Every agent kind acts, trains and saves exactly as border_py 0.2.0 did, and its 0.2.0 checkpoint loads
(the golden files and how they were made: `tests/agents/golden.py`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from tests.agents.golden import CASES, GOLDEN, _build, run_case


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
