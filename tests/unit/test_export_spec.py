"""The exported policy format as docs/export-format.md states it: the page's reference loader
(examples/numpy_loader.py, plain numpy) acts as `NumpyPolicy` on every agent's ``mlp`` export, pixel
policies' convolutions included, and refuses the kinds it does not read (recurrent PPO's ``lstm``: see
tests/agents/test_recurrent_export.py); and the page names every key and value the writer emits, so a field
cannot be added without the page saying what it means."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from border_py import agents
from border_py.agents import Bc, Dqn, DqnConfig, OnPolicyAgent, RecurrentPpo, RecurrentPpoConfig
from border_py.agents.greedy import MlpParts, f32
from border_py.base import Spaces
from border_py.export import NumpyPolicy, export_numpy
from border_py.export.action_mask import MASK_VERSION, UNMASKED_VERSION
from border_py.export.numpy_policy import FORMAT, VERSION
from border_py.export.policy_files import CLIP_MEAN_VERSION
from examples.numpy_loader import load_policy
from tests.unit import (
    test_export,
    test_export_clip_mean,
    test_export_cnn,
    test_export_dict,
    test_export_mask,
    test_export_mlp,
)
from tests.unit.test_export import _assert_close, _observations

PAGE = Path(__file__).resolve().parents[2] / "docs" / "export-format.md"
OTHER_KINDS = ("dqn_dueling", "iqn_even", "iqn_fixed")
"""test_export's agents that export a kind of their own (``dqn``, ``iqn``), not ``mlp``."""
MEMORY_AGENTS = {"RecurrentPpo"}
"""Agents whose policy has memory (the ``lstm`` kind): the reference loader's ``act(obs)`` has no memory to
act with, so it refuses them (below); tests/agents/test_recurrent_export.py checks their exports against
the agent instead."""
MLP_AGENTS = sorted({*test_export.AGENTS, *test_export_mlp.AGENTS} - set(OTHER_KINDS))


def _policy_scaled(agent: Any, factor: float) -> Any:
    """The policy's last linear layer scaled up, as test_export's ``_scaled`` does for DQN and SAC:
    outputs large enough for float32 rounding to show. test_export_mlp scales PPO's and A2C's by less than
    that (their logits stay near 1) and the others' not at all."""
    if isinstance(agent, OnPolicyAgent):
        last = agent.parts.model.net.action_net
    else:
        part = agent.parts.policy if isinstance(agent, Bc) else agent.parts.actor
        last = [m for m in part.net.modules() if isinstance(m, torch.nn.Linear)][-1]
    with torch.no_grad():
        last.weight.mul_(factor)
    return agent


def _agent(name: str) -> Any:
    if name == "dqn":  # test_export's DQN picks one action on every observation
        return test_export._scaled(Dqn(DqnConfig(), Spaces(obs_shape=(4,), n_actions=3), seed=3), 30.0)
    if name in test_export.AGENTS:
        return test_export.AGENTS[name]()  # scaled there
    agent = test_export_mlp.AGENTS[name]()
    discrete = agent.greedy_policy().head == "argmax"
    return _policy_scaled(agent, 10.0 if discrete else 3.0)


class _RawOutputAgent:
    """An agent whose greedy action is its network's output (the ``identity`` head, ``squash: none``):
    no agent of border_py has one, a user's own may."""

    obs_dim = 3
    device = torch.device("cpu")

    def greedy_policy(self) -> MlpParts:
        rng = np.random.default_rng(0)
        layers = [(f32(rng.normal(size=(3, 16))), f32(rng.normal(size=16))),
                  (f32(rng.normal(size=(16, 2))), f32(rng.normal(size=2)))]  # fmt: skip
        return MlpParts(obs_mean=f32([1.0, -1.0, 0.0]), obs_std=f32([2.0, 0.5, 1.0]), obs_clip=5.0,
                        layers=layers, activation="tanh", head="identity")  # fmt: skip


def _check_same_actions(path: Path, obs: np.ndarray) -> None:
    """The reference loader's actions against `NumpyPolicy`'s: the same discrete ones, box ones within
    `TORCH_RTOL` (the loader multiplies the whole batch at once, the policy row by row)."""
    policy, act = NumpyPolicy.load(path), load_policy(path)
    expected, got = policy.act(obs), act(obs)
    assert got.shape == expected.shape
    assert got.dtype == expected.dtype
    if policy.discrete:
        assert (got == expected).all()
        assert len(set(expected.tolist())) > 1  # the observations reach more than one action
        assert np.abs(policy.values(obs)).max() > 5.0  # values large enough for rounding to matter
    else:
        _assert_close(got, expected)
        assert expected.std() > 0.1
    assert act(obs[0]).shape == expected[0].shape  # one observation as well as a batch


@pytest.mark.parametrize("name", MLP_AGENTS)
def test_the_reference_loader_acts_as_the_numpy_policy_on_1000_observations(
    name: str, tmp_path: Path
) -> None:
    agent = _agent(name)
    path = export_numpy(agent, tmp_path)
    assert NumpyPolicy.load(path).kind == "mlp"
    _check_same_actions(path, _observations(agent))


@pytest.mark.parametrize("name", ["dqn_cnn", "qrdqn_cnn"])
def test_the_reference_loader_acts_as_the_numpy_policy_on_uint8_frames(name: str, tmp_path: Path) -> None:
    path = export_numpy(test_export_cnn.AGENTS[name](), tmp_path)
    assert NumpyPolicy.load(path).conv is not None
    _check_same_actions(path, test_export_cnn.frames())


def test_the_reference_loader_reads_a_policy_whose_output_is_its_action(tmp_path: Path) -> None:
    agent = _RawOutputAgent()
    path = export_numpy(agent, tmp_path)
    assert json.loads((path / "policy.json").read_text())["action"] == {
        "type": "box",
        "squash": "none",
        "dim": 2,
    }
    _check_same_actions(path, _observations(agent) * 10.0)  # some beyond the normalisation's clip


def test_every_agent_that_exports_an_mlp_is_checked() -> None:
    exporting = {
        name
        for name in agents.__all__
        if inspect.isclass(cls := getattr(agents, name))
        and hasattr(cls, "greedy_policy")
        and not inspect.isabstract(cls)
    }
    checked = {type(_agent(name)).__name__ for name in MLP_AGENTS}
    assert checked == exporting - {"Iqn"} - MEMORY_AGENTS  # Iqn: the iqn kind


def test_the_reference_loader_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    path = export_numpy(test_export.AGENTS["dqn"](), tmp_path / "mlp")
    spec = json.loads((path / "policy.json").read_text())
    for change in (
        {"version": VERSION + 1},
        {"format": "other"},
        {"action": {**spec["action"], "squash": "sigmoid"}},
    ):
        (path / "policy.json").write_text(json.dumps({**spec, **change}))
        with pytest.raises(ValueError, match="policy"):
            load_policy(path)
    dueling = export_numpy(test_export.AGENTS["dqn_dueling"](), tmp_path / "dueling")
    with pytest.raises(ValueError, match="not an mlp policy"):
        load_policy(dueling)
    with pytest.raises(ValueError, match="not an mlp policy"):  # lstm: acting on one observation is wrong
        load_policy(export_numpy(_recurrent(), tmp_path / "lstm"))


def _recurrent() -> RecurrentPpo:
    """Recurrent PPO with its observations normalised: the ``lstm`` kind with ``obs_norm``."""
    config = RecurrentPpoConfig(hidden=(8,), lstm_hidden=4, lstm_layers=2, normalize_obs=True)
    return RecurrentPpo(config, Spaces(obs_shape=(3,), n_actions=2), seed=0)


def _keys_and_names(data: Any, parent: str = "") -> Iterator[str]:
    """Every key of a ``policy.json``, every value that names a choice (kind, type, squash, activation),
    and every array name with its layer number as ``{i}`` (not a dict observation's keys: the env's)."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield key
            if key in ("kind", "type", "squash", "activation"):
                yield value
            yield from _keys_and_names(value, key)
    elif isinstance(data, list):
        for item in data:
            yield from _keys_and_names(item, parent)
    elif isinstance(data, str) and parent not in ("kind", "type", "squash", "activation", "format", "key"):
        yield re.sub(r"\.\d+\.", ".{i}.", data)


def test_the_page_documents_every_key_the_writer_emits(tmp_path: Path) -> None:
    exports = {
        "ppo_discrete_tanh": test_export_mlp.AGENTS["ppo_discrete_tanh"](),  # obs_norm with clip
        "ppo_continuous_relu": test_export_mlp.AGENTS["ppo_continuous_relu"](),  # clip
        "iql": test_export_mlp.AGENTS["iql"](),  # obs_norm without clip, tanh
        "dqn": test_export.AGENTS["dqn"](),  # argmax, no obs_norm
        "dqn_dueling": test_export.AGENTS["dqn_dueling"](),
        "iqn_even": test_export.AGENTS["iqn_even"](),
        "raw_output": _RawOutputAgent(),  # none
        "dqn_cnn": test_export_cnn.AGENTS["dqn_cnn"](),  # conv, obs_shape of frames
        "dqn_dict": test_export_dict._dqn(test_export_dict.PARTS),  # obs_parts
        "dqn_masked": test_export_mask.Masked(test_export_mask._dqn()),  # action.mask, version 4
        "recurrent_ppo": _recurrent(),  # lstm
        "sac_clip_mean": test_export_clip_mean._agent(1.0),  # action.clip_mean, version 6
    }
    page = PAGE.read_text()
    found: dict[str, set[str]] = {}
    for name, agent in exports.items():
        parts = test_export_dict.PARTS if name == "dqn_dict" else None
        spec = json.loads((export_numpy(agent, tmp_path / name, obs_parts=parts) / "policy.json").read_text())
        assert spec["format"] == FORMAT
        versions = {"dqn_masked": MASK_VERSION, "sac_clip_mean": CLIP_MEAN_VERSION}
        assert spec["version"] == versions.get(name, UNMASKED_VERSION)
        for key in _keys_and_names(spec):
            found.setdefault(key, set()).add(name)
    walked = {
        "obs_norm",
        "clip",
        "squash",
        "dim",
        "dueling",
        "taus",
        "advantage",
        "conv",
        "stride",
        "divide_by",
        "obs_parts",
        "mask",
        "lstm",
        "clip_mean",
        "weight_ih",
        "lstm.{i}.bias_hh",
    }
    assert walked <= set(found)
    missing = {key: sorted(names) for key, names in found.items() if f"`{key}`" not in page}
    assert missing == {}, f"{PAGE.name} does not name these keys of policy.json (in backquotes)"
    assert f"version {VERSION}" in page.splitlines()[0]
    assert f"`{FORMAT}`" in page
    assert '--8<-- "examples/numpy_loader.py"' in page  # the loader this file tests is the one it shows
