"""A recurrent PPO policy exported with its memory (the ``lstm`` kind): the numpy and ONNX policies, stepped
over episodes with the caller clearing a lane's memory at its episode's start, act as the agent does in
eval mode (discrete, masked and box actions, observations normalised, a dict observation); the numpy LSTM
step is torch's; the memoryless calls, memories of another shape and malformed files are refused."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
import torch

from border_py.agents import RecurrentPpo, RecurrentPpoConfig
from border_py.agents.greedy import lstm_parts
from border_py.base import ObsParts, Spaces
from border_py.export import NumpyPolicy, OnnxPolicy, PolicyFileError, export_numpy, export_onnx
from border_py.export.numpy_lstm import NumpyLstm
from tests.unit.test_export import _assert_close

SPACES = {
    "discrete": Spaces(obs_shape=(3,), n_actions=4),
    "masked": Spaces(
        obs_shape=(6,), n_actions=3, obs_parts=ObsParts.of({"features": (3,), "action_mask": (3,)})
    ),
    "box": Spaces(obs_shape=(3,), action_low=[-1.0, 0.0], action_high=[1.0, 2.0]),
}
STEPS, LANES = 30, 3
STARTS = {10: [False, True, False], 20: [False, False, True], 25: [True, False, False]}
"""Where a lane's episode starts again (every lane starts at step 0)."""

Array = npt.NDArray[Any]
Stepper = Callable[[Array, Array], tuple[Array, Array]]


def _agent(kind: str) -> RecurrentPpo:
    """Two LSTM layers, observation statistics far from their start (so the normalisation and its clip
    matter), and an action layer far from its near-zero start: logits far apart, or means spread over the
    box and past it."""
    config = RecurrentPpoConfig(hidden=(16,), lstm_hidden=8, lstm_layers=2, normalize_obs=True, clip_obs=2.0)
    agent = RecurrentPpo(config, SPACES[kind], seed=0)
    rng = np.random.default_rng(1)
    dim = agent.obs_dim
    agent.obs_rms.mean, agent.obs_rms.var = rng.normal(size=dim), rng.uniform(0.2, 3.0, size=dim)
    action_net = agent.net.action_net
    with torch.no_grad():
        if agent.discrete:
            action_net.weight.mul_(300.0)
        else:  # about half the means inside the box, the others past a bound
            action_net.weight.copy_(
                torch.as_tensor(rng.normal(scale=3.0, size=tuple(action_net.weight.shape)))
            )
            low, high = SPACES["box"].action_bounds
            action_net.bias.copy_(torch.as_tensor((low + high) / 2))
    return agent


def _observations(kind: str, steps: int = STEPS, lanes: int = LANES) -> npt.NDArray[np.float32]:
    rng = np.random.default_rng(2)
    obs = rng.normal(scale=2.0, size=(steps, lanes, SPACES[kind].obs_dim)).astype(np.float32)
    if kind == "masked":  # the flags: 0 or 1, at least one legal action in each observation
        flags = rng.integers(0, 2, size=(steps, lanes, 3))
        flags[flags.sum(axis=2) == 0, rng.integers(0, 3)] = 1
        obs[:, :, 3:] = flags
    return obs


def _agent_actions(agent: RecurrentPpo, obs: Array) -> Array:
    """The agent's eval-mode actions, told of each episode start as the evaluator tells it."""
    agent.eval()
    agent.start_episodes([True] * obs.shape[1])
    actions = []
    for t in range(len(obs)):
        if t in STARTS:
            agent.start_episodes(STARTS[t])
        actions.append(np.stack(agent.sample_batch(list(obs[t]))))
    return np.stack(actions)


def _stepped(act_with_memory: Stepper, memory: Array, obs: Array) -> Array:
    """An exported policy's actions over the steps, the caller clearing a lane's memory at its start."""
    actions = []
    for t in range(len(obs)):
        if t in STARTS:
            memory = memory.copy()
            memory[:, :, STARTS[t]] = 0.0
        act, memory = act_with_memory(obs[t], memory)
        actions.append(act)
    return np.stack(actions)


def _check_same(got: Array, expected: Array, discrete: bool) -> float:
    """The same discrete actions, box ones within float rounding; the largest difference."""
    assert got.shape == expected.shape
    if discrete:
        assert (got == expected).all()
        assert len(set(expected.ravel().tolist())) > 1
        return 0.0
    _assert_close(got.reshape(-1, got.shape[-1]), expected.reshape(-1, expected.shape[-1]))
    return float(np.abs(got.astype(np.float64) - expected).max())


@pytest.mark.parametrize("kind", sorted(SPACES))
def test_the_numpy_and_onnx_exports_act_as_the_agent_across_episode_starts(kind: str, tmp_path: Path) -> None:
    agent = _agent(kind)
    obs = _observations(kind)
    expected = _agent_actions(agent, obs)
    if kind == "box":
        low, high = SPACES["box"].action_bounds
        assert ((expected < low) | (expected > high)).any()  # means past the box: the export clips them
        assert (
            (expected > low) & (expected < high)
        ).mean() > 0.25  # and many within it, compared as they are
        expected = np.clip(expected, low, high)  # as the env clips PPO's actions
    if kind == "masked":
        assert (np.take_along_axis(obs[:, :, 3:], expected[..., None], axis=2) == 1).all()
    export_numpy(agent, tmp_path)
    export_onnx(agent, tmp_path)
    numpy_policy, onnx_policy = NumpyPolicy.load(tmp_path), OnnxPolicy.load(tmp_path)
    assert numpy_policy.kind == "lstm"
    assert numpy_policy.recurrent
    assert onnx_policy.recurrent
    for policy in (numpy_policy, onnx_policy):
        got = _stepped(policy.act_with_memory, policy.initial_memory(LANES), obs)
        _check_same(got, expected, agent.discrete)


def test_a_lane_acts_alone_as_in_a_batch_and_one_observation_is_one_lane(tmp_path: Path) -> None:
    agent = _agent("box")
    policy = NumpyPolicy.load(export_numpy(agent, tmp_path))
    obs = _observations("box")
    batch = _stepped(policy.act_with_memory, policy.initial_memory(LANES), obs)
    for lane in range(LANES):
        memory = policy.initial_memory()
        for t in range(len(obs)):
            if STARTS.get(t, [False] * LANES)[lane]:
                memory = policy.initial_memory()
            act, memory = policy.act_with_memory(obs[t, lane], memory)
            assert act.shape == (2,)
            assert memory.shape == (2, 2, 1, 8)
            assert (act == batch[t, lane]).all()  # bit for bit: each lane's products on their own


def test_the_numpy_lstm_step_is_torchs_over_a_sequence() -> None:
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(4, 6, 3)
    x = torch.randn(20, 5, 4) * 3.0
    start = torch.randn(2, 3, 5, 6)
    with torch.no_grad():
        y, (h, c) = lstm(x, (start[0], start[1]))
    numpy_lstm = NumpyLstm(lstm_parts(lstm).layers)
    memory = start.numpy()
    for t in range(20):
        out, after = numpy_lstm.step(x[t].numpy(), memory)
        assert np.abs(out - y[t].numpy()).max() < 1e-5
        memory, previous = after, memory
        assert not np.shares_memory(memory, previous)
    assert np.abs(memory - torch.stack((h, c)).numpy()).max() < 1e-5


def test_the_memoryless_calls_and_memories_of_another_shape_are_refused(tmp_path: Path) -> None:
    agent = _agent("discrete")
    export_numpy(agent, tmp_path)
    export_onnx(agent, tmp_path)
    obs = np.zeros((2, 3), np.float32)
    for policy in (NumpyPolicy.load(tmp_path), OnnxPolicy.load(tmp_path)):
        with pytest.raises(TypeError, match=r"act\(\) has no memory.*act_with_memory\(obs, memory\)"):
            policy.act(obs)
        with pytest.raises(TypeError, match=r"values\(\) has no memory.*act_with_memory"):
            policy.values(obs)
        with pytest.raises(
            ValueError, match=r"a memory of 2 lane\(s\) is .* \(2, 2, 2, 8\).*got shape \(2, 2, 3, 8\)"
        ):
            policy.act_with_memory(obs, policy.initial_memory(3))
    memoryless = NumpyPolicy.load(export_numpy(_plain_ppo(), tmp_path / "ppo"))
    assert not memoryless.recurrent
    with pytest.raises(TypeError, match=r"no memory; use act\(\)"):
        memoryless.act_with_memory(obs, np.zeros((2, 1, 2, 8), np.float32))


def _plain_ppo() -> Any:
    from border_py.agents import PpoConfig

    return PpoConfig(hidden=(8,)).build(SPACES["discrete"], 0)


def test_the_file_states_the_lstm_and_a_malformed_one_is_refused_naming_it(tmp_path: Path) -> None:
    path = export_numpy(_agent("discrete"), tmp_path)
    spec = json.loads((path / "policy.json").read_text())
    assert spec["kind"] == "lstm"
    assert spec["version"] == 3  # a reader that does not know the kind refuses it: no new version
    assert spec["network"]["lstm"]["layers"][1] == {
        "weight_ih": "lstm.1.weight_ih", "weight_hh": "lstm.1.weight_hh",
        "bias_ih": "lstm.1.bias_ih", "bias_hh": "lstm.1.bias_hh",
    }  # fmt: skip
    masked = json.loads((export_numpy(_agent("masked"), tmp_path / "masked") / "policy.json").read_text())
    assert (masked["version"], masked["action"]["mask"]) == (4, [3, 6])
    with np.load(path / "weights.npz") as npz:
        weights = {name: npz[name] for name in npz.files}
    assert weights["lstm.0.weight_ih"].shape == (3, 32)  # (in, 4 hidden): torch's transposed
    lstm = spec["network"]["lstm"]
    for change, message in (
        ({"lstm": None}, "network.lstm must be"),
        ({"lstm": {"layers": [{**lstm["layers"][0], "bias_hh": "nowhere"}]}}, "'nowhere' is not in"),
        ({"lstm": {"layers": lstm["layers"][1:]}}, r"layers\[0\] takes 3 inputs.*weight_ih \(8, 32\)"),
    ):
        with pytest.raises(PolicyFileError, match=message):
            NumpyPolicy({**spec, "network": {**spec["network"], **change}}, weights)
    conv = {"layers": [{"weight": "conv.0.weight", "bias": "conv.0.bias", "stride": 1}], "divide_by": 255.0}
    frames = {"conv.0.weight": np.ones((2, 3, 1, 1), np.float32), "conv.0.bias": np.zeros(2, np.float32)}
    # A front's features, not the observation, go into the LSTM: here 2 of them, for an LSTM of 3 inputs.
    with pytest.raises(PolicyFileError, match=r"network\.lstm\.layers\[0\] takes 2 inputs"):
        NumpyPolicy(
            {**spec, "obs_shape": [3, 1, 1], "network": {**spec["network"], "conv": conv}},
            {**weights, **frames},
        )
    with pytest.raises(PolicyFileError, match="takes 5 inputs, the LSTM gives 8"):
        NumpyPolicy(spec, {**weights, "mlp.0.weight": np.zeros((5, 16), np.float32)})


def test_a_dict_policy_with_memory_takes_the_dict_observation(tmp_path: Path) -> None:
    agent = _agent("masked")
    parts = SPACES["masked"].obs_parts
    assert parts is not None
    obs = _observations("masked")
    expected = _agent_actions(agent, obs)
    export_numpy(agent, tmp_path, obs_parts=parts)
    export_onnx(agent, tmp_path, obs_parts=parts)
    for policy in (NumpyPolicy.load(tmp_path), OnnxPolicy.load(tmp_path)):

        def act_with_memory(
            x: Array, memory: Array, policy: NumpyPolicy | OnnxPolicy = policy
        ) -> tuple[Array, Array]:
            return policy.act_with_memory({"features": x[:, :3], "action_mask": x[:, 3:]}, memory)

        assert policy.obs_parts is not None
        got = _stepped(act_with_memory, policy.initial_memory(LANES), obs)
        _check_same(got, expected, discrete=True)
