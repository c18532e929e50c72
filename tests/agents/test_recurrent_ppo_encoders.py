"""Recurrent PPO with an encoder before its LSTMs (sb3-contrib's ``CnnLstmPolicy`` and
``MultiInputLstmPolicy``): the Nature CNN on a frame stack and the multi-input encoder on
``border_py/PixelTarget-v0``'s dict observation, one encoder shared by both LSTMs; a rollout and an update
train it; saved and loaded, the agent acts on with its memory; the numpy and ONNX exports hold the encoder
and act, with their memory, as the agent does across an episode start; without an encoder an image part
is refused, naming it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
import torch

from border_py import RolloutBuffer, RolloutBufferConfig, Transition
from border_py.agents import RecurrentPpo, RecurrentPpoConfig
from border_py.agents.cnn import NatureCnn
from border_py.agents.cnn_config import EncoderConfig, MultiInputConfig, NatureCnnConfig
from border_py.agents.multi_input import MultiInputEncoder
from border_py.base import Spaces
from border_py.envs.gymnasium import GymEnvConfig
from border_py.export import NumpyPolicy, OnnxPolicy, export_numpy, export_onnx

KINDS = ["nature_cnn", "multi_input"]
LANES = 2
STARTS = {4: [False, True]}
"""Where a lane's episode starts again (every lane starts at step 0)."""


def _setting(kind: str) -> tuple[EncoderConfig, Spaces]:
    if kind == "nature_cnn":
        return NatureCnnConfig(), Spaces(obs_shape=(2, 36, 36), n_actions=3)
    spaces = GymEnvConfig(name="border_py/PixelTarget-v0", kwargs={"discrete": True}).build(seed=0).spaces
    return MultiInputConfig(image_features=8), spaces


def _agent(kind: str, seed: int = 0) -> RecurrentPpo:
    encoder, spaces = _setting(kind)
    config = RecurrentPpoConfig(encoder=encoder, hidden=(8,), lstm_hidden=8, batch_size=8, n_epochs=2)
    return config.build(spaces, seed)


def _observations(kind: str, steps: int) -> npt.NDArray[np.generic]:
    """``(steps, LANES, *obs_shape)``: random frames (uint8), or PixelTarget's flat dict observations
    (random 0-255 pixels beside a random offset); each observation's pixels dimmed by its own factor, so
    that the encoder's features differ from one to the next (noise alone averages out in the filters)."""
    rng = np.random.default_rng(3)
    _, spaces = _setting(kind)
    shape = spaces.obs_shape if spaces.obs_parts is None else (spaces.obs_dim,)
    dim = rng.uniform(0.0, 1.0, (steps, LANES, *[1] * len(shape)))
    pixels = (rng.integers(0, 256, (steps, LANES, *shape)) * dim).astype(np.uint8)
    if spaces.obs_parts is None:
        return pixels
    obs = rng.uniform(-0.5, 0.5, (steps, LANES, spaces.obs_dim)).astype(np.float32)
    image = spaces.obs_parts.span("image")
    obs[..., image] = pixels[..., image]
    return obs


def _acted_rollout(agent: RecurrentPpo, kind: str, steps: int) -> RolloutBuffer:
    """A rollout acted by ``agent`` (train mode), lane 0's episode ending at step 2."""
    obs = _observations(kind, steps + 1)
    buffer = RolloutBufferConfig(n_steps=steps, num_envs=LANES).build(seed=0)
    agent.start_episodes([True] * LANES)
    for t in range(steps):
        acts = agent.sample_batch(list(obs[t]))
        ended = [t == 2 and lane == 0 for lane in range(LANES)]
        for lane in range(LANES):
            buffer.push(
                Transition(
                    obs=obs[t, lane], act=acts[lane], next_obs=obs[t + 1, lane], reward=float(t % 3),
                    is_terminated=ended[lane], is_truncated=False, discount=0.9,
                )
            )  # fmt: skip
        if any(ended):
            agent.start_episodes(ended)
    return buffer


@pytest.mark.parametrize("kind", KINDS)
def test_one_encoder_feeds_both_lstms_and_an_update_trains_it(kind: str) -> None:
    agent = _agent(kind)
    encoder = agent.net.encoder
    assert isinstance(encoder, NatureCnn if kind == "nature_cnn" else MultiInputEncoder)
    assert agent.net.lstm_pi.input_size == agent.net.lstm_vf.input_size == encoder.out_features
    # One CNN for the two LSTMs: every convolution of the network is the encoder's.
    convs = [m for m in agent.net.modules() if isinstance(m, torch.nn.Conv2d)]
    assert convs
    assert all(any(m is e for e in encoder.modules()) for m in convs)
    encoder_params = list(encoder.parameters())
    before = [p.detach().clone() for p in encoder_params]
    record = agent.opt(_acted_rollout(agent, kind, steps=8))
    assert record is not None
    assert record.get_scalar("train/n_updates") >= 2
    assert np.isfinite(record.get_scalar("train/policy_loss"))
    assert all(not torch.equal(a, b) for a, b in zip(before, encoder_params, strict=True))


@pytest.mark.parametrize("kind", KINDS)
def test_a_loaded_agent_acts_on_with_the_saved_memory(kind: str, tmp_path: Path) -> None:
    agent = _agent(kind)
    _acted_rollout(agent, kind, steps=3)  # a memory, and draws taken from the generator
    agent.save_params(tmp_path)
    loaded = _agent(kind, seed=1)  # other weights and another generator, then the saved ones
    loaded.load_params(tmp_path)
    obs = _observations(kind, 5)
    for t in range(len(obs)):  # train mode: the memories and the draws carry on as saved
        mine, theirs = loaded.sample_batch(list(obs[t])), agent.sample_batch(list(obs[t]))
        assert [int(a) for a in mine] == [int(a) for a in theirs]
    mine_memory, theirs_memory = loaded.memory(), agent.memory()
    assert mine_memory is not None
    assert theirs_memory is not None
    np.testing.assert_array_equal(mine_memory, theirs_memory)
    assert np.abs(theirs_memory).max() > 0


@pytest.mark.parametrize("kind", KINDS)
def test_the_exports_hold_the_encoder_and_act_as_the_agent_across_an_episode_start(
    kind: str, tmp_path: Path
) -> None:
    agent = _agent(kind)
    obs = _observations(kind, 7)
    net, n = agent.net, 7 * LANES
    # Logits far apart, centred on these observations: actions that differ from one observation to the
    # next, and that float rounding cannot change.
    with torch.no_grad():
        x = torch.as_tensor(obs.reshape(n, *obs.shape[2:]))
        latent, _, _ = net.act(x, net.zero_memory(2, n, agent.device))
        weight = torch.as_tensor(
            np.random.default_rng(4).normal(scale=300.0, size=net.action_net.weight.shape)
        )
        net.action_net.weight.copy_(weight)
        net.action_net.bias.copy_(-net.action_net.weight @ latent.mean(0))
    agent.eval()
    agent.start_episodes([True] * LANES)
    expected, memories = [], []
    for t in range(len(obs)):
        if t in STARTS:
            agent.start_episodes(STARTS[t])
        expected.append(np.stack(agent.sample_batch(list(obs[t]))))
        memory = agent.memory()
        assert memory is not None
        memories.append(memory)
    assert len(set(np.concatenate(expected).tolist())) > 1
    export_numpy(agent, tmp_path)
    export_onnx(agent, tmp_path)
    numpy_policy = NumpyPolicy.load(tmp_path)
    assert (numpy_policy.conv is not None) == (kind == "nature_cnn")
    assert (numpy_policy.inputs is not None) == (kind == "multi_input")
    for policy in (numpy_policy, OnnxPolicy.load(tmp_path)):
        assert policy.recurrent
        memory = policy.initial_memory(LANES)
        for t in range(len(obs)):
            if t in STARTS:
                memory = memory.copy()
                memory[:, :, STARTS[t]] = 0.0
            act, memory = policy.act_with_memory(obs[t], memory)
            np.testing.assert_array_equal(act, expected[t])
            np.testing.assert_allclose(memory, memories[t], atol=1e-5)


def test_without_an_encoder_an_image_part_is_refused_naming_it() -> None:
    _, spaces = _setting("multi_input")
    with pytest.raises(TypeError, match=r"RecurrentPpo: the observation's part 'image' is an image"):
        RecurrentPpoConfig(hidden=(8,), lstm_hidden=8).build(spaces, 0)
