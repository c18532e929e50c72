"""Pixel policies (the Nature CNN) exported: numpy and ONNX against torch and the agent's own greedy actions
on uint8 frame stacks, the conv front's file checks, and older versions still read."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from torch import nn

from border_py.agents import Dqn, DqnConfig, EvenTaus, Iqn, IqnConfig, NatureCnnConfig, QrDqn, QrDqnConfig
from border_py.agents.greedy import conv_parts
from border_py.base import Spaces
from border_py.evaluator import numpy_actor
from border_py.export import NumpyPolicy, PolicyFileError, export_numpy, greedy_module
from tests.unit import test_export
from tests.unit.test_export import _assert_close

SHAPE = (4, 44, 44)
"""Small frames (the Nature CNN takes 36x36 and up): 2x2 features after its convolutions, fast to test."""
SPACES = Spaces(obs_shape=SHAPE, n_actions=4)
CNN = NatureCnnConfig()


def frames(n: int = 300) -> np.ndarray:
    """Random uint8 frame stacks ``(n, *SHAPE)``."""
    return np.random.default_rng(0).integers(0, 256, size=(n, *SHAPE), dtype=np.uint8)


def _spread(agent: Any) -> Any:
    """The last layer's bias centred on the frames' mean values, then the layer scaled to values of about
    50: random frames give the CNN nearly the same features, so untouched every frame picks one action
    with values below 1, where neither a wrong action nor float32 rounding would show."""
    last = [m for m in agent.parts.net.net.modules() if isinstance(m, nn.Linear)][-1]
    obs = torch.as_tensor(frames())
    with torch.no_grad():
        last.bias.view(-1, agent.n_actions).sub_(greedy_module(agent)(obs)[0].mean(dim=0))
        scale = 50.0 / float(greedy_module(agent)(obs)[0].abs().max())
        last.weight.mul_(scale)
        last.bias.mul_(scale)
    return agent


AGENTS: dict[str, Callable[[], Any]] = {
    "dqn_cnn": lambda: _spread(Dqn(DqnConfig(encoder=CNN, hidden=(64,)), SPACES, seed=0)),
    "dqn_dueling_cnn": lambda: _spread(
        Dqn(DqnConfig(encoder=CNN, hidden=(64,), dueling=True), SPACES, seed=1)
    ),
    "qrdqn_cnn": lambda: _spread(
        QrDqn(QrDqnConfig(encoder=CNN, hidden=(64,), n_quantiles=5), SPACES, seed=2)
    ),
    "iqn_cnn": lambda: _spread(
        Iqn(
            IqnConfig(
                encoder=CNN, hidden=(), embed_dim=64, n_cos=16, head_hidden=(64,), act_taus=EvenTaus(n=8)
            ),
            SPACES,
            seed=3,
        )
    ),
}


def _torch_values(agent: Any, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    with torch.inference_mode():
        values, action = greedy_module(agent)(torch.as_tensor(obs))
    return values.numpy(), action.numpy()


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_a_pixel_policy_in_numpy_acts_as_the_agent_on_uint8_frames(name: str, tmp_path: Path) -> None:
    agent = AGENTS[name]()
    policy = NumpyPolicy.load(export_numpy(agent, tmp_path))
    obs = frames()
    values, action = _torch_values(agent, obs)
    assert np.abs(values).max() > 5.0  # large enough for rounding to show (a dueling value is not scaled)
    assert len(set(action.tolist())) == 4  # the frames reach every action
    got = policy.values(obs)
    assert np.abs(got - values).max() > 0.0  # another summation order: not torch's bits
    _assert_close(got, values)
    assert (policy.act(obs) == action).all()
    agent.eval()
    assert [int(agent.sample(o)) for o in obs[:20]] == action[:20].tolist()  # the agent's own greedy action
    assert policy.act(obs[0]).shape == ()
    assert np.array_equal(policy.values(obs[7:8])[0], got[7])  # an observation's values, whatever its batch
    assert np.array_equal(policy.values(obs.astype(np.float32)), got)  # pixel values in any dtype


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_a_pixel_policy_in_onnx_acts_as_the_agent_on_uint8_frames(name: str, tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime", reason="the export extra (onnxruntime) is not installed")
    pytest.importorskip("onnxscript", reason="the export extra (onnxscript) is not installed")
    from border_py.export import OnnxPolicy, export_onnx

    agent = AGENTS[name]()
    policy = OnnxPolicy.load(export_onnx(agent, tmp_path))
    obs = frames()
    values, action = _torch_values(agent, obs)
    _assert_close(policy.values(obs), values)
    assert (policy.act(obs) == action).all()
    assert policy.act(obs[0]).shape == ()
    assert policy.obs_shape == SHAPE
    with pytest.raises(ValueError, match="takes uint8 frames, got float32"):
        policy.act(obs.astype(np.float32))


def test_the_file_states_the_frames_and_the_convolutions(tmp_path: Path) -> None:
    path = export_numpy(AGENTS["dqn_cnn"](), tmp_path)
    spec = json.loads((path / "policy.json").read_text())
    assert (spec["version"], spec["obs_dim"], spec["obs_shape"]) == (3, 4 * 44 * 44, [4, 44, 44])
    assert [layer["stride"] for layer in spec["network"]["conv"]["layers"]] == [4, 2, 1]
    assert spec["network"]["conv"]["divide_by"] == 255.0
    with np.load(path / "weights.npz") as npz:
        assert npz["conv.0.weight"].shape == (32, 4, 8, 8)  # torch's (out, in, kh, kw)
        assert npz["mlp.0.weight"].shape == (64 * 2 * 2, 64)  # the flattened features in
    policy = NumpyPolicy.load(path)
    assert (policy.kind, policy.obs_shape, policy.in_dim) == ("mlp", SHAPE, 256)
    with pytest.raises(ValueError, match=r"\(4, 44, 44\) or \(n, 4, 44, 44\), got shape \(7744,\)"):
        policy.act(frames(1)[0].reshape(-1))  # flat frames: refused, not guessed


def _edit(path: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    spec = json.loads((path / "policy.json").read_text())
    edit(spec)
    (path / "policy.json").write_text(json.dumps(spec))


def _conv_layer(i: int, **changes: object) -> Callable[[dict[str, Any]], None]:
    def edit(spec: dict[str, Any]) -> None:
        spec["network"]["conv"]["layers"][i].update(changes)

    return edit


HOSTILE: list[tuple[Callable[[dict[str, Any]], None], str]] = [
    (_conv_layer(0, stride=0), r"network.conv.layers\[0\]: a 8x8 filter of stride 0"),
    (_conv_layer(1, stride="2"), r"'stride' must be a int, got '2'"),
    (_conv_layer(2, stride=2), "the network takes 256 inputs, the convolutions give 64"),
    (_conv_layer(1, weight="conv.2.weight"), r"network.conv.layers\[1\]: weight \(64, 64, 3, 3\)"),
    (_conv_layer(0, bias="conv.1.bias"), r"network.conv.layers\[0\]: .* bias \(64,\)"),
    (_conv_layer(0, weight="conv.9.weight"), "'conv.9.weight' is not in weights.npz"),
    (_conv_layer(0, weight="mlp.0.weight"), r"'mlp.0.weight' must be finite float32 with 4 dimension"),
    (lambda s: s.update(obs_shape=[4, 4, 484]), r"layers\[0\]: a 8x8 filter of stride 4 on 4x484"),
    (lambda s: s.update(obs_shape=[4, 44, 45]), r"'obs_shape' \[4, 44, 45\] holds 7920 values, obs_dim"),
    (lambda s: s.update(obs_shape=[7744]), r"'obs_shape' must be \[channels, height, width\]"),
    (lambda s: s.update(obs_shape=[4, 1 << 20, 0]), r"'obs_shape' must be .* \(positive integers\)"),
    (lambda s: s.update(obs_dim=4 << 32, obs_shape=[4, 1 << 16, 1 << 16]), "the network takes 256 inputs"),
    (lambda s: s.update(obs_dim=4 << 34, obs_shape=[4, 1 << 17, 1 << 17]), r"each in 1..65536"),
    (lambda s: s["network"]["conv"].update(divide_by="255"), r"network.conv must be \{layers, divide_by\}"),
    (lambda s: s["network"]["conv"].update(divide_by=0), "divide_by must be positive"),
    (lambda s: s["network"]["conv"].update(layers=[]), "at least one convolution"),
    (lambda s: s["network"]["conv"].update(layers=[["conv.0.weight"]]), r"\{weight, bias, stride\} objects"),
    (
        lambda s: s["network"].update(obs_norm={"mean": "m", "std": "s", "clip": None}),
        "obs_norm must be null",
    ),
    (lambda s: s["network"].pop("conv"), r"'obs_shape' must be \[obs_dim\]"),
]


@pytest.mark.parametrize(("edit", "message"), HOSTILE)
def test_a_conv_front_that_disagrees_with_itself_or_its_weights_is_refused_by_field(
    edit: Callable[[dict[str, Any]], None], message: str, tmp_path: Path
) -> None:
    path = export_numpy(AGENTS["dqn_cnn"](), tmp_path)
    _edit(path, edit)
    with pytest.raises(PolicyFileError, match=message):
        NumpyPolicy.load(path)


def test_files_of_versions_1_and_2_still_read(tmp_path: Path) -> None:
    agent = test_export.AGENTS["dqn"]()
    path = export_numpy(agent, tmp_path)
    obs = test_export._observations(agent, 100)
    expected = NumpyPolicy.load(path).act(obs)
    for version in (1, 2):  # neither wrote obs_shape: a flat observation of obs_dim

        def older(spec: dict[str, Any], version: int = version) -> None:
            spec.pop("obs_shape", None)
            spec["version"] = version

        _edit(path, older)
        assert (NumpyPolicy.load(path).act(obs) == expected).all()


def test_conv_parts_takes_convolutions_each_followed_by_a_relu_then_a_flatten() -> None:
    conv = conv_parts(CNN.build(SHAPE), SHAPE)
    assert [(w.shape, b.shape, s) for w, b, s in conv.layers[:1]] == [((32, 4, 8, 8), (32,), 4)]
    padded = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(), nn.Flatten())
    with pytest.raises(ValueError, match="unpadded convolutions"):
        conv_parts(padded, SHAPE)
    for other in (
        nn.Sequential(nn.Conv2d(4, 8, 3), nn.Flatten()),
        nn.Sequential(nn.Flatten(), nn.Linear(8, 2)),
    ):
        with pytest.raises(ValueError, match="each followed by a ReLU, then a flatten"):
            conv_parts(other, SHAPE)
    with pytest.raises(ValueError, match=r"\(channels, height, width\) frames"):
        conv_parts(CNN.build(SHAPE), (7744,))


def test_the_evaluator_keeps_a_pixel_agent_on_its_own_torch_network() -> None:
    agent = AGENTS["dqn_cnn"]()
    agent.eval()
    assert numpy_actor(agent) is None
