"""SAC's gSDE ``clip_mean`` (SB3's: the mean held before the tanh): the actor holds it, and the numpy, ONNX
and reference-loader exports (format version 6, ``action.clip_mean``) act as the agent does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from border_py.agents import CrossQConfig, SacConfig, TqcConfig
from border_py.agents.sac.model import GaussianActor
from border_py.base import Spaces
from border_py.config import ConfigError, from_dict
from border_py.export import NumpyPolicy, PolicyFileError, export_numpy
from border_py.export.action_mask import UNMASKED_VERSION
from border_py.export.policy_files import CLIP_MEAN_VERSION
from examples.numpy_loader import load_policy

SPACES = Spaces(obs_shape=(4,), action_low=[-2.0, -1.0], action_high=[2.0, 3.0])


CONFIGS: dict[str, Any] = {"sac": SacConfig, "tqc": TqcConfig, "crossq": CrossQConfig}


def _agent(clip_mean: float | None, kind: str = "sac") -> Any:
    """A gSDE SAC (TQC, CrossQ) whose mean head is scaled up, so that about half the means pass
    ``clip_mean`` = 1."""
    config = CONFIGS[kind](actor_hidden=(16,), critic_hidden=(8,), gsde=True, clip_mean=clip_mean)
    agent = config.build(SPACES, 2)
    head = [m for m in agent.parts.actor.net.net.modules() if isinstance(m, torch.nn.Linear)][-1]
    with torch.no_grad():
        head.weight.mul_(8.0)
    agent.eval()
    return agent


def _obs(n: int = 500) -> np.ndarray:
    return np.random.default_rng(0).normal(scale=2.0, size=(n, 4)).astype(np.float32)


def _eval_actions(agent: Any, obs: np.ndarray) -> np.ndarray:
    return np.stack([agent.sample(o) for o in obs])


def test_the_actor_holds_its_mean_and_no_gradient_passes_beyond() -> None:
    actor = GaussianActor(2, 1, (4,), -20.0, 2.0, gsde_log_std_init=-3.0, clip_mean=1.5)
    head = [m for m in actor.net.modules() if isinstance(m, torch.nn.Linear)][-1]
    with torch.no_grad():
        head.bias.fill_(5.0)  # every mean far above 1.5
        head.weight.zero_()
    mean, _ = actor(torch.ones(3, 2))
    torch.testing.assert_close(mean, torch.full((3, 1), 1.5))
    mean.sum().backward()
    assert head.bias.grad is not None
    assert float(head.bias.grad.abs().sum()) == 0.0  # Hardtanh: flat beyond the bound


def test_clip_mean_needs_gsde_and_a_positive_value() -> None:
    with pytest.raises(ConfigError, match=r"clip_mean .*needs gsde: true"):
        from_dict(SacConfig, {"clip_mean": 2.0}, source="agent")
    with pytest.raises(ConfigError, match="clip_mean"):
        from_dict(SacConfig, {"clip_mean": -1.0, "gsde": True}, source="agent")


@pytest.mark.parametrize("kind", sorted(CONFIGS))
def test_the_numpy_export_and_the_reference_loader_act_as_the_agent(kind: str, tmp_path: Path) -> None:
    agent, obs = _agent(1.0, kind), _obs()
    expected = _eval_actions(agent, obs)
    path = export_numpy(agent, tmp_path / "held")
    spec = json.loads((path / "policy.json").read_text())
    assert (spec["version"], spec["action"]["clip_mean"]) == (CLIP_MEAN_VERSION, 1.0)
    np.testing.assert_allclose(NumpyPolicy.load(path).act(obs), expected, rtol=0, atol=1e-5)
    np.testing.assert_allclose(load_policy(path)(obs), expected, rtol=0, atol=1e-5)
    # The clip matters on these observations: the same weights unheld act otherwise, and say version 3.
    free = _agent(None, kind)
    free_path = export_numpy(free, tmp_path / "free")
    assert json.loads((free_path / "policy.json").read_text())["version"] == UNMASKED_VERSION
    assert np.abs(NumpyPolicy.load(free_path).act(obs) - expected).max() > 0.1


@pytest.mark.parametrize("kind", sorted(CONFIGS))
def test_the_onnx_export_acts_as_the_agent(kind: str, tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime", reason="the export extra (onnxruntime) is not installed")
    pytest.importorskip("onnxscript", reason="the export extra (onnxscript) is not installed")
    from border_py.export import OnnxPolicy, export_onnx

    agent, obs = _agent(1.0, kind), _obs()
    policy = OnnxPolicy.load(export_onnx(agent, tmp_path))
    np.testing.assert_allclose(policy.act(obs), _eval_actions(agent, obs), rtol=0, atol=1e-5)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"version": 5}, "'action.clip_mean' came in version 6, the file is version 5"),
        ({"action": {"clip_mean": -1.0}}, "clip_mean must be a positive number"),
        ({"action": {"clip_mean": "2"}}, "clip_mean must be a positive number"),
        ({"action": {"clip_mean": True}}, "clip_mean must be a positive number"),
        ({"action": {"squash": "clip"}}, "clip_mean must be a positive number, with squash tanh"),
    ],
)
def test_a_bad_clip_mean_is_refused_naming_it(tmp_path: Path, change: dict[str, Any], message: str) -> None:
    path = export_numpy(_agent(1.0), tmp_path)
    spec = json.loads((path / "policy.json").read_text())
    spec = {**spec, **change, "action": {**spec["action"], **change.get("action", {})}}
    (path / "policy.json").write_text(json.dumps(spec))
    with pytest.raises(PolicyFileError, match=message):
        NumpyPolicy.load(path)


def test_clip_mean_on_a_kind_that_would_not_apply_it_is_refused(tmp_path: Path) -> None:
    path = export_numpy(_agent(1.0), tmp_path)
    spec = json.loads((path / "policy.json").read_text())
    (path / "policy.json").write_text(json.dumps({**spec, "kind": "sac"}))  # version 1's SAC kind
    with pytest.raises(PolicyFileError, match=r"action\.clip_mean is for the mlp and lstm kinds, not sac"):
        NumpyPolicy.load(path)
