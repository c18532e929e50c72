"""Exported policies: numpy and ONNX against torch, numpy without torch, hostile files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from border_py.agents import (
    CrossQ,
    CrossQConfig,
    Dqn,
    DqnConfig,
    EvenTaus,
    FixedTaus,
    Iqn,
    IqnConfig,
    QrDqn,
    QrDqnConfig,
    Sac,
    SacConfig,
    Tqc,
    TqcConfig,
)
from border_py.agents.batch_renorm import BatchRenorm
from border_py.agents.iqn import UniformTaus
from border_py.base import Spaces
from border_py.export import NumpyPolicy, PolicyFileError, export_numpy, greedy_module
from border_py.export.exporters import Exportable
from border_py.export.numpy_policy import TORCH_RTOL
from border_py.testing import FakeAgent

ROOT = Path(__file__).resolve().parents[2]


Scalable = Dqn | Iqn | QrDqn | Sac | CrossQ


def _scaled(agent: Scalable, factor: float) -> Scalable:
    """Output layers scaled up so values are as large as a trained CartPole Q-network's (tens), where a
    float32 rounding difference would show."""
    with torch.no_grad():
        network = agent.parts.actor.net if isinstance(agent, Sac | CrossQ) else agent.parts.net.net
        modules = network.modules()
        last = [m for m in modules if isinstance(m, torch.nn.Linear)][-1]
        last.weight.mul_(factor)
    return agent


def _renormalised(agent: CrossQ) -> CrossQ:
    """The policy's batch renormalisations given running statistics and affine parameters far from their
    start (means 0, variances 1, the identity), as training leaves them: export folds them in."""
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for norm in agent.parts.actor.net.modules():
            if isinstance(norm, BatchRenorm):
                n = norm.running_mean.numel()
                norm.running_mean.copy_(torch.randn(n, generator=generator))
                norm.running_var.copy_(0.2 + 3.0 * torch.rand(n, generator=generator))
                norm.weight.copy_(0.5 + torch.rand(n, generator=generator))
                norm.bias.copy_(0.5 * torch.randn(n, generator=generator))
    return agent


AGENTS = {
    "dqn": lambda: _scaled(Dqn(DqnConfig(), Spaces(obs_shape=(4,), n_actions=2), seed=0), 30.0),
    "dqn_dueling": lambda: _scaled(
        Dqn(DqnConfig(dueling=True), Spaces(obs_shape=(4,), n_actions=3), seed=1), 30.0
    ),
    "iqn_even": lambda: _scaled(
        Iqn(IqnConfig(act_taus=EvenTaus(n=32)), Spaces(obs_shape=(4,), n_actions=2), seed=2), 300.0
    ),
    "iqn_fixed": lambda: _scaled(
        Iqn(IqnConfig(act_taus=FixedTaus(taus=(0.1, 0.2))), Spaces(obs_shape=(4,), n_actions=2), seed=3),
        300.0,
    ),
    "qrdqn": lambda: _scaled(
        QrDqn(QrDqnConfig(n_quantiles=7), Spaces(obs_shape=(4,), n_actions=3), seed=5), 30.0
    ),
    "sac": lambda: _scaled(
        Sac(
            SacConfig(),
            Spaces(obs_shape=(3,), action_low=np.array([-2.0, 0.0]), action_high=np.array([2.0, 1.0])),
            seed=4,
        ),
        3.0,
    ),
    "crossq": lambda: _scaled(
        _renormalised(
            CrossQ(
                CrossQConfig(critic_hidden=(64, 64)),
                Spaces(obs_shape=(3,), action_low=np.array([-2.0, 0.0]), action_high=np.array([2.0, 1.0])),
                seed=7,
            )
        ),
        3.0,
    ),
    "tqc": lambda: _scaled(
        Tqc(
            TqcConfig(n_critics=2),
            Spaces(obs_shape=(3,), action_low=np.array([-1.0, 0.0]), action_high=np.array([1.0, 2.0])),
            seed=6,
        ),
        3.0,
    ),
}


def _assert_close(got: np.ndarray, expected: np.ndarray) -> None:
    """Within `TORCH_RTOL` of the larger of 1 and each observation's largest absolute output."""
    scale = np.maximum(1.0, np.abs(expected).max(axis=1, keepdims=True))
    assert (np.abs(got.astype(np.float64) - expected) <= TORCH_RTOL * scale).all()


def _observations(agent: Exportable, n: int = 1000) -> np.ndarray:
    return np.random.default_rng(0).normal(scale=2.0, size=(n, agent.obs_dim)).astype(np.float32)


def _torch_outputs(agent: Exportable, obs: np.ndarray) -> tuple[np.ndarray | None, np.ndarray]:
    """(values or None, action) of the agent's greedy policy in torch."""
    with torch.inference_mode():
        out = greedy_module(agent)(torch.as_tensor(obs))
    if isinstance(out, tuple):
        return out[0].numpy(), out[1].numpy()
    return None, out.numpy()


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_the_numpy_policy_matches_torch_on_1000_observations(name: str, tmp_path: Path) -> None:
    agent = AGENTS[name]()
    policy = NumpyPolicy.load(export_numpy(agent, tmp_path))
    obs = _observations(agent)
    values, action = _torch_outputs(agent, obs)
    if values is not None:
        assert np.abs(values).max() > 5.0  # large enough for rounding to matter
        _assert_close(policy.values(obs), values)
        assert (policy.act(obs) == action).all()
    else:
        _assert_close(policy.act(obs), action)
    # The agent's own eval-mode action, one observation at a time.
    agent.eval()
    for o in obs[:50]:
        np.testing.assert_allclose(policy.act(o), agent.sample(o), atol=1e-5)
    assert policy.act(obs[0]).shape == agent.sample(obs[0]).shape


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_the_onnx_policy_matches_torch_on_1000_observations(name: str, tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime", reason="the export extra (onnxruntime) is not installed")
    pytest.importorskip("onnxscript", reason="the export extra (onnxscript) is not installed")
    from border_py.export import OnnxPolicy, export_onnx

    agent = AGENTS[name]()
    policy = OnnxPolicy.load(export_onnx(agent, tmp_path))
    obs = _observations(agent)
    values, action = _torch_outputs(agent, obs)
    if values is not None:
        _assert_close(policy.values(obs), values)
        assert (policy.act(obs) == action).all()
        assert policy.act(obs[0]).dtype == np.int64
        assert policy.act(obs[0]).shape == ()
    else:
        _assert_close(policy.act(obs), action)
        assert policy.act(obs[0]).shape == (2,)


@pytest.mark.parametrize("runtime", ["numpy", "onnx"])
@pytest.mark.parametrize("name", ["dqn", "dqn_dueling", "iqn_even", "iqn_fixed", "qrdqn"])
def test_values_as_large_as_a_trained_q_networks_match_torch_relative_to_their_size(
    name: str, runtime: str, tmp_path: Path
) -> None:
    """Q-values in the hundreds (a trained CartPole DQN's reach 100-400) differ from torch's by more than
    any small fixed bound (1e-5 did not hold), and stay within `TORCH_RTOL` of their size."""
    agent = _scaled(AGENTS[name](), 30.0)
    if runtime == "numpy":
        policy: Any = NumpyPolicy.load(export_numpy(agent, tmp_path))
    else:
        pytest.importorskip("onnxruntime", reason="the export extra (onnxruntime) is not installed")
        pytest.importorskip("onnxscript", reason="the export extra (onnxscript) is not installed")
        from border_py.export import OnnxPolicy, export_onnx

        policy = OnnxPolicy.load(export_onnx(agent, tmp_path))
    obs = _observations(agent, 10_000)
    values, action = _torch_outputs(agent, obs)
    assert values is not None
    assert np.abs(values).max() > 100.0
    got = policy.values(obs)
    assert np.abs(got - values).max() > 1e-5
    _assert_close(got, values)
    assert (policy.act(obs) == action).all()


def test_the_numpy_policy_loads_and_acts_with_torch_blocked(tmp_path: Path) -> None:
    agent = AGENTS["dqn_dueling"]()
    export_numpy(agent, tmp_path)
    obs = _observations(agent, 5)
    expected = _torch_outputs(agent, obs)[1].tolist()
    code = f"""
import sys
sys.modules["torch"] = None  # any import of torch now fails
import numpy as np
from border_py.export import NumpyPolicy
policy = NumpyPolicy.load({str(tmp_path)!r})
print(policy.act(np.array({obs.tolist()!r}, dtype=np.float32)).tolist())
assert not [m for m in sys.modules if m.split(".")[0] == "torch" and sys.modules[m] is not None]
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected


def test_agents_it_cannot_export_are_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="act_taus"):
        export_numpy(
            Iqn(IqnConfig(act_taus=UniformTaus(n=8)), Spaces(obs_shape=(4,), n_actions=2), seed=0), tmp_path
        )
    with pytest.raises(TypeError, match="got FakeAgent"):
        export_numpy(FakeAgent(), tmp_path)  # type: ignore[arg-type]
    assert not list(tmp_path.iterdir())


def _exported(tmp_path: Path) -> Path:
    return export_numpy(AGENTS["dqn"](), tmp_path / "policy")


def test_a_wrong_observation_shape_names_the_expected_one(tmp_path: Path) -> None:
    policy = NumpyPolicy.load(_exported(tmp_path))
    with pytest.raises(ValueError, match=r"\(4,\) or \(n, 4\), got shape \(3,\)"):
        policy.act(np.zeros(3, np.float32))


def test_missing_or_malformed_files_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(PolicyFileError, match=r"policy.json: no such file"):
        NumpyPolicy.load(tmp_path)
    path = _exported(tmp_path)
    (path / "policy.json").write_text("{not json")
    with pytest.raises(PolicyFileError, match=r"policy.json: not JSON"):
        NumpyPolicy.load(path)
    (path / "policy.json").write_text(json.dumps({"format": "something else"}))
    with pytest.raises(PolicyFileError, match="not a border_py policy"):
        NumpyPolicy.load(path)
    (path / "policy.json").write_text("[" * 200_000 + "]" * 200_000)  # 400 kB: RecursionError before
    with pytest.raises(PolicyFileError, match=r"policy.json: nested too deep to be a policy description"):
        NumpyPolicy.load(path)


def _edit_spec(path: Path, **changes: object) -> None:
    spec = json.loads((path / "policy.json").read_text())
    spec.update(changes)
    (path / "policy.json").write_text(json.dumps(spec))


def test_a_spec_that_disagrees_with_its_weights_is_refused(tmp_path: Path) -> None:
    path = _exported(tmp_path)
    _edit_spec(path, obs_dim=5, obs_shape=[5])
    with pytest.raises(PolicyFileError, match="takes 4 inputs, obs_dim is 5"):
        NumpyPolicy.load(path)
    _edit_spec(path, obs_dim=4, obs_shape=[4], kind="ppo")
    with pytest.raises(PolicyFileError, match="'kind' must be one of"):
        NumpyPolicy.load(path)
    _edit_spec(path, kind="mlp", action={"type": "discrete", "n": 3})
    with pytest.raises(PolicyFileError, match="gives 2 values, n=3"):
        NumpyPolicy.load(path)
    _edit_spec(path, action={"type": "discrete", "n": 2}, version=99)
    with pytest.raises(PolicyFileError, match="version 99"):
        NumpyPolicy.load(path)


def test_a_box_spec_whose_type_or_bounds_disagree_with_the_network_is_refused(tmp_path: Path) -> None:
    path = export_numpy(AGENTS["sac"](), tmp_path / "policy")  # two actions, squashed by tanh
    action = json.loads((path / "policy.json").read_text())["action"]
    _edit_spec(path, action={**action, "type": "boxx"})
    with pytest.raises(PolicyFileError, match=r"action\.type must be discrete or box, got 'boxx'"):
        NumpyPolicy.load(path)
    _edit_spec(path, action={**action, "low": [-1.0], "high": [1.0]})  # broadcast silently before
    with pytest.raises(PolicyFileError, match="gives 2 actions, the bounds have 1"):
        NumpyPolicy.load(path)
    _edit_spec(path, action={**action, "low": [-1.0] * 3, "high": [1.0] * 3})
    with pytest.raises(PolicyFileError, match="gives 2 actions, the bounds have 3"):
        NumpyPolicy.load(path)


def test_hostile_or_corrupt_weights_are_refused_without_running_code(tmp_path: Path) -> None:
    path = _exported(tmp_path)
    # A pickled object array: loading it would run code; allow_pickle=False refuses it.
    np.savez(path / "weights.npz", np.array([object()], dtype=object))
    with pytest.raises(PolicyFileError, match=r"weights.npz: not a numpy .npz of plain arrays"):
        NumpyPolicy.load(path)
    (path / "weights.npz").write_bytes(b"PK\x03\x04 truncated")
    with pytest.raises(PolicyFileError, match=r"weights.npz"):
        NumpyPolicy.load(path)
    export_numpy(AGENTS["dqn"](), path)
    with np.load(path / "weights.npz") as npz:
        weights = {k: npz[k] for k in npz.files}
    weights["mlp.0.weight"][0, 0] = np.nan
    np.savez(path / "weights.npz", **weights)
    with pytest.raises(PolicyFileError, match=r"'mlp.0.weight' must be finite float32"):
        NumpyPolicy.load(path)
    weights["mlp.0.weight"][0, 0] = 0.0
    del weights["mlp.1.bias"]
    np.savez(path / "weights.npz", **weights)
    with pytest.raises(PolicyFileError, match=r"'mlp.1.bias' is not in weights.npz"):
        NumpyPolicy.load(path)
