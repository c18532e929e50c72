"""Policies of a dict observation with images (a multi-input encoder's) exported: numpy and ONNX take the
dict and act as the agent's greedy (eval-mode) actions for every agent that takes the encoder; a
channels-first image and several images round-trip; the file is version 5 and its ``network.inputs``
checked, hostile entries refused naming the field."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from torch import nn

from border_py.agents import (
    A2cConfig,
    CrossQConfig,
    DqnConfig,
    EvenTaus,
    IqnConfig,
    PpoConfig,
    QrDqnConfig,
    SacConfig,
    Td3Config,
    TqcConfig,
)
from border_py.agents.cnn_config import MultiInputConfig
from border_py.base.obs_parts import ObsParts
from border_py.base.spaces import Spaces
from border_py.envs.gymnasium import GymEnvConfig
from border_py.export import NumpyPolicy, PolicyFileError, export_numpy, greedy_module
from tests.unit.test_export import _assert_close

ENV = "border_py/PixelTarget-v0"
ENCODER = MultiInputConfig(image_features=8)
HIDDEN = (16,)


def _spaces(discrete: bool) -> Spaces:
    """The spaces of ``border_py/PixelTarget-v0``: a 36x36x1 image and a one-value offset."""
    env = GymEnvConfig(name=ENV, kwargs={"discrete": True} if discrete else {}).build(0)
    try:
        return env.spaces
    finally:
        env.close()


def _box_agents() -> dict[str, Callable[[Spaces], Any]]:
    sac = SacConfig(encoder=ENCODER, actor_hidden=HIDDEN, critic_hidden=HIDDEN)
    tqc = TqcConfig(encoder=ENCODER, actor_hidden=HIDDEN, critic_hidden=HIDDEN, n_critics=2, n_quantiles=5)
    crossq = CrossQConfig(encoder=ENCODER, actor_hidden=HIDDEN, critic_hidden=HIDDEN)  # batch renorms folded
    td3 = Td3Config(encoder=ENCODER, actor_hidden=HIDDEN, critic_hidden=HIDDEN)
    return {
        "sac": lambda s: sac.build(s, 0),
        "tqc": lambda s: tqc.build(s, 1),
        "crossq": lambda s: crossq.build(s, 2),
        "td3": lambda s: td3.build(s, 3),
        "ppo_continuous": lambda s: PpoConfig(encoder=ENCODER, hidden=HIDDEN).build(s, 4),
    }


def _spread(agent: Any, parts: ObsParts) -> Any:
    """A value-based agent with its last layer's bias centred on the observations' mean values: untouched,
    a small random network's biases outweigh what the observations change, and every one picks the same
    action, where a wrong one would not show."""
    last = [m for m in agent.parts.net.net.modules() if isinstance(m, nn.Linear)][-1]
    _, flat = _observations(parts)
    with torch.no_grad():
        last.bias.view(-1, agent.n_actions).sub_(greedy_module(agent)(torch.as_tensor(flat))[0].mean(dim=0))
    return agent


def _discrete_agents() -> dict[str, Callable[[Spaces], Any]]:
    iqn = IqnConfig(
        encoder=ENCODER, hidden=(), embed_dim=16, n_cos=8, head_hidden=HIDDEN, act_taus=EvenTaus(n=4)
    )
    return {
        "dqn": lambda s: _spread(DqnConfig(encoder=ENCODER, hidden=HIDDEN).build(s, 5), s.obs_parts),
        "dqn_dueling": lambda s: _spread(
            DqnConfig(encoder=ENCODER, hidden=HIDDEN, dueling=True).build(s, 6), s.obs_parts
        ),
        "qrdqn": lambda s: _spread(
            QrDqnConfig(encoder=ENCODER, hidden=HIDDEN, n_quantiles=5).build(s, 7), s.obs_parts
        ),
        "iqn": lambda s: _spread(iqn.build(s, 8), s.obs_parts),
        "ppo_discrete": lambda s: PpoConfig(encoder=ENCODER, hidden=HIDDEN).build(s, 9),
        "a2c": lambda s: A2cConfig(encoder=ENCODER, hidden=HIDDEN).build(s, 10),
    }


BOX, DISCRETE = _box_agents(), _discrete_agents()


def _agent(name: str) -> tuple[Any, ObsParts]:
    """The agent ``name`` in eval mode, and the parts of its env's observation."""
    spaces = _spaces(name not in BOX)
    assert spaces.obs_parts is not None
    agent = BOX[name](spaces) if name in BOX else DISCRETE[name](spaces)
    agent.eval()
    return agent, spaces.obs_parts


def _observations(parts: ObsParts, n: int = 48) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """``n`` dict observations of random uint8 images (each of its own brightness, so that their features
    differ: uniform noise alone gives the CNN nearly the same features) and random flat parts, and their
    flat vectors."""
    rng = np.random.default_rng(0)
    obs: dict[str, np.ndarray] = {}
    for p in parts.parts:
        if p.image:
            bright = rng.uniform(0.0, 1.0, size=(n, *[1] * len(p.shape)))
            obs[p.key] = (rng.integers(0, 256, size=(n, *p.shape)) * bright).astype(np.uint8)
        else:
            obs[p.key] = rng.uniform(-1.0, 1.0, size=(n, *p.shape)).astype(np.float32)
    return obs, parts.flatten(obs, (n,))


def _onnx_ready() -> None:
    pytest.importorskip("onnxruntime", reason="the export extra (onnxruntime) is not installed")
    pytest.importorskip("onnxscript", reason="the export extra (onnxscript) is not installed")


def _load(runtime: str, agent: Any, path: Path, parts: ObsParts | None = None) -> Any:
    if runtime == "numpy":
        return NumpyPolicy.load(export_numpy(agent, path, obs_parts=parts))
    _onnx_ready()
    from border_py.export import OnnxPolicy, export_onnx

    return OnnxPolicy.load(export_onnx(agent, path, obs_parts=parts))


def _assert_acts_as_the_agent(policy: Any, agent: Any, parts: ObsParts) -> None:
    """The policy's actions on a batch of dicts and on one are the agent's own greedy ones; a discrete
    policy's values are its torch module's."""
    obs, flat = _observations(parts)
    expected = np.stack(agent.sample_batch(list(flat)))  # eval mode: greedy, one forward pass for all
    got = policy.act(obs)
    assert got.shape == expected.shape
    if policy.discrete:
        assert (got == expected).all()
        assert len(np.unique(expected)) > 1  # the observations reach more than one action
        with torch.inference_mode():
            values = greedy_module(agent)(torch.as_tensor(flat))[0].numpy()
        _assert_close(policy.values(obs), values)
    else:
        _assert_close(got, expected)
        assert expected.std() > 1e-4  # the observations reach more than one action
    one = {key: value[5] for key, value in obs.items()}
    assert policy.act(one).shape == expected[5].shape
    np.testing.assert_allclose(policy.act(one), expected[5], atol=1e-6)


ONNX = ("sac", "dqn_dueling")
"""ONNX, whose export takes seconds an agent, for each way its graph is made: from the exported parts
(`MultiInputFront`: every MLP policy, their heads covered elsewhere; a plain DQN below), and the agent's own
network (a dueling DQN; IQN's holds the same encoder). The numpy policy checks every agent's stated parts."""
CASES = [*((name, "numpy") for name in sorted(BOX) + sorted(DISCRETE)), *((name, "onnx") for name in ONNX)]


@pytest.mark.parametrize(("name", "runtime"), CASES)
def test_the_policy_takes_the_dict_and_acts_as_the_agent(name: str, runtime: str, tmp_path: Path) -> None:
    agent, parts = _agent(name)
    policy = _load(runtime, agent, tmp_path)  # the encoder's parts: no obs_parts needed
    assert policy.obs_parts == parts or runtime == "onnx"  # ONNX's inputs carry no image flag
    assert policy.obs_parts.keys == ("image", "offset")
    _assert_acts_as_the_agent(policy, agent, parts)


SEVERAL = ObsParts.of(
    {"depth": (1, 36, 36), "speed": (2,), "camera": (36, 36, 3)}, images=["depth", "camera"]
)
"""A channels-first image, a flat part between two images, and a channels-last image of 3 channels."""


@pytest.mark.parametrize(
    ("runtime", "dueling"),
    [("numpy", False), ("numpy", True), ("onnx", False)],
    ids=["mlp", "dueling", "onnx"],
)
def test_a_channels_first_image_and_several_images_round_trip(
    runtime: str, dueling: bool, tmp_path: Path
) -> None:
    spaces = Spaces(obs_shape=(SEVERAL.dim,), n_actions=3, obs_parts=SEVERAL)
    agent = _spread(DqnConfig(encoder=ENCODER, hidden=HIDDEN, dueling=dueling).build(spaces, 0), SEVERAL)
    agent.eval()
    assert [p.channels_first for p in SEVERAL.images] == [True, False]
    policy = _load(runtime, agent, tmp_path, SEVERAL)
    _assert_acts_as_the_agent(policy, agent, SEVERAL)
    obs, _ = _observations(SEVERAL)
    for key in ("depth", "camera"):  # each image counts: other pixels, other values
        other = {**obs, key: 255 - obs[key]}
        assert np.abs(policy.values(other) - policy.values(obs)).max() > 1e-4


def test_a_masked_policy_reads_its_flags_from_the_observation_not_the_features(tmp_path: Path) -> None:
    parts = ObsParts.of({"image": (36, 36, 1), "action_mask": (3,)}, images=["image"])
    spaces = Spaces(obs_shape=(parts.dim,), n_actions=3, obs_parts=parts)
    agent = _spread(DqnConfig(encoder=ENCODER, hidden=HIDDEN).build(spaces, 0), parts)
    agent.eval()
    policy = NumpyPolicy.load(export_numpy(agent, tmp_path))
    assert (json.loads((tmp_path / "policy.json").read_text())["version"], policy.action_mask) == (
        5,
        (1296, 1299),
    )
    obs, flat = _observations(parts)
    obs["action_mask"] = np.random.default_rng(1).integers(0, 2, size=(len(flat), 3)).astype(np.float32)
    obs["action_mask"][:, 2] = 1.0  # every observation allows an action
    flat = parts.flatten(obs, (len(flat),))
    got = policy.act(obs)
    assert (got == np.stack(agent.sample_batch(list(flat)))).all()
    assert (obs["action_mask"][np.arange(len(got)), got] == 1.0).all()
    assert (policy.values(obs).argmax(axis=1) != got).any()  # the mask changed some actions


def test_the_file_is_version_5_and_states_the_images(tmp_path: Path) -> None:
    path = export_numpy(_agent("sac")[0], tmp_path)
    spec = json.loads((path / "policy.json").read_text())
    assert (spec["version"], spec["obs_shape"]) == (5, [36 * 36 + 1])
    assert spec["obs_parts"] == [
        {"key": "image", "shape": [36, 36, 1], "image": True},
        {"key": "offset", "shape": [1]},
    ]
    (entry,) = spec["network"]["inputs"]
    assert (entry["key"], entry["channels_last"], entry["linear"]) == (
        "image",
        True,
        ["inputs.0.linear.weight", "inputs.0.linear.bias"],
    )
    assert [layer["stride"] for layer in entry["conv"]["layers"]] == [4, 2, 1]
    with np.load(path / "weights.npz") as npz:
        assert npz["inputs.0.conv.0.weight"].shape == (32, 1, 8, 8)
        assert npz["inputs.0.linear.weight"].shape == (64, 8)  # 64 maps of 1x1 in, the image's features out
        assert npz["mlp.0.weight"].shape == (8 + 1, 16)  # the image's features, then the offset
    assert NumpyPolicy.load(path).in_dim == 9


def test_a_version_5_file_without_inputs_acts_as_version_3(tmp_path: Path) -> None:
    agent = DqnConfig(hidden=(8,)).build(Spaces(obs_shape=(4,), n_actions=2), 0)
    spec = json.loads((export_numpy(agent, tmp_path) / "policy.json").read_text())
    assert spec["version"] == 3  # no images: the version older readers read
    obs = np.random.default_rng(0).normal(size=(50, 4)).astype(np.float32)
    before = NumpyPolicy.load(tmp_path).values(obs)
    (tmp_path / "policy.json").write_text(json.dumps({**spec, "version": 5}))
    np.testing.assert_array_equal(NumpyPolicy.load(tmp_path).values(obs), before)


def test_obs_parts_other_than_the_encoders_are_refused(tmp_path: Path) -> None:
    agent, _ = _agent("dqn")
    swapped = ObsParts.of({"offset": (1,), "image": (36, 36, 1)}, images=["image"])
    with pytest.raises(
        ValueError, match=r"obs_parts \['offset', 'image'\] are not the parts the agent's encoder"
    ):
        export_numpy(agent, tmp_path, obs_parts=swapped)
    unmarked = ObsParts.of({"image": (36, 36, 1), "offset": (1,)})  # the same layout: the encoder marks it
    spec = json.loads((export_numpy(agent, tmp_path, obs_parts=unmarked) / "policy.json").read_text())
    assert spec["obs_parts"][0]["image"] is True


def _entry(**changes: object) -> Callable[[dict[str, Any]], None]:
    def edit(spec: dict[str, Any]) -> None:
        spec["network"]["inputs"][0].update(changes)

    return edit


def _conv(**changes: object) -> Callable[[dict[str, Any]], None]:
    def edit(spec: dict[str, Any]) -> None:
        spec["network"]["inputs"][0]["conv"]["layers"][0].update(changes)

    return edit


HOSTILE: list[tuple[Callable[[dict[str, Any]], None], str]] = [
    (lambda s: s.update(version=4), r": 'network.inputs' came in version 5, the file is version 4$"),
    (
        lambda s: s["network"].update(inputs={"image": {}}),
        r"network.inputs must be a list of 1 entries, one per",
    ),
    (lambda s: s["network"].update(inputs=[]), r"network.inputs must be a list of 1 entries"),
    (
        _entry(key="offset"),
        r"network.inputs\[0\].key must be 'image', the image parts' keys in order, got 'off",
    ),
    (lambda s: s["network"].update(inputs=["image"]), r"network.inputs\[0\].key must be 'image'"),
    (_entry(channels_last="yes"), r"network.inputs\[0\] must be \{key, channels_last: bool, conv, linear\}"),
    (
        _entry(channels_last=False),
        r"network.inputs\[0\].conv.layers\[0\]: weight \(32, 1, 8, 8\) .* \(out, 36, kh",
    ),
    (_entry(conv=None), r"network.inputs\[0\].conv must be \{layers, divide_by\}$"),
    (
        _entry(conv={"layers": 3, "divide_by": 255.0}),
        r"network.inputs\[0\].conv.layers must be a list, got 3",
    ),
    (_conv(stride=0), r"network.inputs\[0\].conv.layers\[0\]: a 8x8 filter of stride 0 on 36x36 inputs"),
    (_conv(weight="inputs.0.linear.weight"), r"array 'inputs.0.linear.weight' must be .* 4 dimension\(s\)"),
    (_entry(linear=["inputs.0.linear.weight"]), r"network.inputs\[0\].linear must be \[weight, bias\] names"),
    (
        _entry(linear=["mlp.0.weight", "mlp.0.bias"]),
        r"network.inputs\[0\].linear must be \(64, out\) and \(out,\)",
    ),
    (_entry(linear=["nothing", "inputs.0.linear.bias"]), r"array 'nothing' is not in weights.npz"),
    (lambda s: s.pop("obs_parts"), r"network.inputs needs obs_parts with the images it reads$"),
    (lambda s: s["obs_parts"][0].pop("image"), r"network.inputs needs obs_parts with the images it reads$"),
    (
        lambda s: s["obs_parts"][0].update(image=1),
        r"'obs_parts' must be a list of \{key: string, .* image: optional",
    ),
    (
        lambda s: s["obs_parts"][1].update(image=True),
        r"'obs_parts': dict observation part 'offset': an image is 3-d",
    ),
    (
        lambda s: s["network"].update(obs_norm={"mean": "mlp.0.bias", "std": "mlp.0.bias", "clip": None}),
        r"network.obs_norm must be null with network.inputs$",
    ),
    (lambda s: s.update(kind="lstm"), r"network.lstm must be \{layers: "),
]


@pytest.fixture(scope="module")
def td3_export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A TD3 policy's files, written once: each test edits a copy."""
    return export_numpy(_agent("td3")[0], tmp_path_factory.mktemp("td3"))


@pytest.mark.parametrize(("edit", "message"), HOSTILE)
def test_a_corrupt_inputs_entry_is_refused_naming_the_field(
    edit: Callable[[dict[str, Any]], None], message: str, td3_export: Path, tmp_path: Path
) -> None:
    shutil.copy(td3_export / "weights.npz", tmp_path)
    spec = json.loads((td3_export / "policy.json").read_text())
    NumpyPolicy.load(td3_export)  # the file as written reads
    edit(spec)
    (tmp_path / "policy.json").write_text(json.dumps(spec))
    with pytest.raises(PolicyFileError, match=message):
        NumpyPolicy.load(tmp_path)
