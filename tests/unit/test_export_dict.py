"""Exported policies of dict observations: numpy and ONNX take the dict again (each part by its key, one
observation or a batch) and act as the agent acts on the flat vector it learned on; the layout is checked
at export and at load."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from border_py.agents import DqnConfig, SacConfig
from border_py.base import Spaces
from border_py.base.obs_parts import ObsParts
from border_py.export import NumpyPolicy, PolicyFileError, export_numpy, numpy_policy_of
from examples.numpy_loader import load_policy
from tests.unit import test_export_cnn

PARTS = ObsParts.of({"a": (2,), "b": (3,)})
GRID = ObsParts.of({"grid": (2, 3), "speed": ()})
"""A part of two dimensions and a scalar one: reshaped, not only laid side by side."""


def _dqn(parts: ObsParts) -> Any:
    return DqnConfig(hidden=(8,)).build(Spaces(obs_shape=(parts.dim,), n_actions=3, obs_parts=parts), 0)


def _sac(parts: ObsParts) -> Any:
    spaces = Spaces(obs_shape=(parts.dim,), action_low=[-2.0, 0.0], action_high=[2.0, 1.0], obs_parts=parts)
    return SacConfig(actor_hidden=(8,), critic_hidden=(8,)).build(spaces, 1)


def _onnx_ready() -> None:
    pytest.importorskip("onnxruntime", reason="the export extra (onnxruntime) is not installed")
    pytest.importorskip("onnxscript", reason="the export extra (onnxscript) is not installed")


def _load(runtime: str, agent: Any, path: Path, parts: ObsParts) -> Any:
    if runtime == "numpy":
        return NumpyPolicy.load(export_numpy(agent, path, obs_parts=parts))
    _onnx_ready()
    from border_py.export import OnnxPolicy, export_onnx

    return OnnxPolicy.load(export_onnx(agent, path, obs_parts=parts))


def _dicts(parts: ObsParts, n: int = 200) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """``n`` flat observations and the same as a batch of dicts."""
    flat = np.random.default_rng(0).normal(scale=2.0, size=(n, parts.dim)).astype(np.float32)
    return flat, {key: parts.part(flat, key) for key in parts.keys}


@pytest.mark.parametrize("runtime", ["numpy", "onnx"])
@pytest.mark.parametrize("build", [_dqn, _sac], ids=["dqn", "sac"])
@pytest.mark.parametrize("parts", [PARTS, GRID], ids=["vectors", "grid_and_scalar"])
def test_the_policy_takes_the_dict_and_acts_as_the_agent_on_the_flat_vector(
    runtime: str, build: Callable[[ObsParts], Any], parts: ObsParts, tmp_path: Path
) -> None:
    agent = build(parts)
    policy = _load(runtime, agent, tmp_path, parts)
    assert policy.obs_parts == parts
    flat, batch = _dicts(parts)
    agent.eval()
    expected = np.stack([agent.sample(o) for o in flat])
    got = policy.act(batch)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, atol=1e-5)  # discrete: the same actions
    assert len(np.unique(expected, axis=0)) > 1  # the observations reach more than one action
    for i in range(0, len(flat), 37):  # one observation: each part of its own shape
        one = {key: value[i] for key, value in batch.items()}
        np.testing.assert_allclose(policy.act(one), expected[i], atol=1e-5)
        assert policy.act(one).shape == expected[i].shape
    np.testing.assert_array_equal(policy.act(flat), got)  # the flat vector, as before


@pytest.mark.parametrize("runtime", ["numpy", "onnx"])
def test_a_missing_or_misshapen_part_is_refused_naming_its_key(runtime: str, tmp_path: Path) -> None:
    policy = _load(runtime, _dqn(PARTS), tmp_path, PARTS)
    one = {"a": np.zeros(2, np.float32), "b": np.zeros(3, np.float32)}
    with pytest.raises(ValueError, match=r"^the dict observation has no key 'b' \(it has 'a';"):
        policy.act({"a": one["a"]})
    with pytest.raises(
        ValueError, match=r"^dict observation part 'b' has shape \(4,\), but the space declares \(3,\)$"
    ):
        policy.act({**one, "b": np.zeros(4, np.float32)})
    with pytest.raises(
        ValueError, match=r"^dict observation part 'b' has shape \(3,\), .* declares \(5, 3\)$"
    ):
        policy.act({"a": np.zeros((5, 2), np.float32), "b": one["b"]})  # a batch of 'a' with one 'b'
    with pytest.raises(ValueError, match=r"^the dict observation has a key 'c' the space does not declare"):
        policy.act({**one, "c": np.zeros(1, np.float32)})


@pytest.mark.parametrize("runtime", ["numpy", "onnx"])
def test_a_policy_exported_without_parts_refuses_a_dict_in_one_line(runtime: str, tmp_path: Path) -> None:
    agent = DqnConfig(hidden=(8,)).build(Spaces(obs_shape=(5,), n_actions=2), 0)
    if runtime == "numpy":
        policy: Any = NumpyPolicy.load(export_numpy(agent, tmp_path))
    else:
        _onnx_ready()
        from border_py.export import OnnxPolicy, export_onnx

        policy = OnnxPolicy.load(export_onnx(agent, tmp_path))
    assert policy.obs_parts is None
    with pytest.raises(ValueError, match=r"^this policy was exported without obs_parts: it takes an array"):
        policy.act({"a": np.zeros(2), "b": np.zeros(3)})


def _parts_field(path: Path) -> Any:
    return json.loads((path / "policy.json").read_text())["obs_parts"]


@pytest.mark.parametrize(
    ("hostile", "message"),
    [
        ("a", "must be a list of"),
        ({"a": [2], "b": [3]}, "must be a list of"),
        ([{"key": "a", "shape": [2]}, ["b", [3]]], "must be a list of"),
        ([{"key": 1, "shape": [2]}, {"key": "b", "shape": [3]}], "must be a list of"),
        ([{"key": "a", "shape": [2, True]}, {"key": "b", "shape": [3]}], "must be a list of"),
        ([{"key": "a", "shape": [-2]}, {"key": "b", "shape": [7]}], "must be a list of"),
        ([{"key": "a", "shape": 2}, {"key": "b", "shape": [3]}], "must be a list of"),
        ([{"key": "a"}, {"key": "b", "shape": [3]}], "must be a list of"),
        ([], "'obs_parts': a dict observation needs at least one part"),
        ([{"key": "", "shape": [5]}], "'obs_parts': a dict observation's keys must be distinct non-empty"),
        ([{"key": "a", "shape": [2]}, {"key": "a", "shape": [3]}], "'obs_parts' holds key 'a' twice"),
        (
            [{"key": "a", "shape": [2]}, {"key": "b", "shape": [4]}],
            "'obs_parts' lay out 6 values, obs_dim is 5",
        ),
        ([{"key": "a", "shape": [10**30]}], "'obs_parts' lay out 1000000000000000000000000000000 values"),
    ],
)
def test_a_hostile_obs_parts_in_policy_json_is_refused_naming_the_field(
    hostile: object, message: str, tmp_path: Path
) -> None:
    path = export_numpy(_dqn(PARTS), tmp_path, obs_parts=PARTS)
    spec = json.loads((path / "policy.json").read_text())
    assert spec["obs_parts"] == [{"key": "a", "shape": [2]}, {"key": "b", "shape": [3]}]
    (path / "policy.json").write_text(json.dumps({**spec, "obs_parts": hostile}))
    with pytest.raises(PolicyFileError, match=rf"^{re.escape(str(path / 'policy.json'))}: .*{message}"):
        NumpyPolicy.load(path)


def test_parts_that_do_not_fit_the_agent_are_refused_at_export_writing_nothing(tmp_path: Path) -> None:
    _onnx_ready()
    from border_py.export import export_onnx

    agent, out = _dqn(PARTS), tmp_path / "out"
    wrong = ObsParts.of({"a": (2,), "b": (4,)})
    for export in (export_numpy, export_onnx):
        with pytest.raises(ValueError, match=r"^obs_parts lay out 6 values, the agent's obs_dim is 5$"):
            export(agent, out, obs_parts=wrong)
    with pytest.raises(ValueError, match=r"^obs_parts lay out 6 values"):
        numpy_policy_of(agent, obs_parts=wrong)
    pixels = test_export_cnn.AGENTS["dqn_cnn"]()
    frames = ObsParts.of({"frames": (pixels.obs_dim,)})
    for export in (export_numpy, export_onnx):
        with pytest.raises(ValueError, match=r"^obs_parts: a pixel \(conv\) policy takes frames"):
            export(pixels, out, obs_parts=frames)
    with pytest.raises(ValueError, match=r"^obs_parts: key 'action' is also the name of the ONNX policy's"):
        export_onnx(agent, out, obs_parts=ObsParts.of({"action": (2,), "b": (3,)}))
    assert not out.exists()


def test_one_part_keyed_obs_is_still_a_dict_policy_in_onnx(tmp_path: Path) -> None:
    """Its graph's one input is named ``obs``, as an array policy's: the file's metadata tells them apart."""
    parts = ObsParts.of({"obs": (5,)})
    agent = _dqn(parts)
    policy = _load("onnx", agent, tmp_path, parts)
    assert policy.obs_parts == parts
    flat, batch = _dicts(parts, 20)
    agent.eval()
    np.testing.assert_array_equal(policy.act(batch), [agent.sample(o) for o in flat])


def test_the_reference_loader_takes_the_dict_too(tmp_path: Path) -> None:
    path = export_numpy(_sac(GRID), tmp_path, obs_parts=GRID)
    flat, batch = _dicts(GRID)
    act, policy = load_policy(path), NumpyPolicy.load(path)
    np.testing.assert_allclose(act(batch), policy.act(flat), atol=1e-5)
    np.testing.assert_allclose(act({k: v[3] for k, v in batch.items()}), policy.act(flat[3]), atol=1e-5)
    np.testing.assert_allclose(act(flat), policy.act(flat), atol=1e-5)  # a reader that ignores the field


def test_the_run_layers_export_takes_the_env_s_parts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from border_py.export import OnnxPolicy
    from border_py.run import outputs

    agent = _sac(PARTS)
    env = SimpleNamespace(
        spaces=Spaces(obs_shape=(5,), action_low=[-2.0, 0.0], action_high=[2.0, 1.0], obs_parts=PARTS),
        close=lambda: None,
    )
    monkeypatch.setattr(outputs, "saved_model_path", lambda model_dir, checkpoint: model_dir)
    monkeypatch.setattr(outputs, "build_eval_env", lambda experiment: env)
    monkeypatch.setattr(outputs, "load_agent", lambda experiment, saved, eval_env: agent)
    _onnx_ready()
    # The experiment goes only to the functions patched above.
    outputs.export_policy(None, tmp_path, tmp_path / "exported")  # type: ignore[arg-type]
    capsys.readouterr()
    assert NumpyPolicy.load(tmp_path / "exported").obs_parts == PARTS
    assert OnnxPolicy.load(tmp_path / "exported").obs_parts == PARTS
