"""Dict observations with images: the image parts' layout, the multi-input encoder, and which agents take
it (a CNN per image part, the flat parts beside; `border_py.agents.multi_input`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch

from border_py.agents import (
    A2cConfig,
    BcConfig,
    CrossQConfig,
    DqnConfig,
    IqnConfig,
    PpoConfig,
    QrDqnConfig,
    RecurrentPpoConfig,
    SacConfig,
    Td3Config,
    TqcConfig,
)
from border_py.agents.cnn_config import MultiInputConfig, NatureCnnConfig
from border_py.agents.multi_input import ImageFeatures, MultiInputEncoder
from border_py.base.obs_parts import ObsPart, ObsParts
from border_py.base.spaces import Spaces
from border_py.config import ConfigError, from_dict
from border_py.envs.checks import supported_spaces
from border_py.envs.gymnasium import GymEnvConfig
from tests.agents.random_buffer import random_buffer

CAMERA = ObsPart("camera", (36, 36, 3), image=True)


def _spaces(discrete: bool) -> Spaces:
    kwargs = {"discrete": True} if discrete else {}
    return GymEnvConfig(name="border_py/PixelTarget-v0", kwargs=kwargs).build(seed=0).spaces


def test_an_image_part_is_channels_last_unless_its_smallest_dimension_comes_first() -> None:
    assert not CAMERA.channels_first
    assert CAMERA.channels_first_shape == (3, 36, 36)
    first = ObsPart("camera", (3, 36, 36), image=True)
    assert first.channels_first
    assert first.channels_first_shape == (3, 36, 36)
    with pytest.raises(ValueError, match="'speed' is not an image"):
        _ = ObsPart("speed", (2,)).channels_first_shape
    with pytest.raises(ValueError, match="part 'camera': an image is 3-d"):
        ObsParts.of({"camera": (36, 36)}, images=["camera"])


def test_dict_spaces_mark_their_0_255_uint8_images_and_refuse_other_uint8_volumes() -> None:
    act = gym.spaces.Discrete(2)
    image = gym.spaces.Box(0, 255, (36, 36, 3), np.uint8)
    parts = supported_spaces(
        "E", gym.spaces.Dict({"camera": image, "speed": gym.spaces.Box(-1, 1, (2,))}), act
    )
    assert parts is not None
    assert [(p.key, p.image) for p in parts.parts] == [("camera", True), ("speed", False)]
    assert parts.dim == 36 * 36 * 3 + 2
    counts = gym.spaces.Box(0, 9, (4, 4, 4), np.uint8)
    with pytest.raises(TypeError, match="'counts' is uint8 \\(4, 4, 4\\) but not an image of 0-255"):
        supported_spaces("E", gym.spaces.Dict({"counts": counts}), act)


def test_the_env_hands_the_image_laid_flat_as_pixel_values() -> None:
    env = GymEnvConfig(name="border_py/PixelTarget-v0").build(seed=0)
    obs = env.reset()
    parts = env.spaces.obs_parts
    assert parts is not None
    assert [p.key for p in parts.images] == ["image"]
    image = parts.part(obs, "image")
    assert image.shape == (36, 36, 1)
    assert sorted(np.unique(image).tolist()) == [0.0, 255.0]
    assert int((image == 255.0).sum()) == 36  # one lit column


def test_the_encoder_puts_each_image_through_its_cnn_and_the_flat_parts_beside_in_order() -> None:
    parts = ObsParts.of({"speed": (2,), "camera": (36, 36, 3), "goal": (1,)}, images=["camera"])
    torch.manual_seed(0)
    encoder = MultiInputEncoder(parts, image_features=8)
    assert encoder.out_features == 2 + 8 + 1
    obs = torch.rand(5, parts.dim) * 255.0
    features = encoder(obs)
    assert features.shape == (5, 11)
    assert torch.equal(features[:, :2], obs[:, :2])
    assert torch.equal(features[:, 10:], obs[:, -1:])
    # By hand: the pixels in (channels, height, width), scaled to [0, 1], the CNN, the linear layer, ReLU.
    image = obs[:, 2:-1].reshape(5, 36, 36, 3).permute(0, 3, 1, 2) / 255.0
    layer = encoder.images[0]
    assert isinstance(layer, ImageFeatures)
    by_hand = torch.relu(layer.linear(layer.cnn(image)))
    torch.testing.assert_close(features[:, 2:10], by_hand)
    assert encoder(obs.reshape(5, 1, -1)).shape == (5, 1, 11)  # any leading dimensions


def test_a_channels_first_image_gives_the_features_of_the_same_picture_channels_last() -> None:
    last = MultiInputEncoder(ObsParts.of({"c": (36, 36, 3)}, images=["c"]), image_features=4)
    first = MultiInputEncoder(ObsParts.of({"c": (3, 36, 36)}, images=["c"]), image_features=4)
    first.load_state_dict(last.state_dict())
    picture = torch.randint(0, 256, (2, 36, 36, 3)).float()
    from_last = last(picture.reshape(2, -1))
    from_first = first(picture.permute(0, 3, 1, 2).reshape(2, -1))
    torch.testing.assert_close(from_last, from_first)


def test_the_encoder_refuses_parts_without_images_and_images_too_small_naming_the_part() -> None:
    with pytest.raises(ValueError, match="parts \\['speed'\\] are flat"):
        MultiInputEncoder(ObsParts.of({"speed": (2,)}))
    with pytest.raises(ValueError, match="part 'tiny': frames of \\(1, 8, 8\\) are too small"):
        MultiInputEncoder(ObsParts.of({"tiny": (8, 8, 1)}, images=["tiny"]))
    parts = ObsParts.of({"a.b": (36, 36, 1), "c": (1,)}, images=["a.b"])  # a dotted key is fine
    assert MultiInputEncoder(parts, 4).out_features == 5


def test_each_encoder_config_refuses_the_other_kind_of_observation() -> None:
    parts = ObsParts.of({"camera": (36, 36, 1)}, images=["camera"])
    with pytest.raises(ValueError, match="observation is a dict \\(use \\{kind: multi_input\\}"):
        NatureCnnConfig().build((parts.dim,), parts)
    with pytest.raises(ValueError, match="an array of shape \\(4, 84, 84\\)"):
        MultiInputConfig().build((4, 84, 84))
    with pytest.raises(ConfigError, match="image_features"):
        from_dict(SacConfig, {"encoder": {"kind": "multi_input", "image_features": 0}})
    config = from_dict(DqnConfig, {"encoder": {"kind": "multi_input", "image_features": 32}})
    assert config.encoder == MultiInputConfig(image_features=32)


@pytest.mark.parametrize(
    ("config", "discrete"),
    [
        (DqnConfig(), True),
        (QrDqnConfig(), True),
        (IqnConfig(), True),
        (PpoConfig(), True),
        (A2cConfig(), False),
        (SacConfig(), False),
        (TqcConfig(), False),
        (CrossQConfig(), False),
        (Td3Config(), False),
        (BcConfig(), False),
        (RecurrentPpoConfig(), True),
    ],
    ids=lambda c: type(c).__name__ if not isinstance(c, bool) else "",
)
def test_an_agent_without_an_encoder_refuses_images_naming_the_part(config: Any, discrete: bool) -> None:
    with pytest.raises(
        TypeError, match="part 'image' is an image \\(36, 36, 1\\); give the agent an encoder"
    ):
        config.build(_spaces(discrete), 0)


ENCODER = MultiInputConfig(image_features=16)


@pytest.mark.parametrize(
    ("config", "discrete"),
    [
        (DqnConfig(encoder=ENCODER, hidden=(16,)), True),
        (DqnConfig(encoder=ENCODER, hidden=(16,), dueling=True), True),
        (QrDqnConfig(encoder=ENCODER, hidden=(16,)), True),
        (IqnConfig(encoder=ENCODER, hidden=(16,)), True),
        (PpoConfig(encoder=ENCODER, hidden=(16,)), True),
        (A2cConfig(encoder=ENCODER, hidden=(16,)), False),
        (SacConfig(encoder=ENCODER, actor_hidden=(16,), critic_hidden=(16,)), False),
        (SacConfig(encoder=ENCODER, actor_hidden=(16,), critic_hidden=(16,), gsde=True), False),
        (TqcConfig(encoder=ENCODER, actor_hidden=(16,), critic_hidden=(16,)), False),
        (CrossQConfig(encoder=ENCODER, actor_hidden=(16,), critic_hidden=(16,)), False),
        (Td3Config(encoder=ENCODER, actor_hidden=(16,), critic_hidden=(16,)), False),
    ],
    ids=lambda c: type(c).__name__ if not isinstance(c, bool) else "",
)
def test_an_agent_with_the_encoder_acts_on_the_image_and_saves_and_loads_it(
    config: Any, discrete: bool, tmp_path: Path
) -> None:
    spaces = _spaces(discrete)
    agent = config.build(spaces, 0)
    agent.eval()
    obs = np.zeros((3, spaces.obs_dim), np.float32)
    assert spaces.obs_parts is not None
    image = spaces.obs_parts.span("image")
    obs[:, image] = np.random.default_rng(0).integers(0, 256, (3, image.stop - image.start))
    before = np.asarray(agent.sample_batch(list(obs)))
    agent.save_params(tmp_path)
    other = config.build(spaces, 1)  # other initial weights, then the saved ones
    other.load_params(tmp_path)
    other.eval()
    np.testing.assert_array_equal(np.asarray(other.sample_batch(list(obs))), before)
    # The images move the outputs: the encoder's CNN is on the path (not pixels through an MLP unread).
    modules = [m for m in _networks(agent) if isinstance(m, MultiInputEncoder)]
    assert modules, "the agent's networks hold no multi-input encoder"


def _networks(agent: Any) -> list[torch.nn.Module]:
    import attrs

    nets = [getattr(agent.parts, f.name) for f in attrs.fields(type(agent.parts))]
    return [m for part in nets if hasattr(part, "net") for m in part.net.modules()]


def test_sac_trains_its_policy_and_critic_encoders_each_its_own() -> None:
    spaces = _spaces(discrete=False)
    agent = SacConfig(encoder=ENCODER, actor_hidden=(16,), critic_hidden=(16,), batch_size=8).build(spaces, 0)
    actor_cnn, critic_cnn = agent.parts.actor.net.encoder, agent.parts.critic.net.encoder
    assert actor_cnn is not None
    assert critic_cnn is not None
    assert actor_cnn is not critic_cnn
    buffer = random_buffer(
        16,
        lambda rng: rng.uniform(-1, 1, 1).astype(np.float32),
        sample_obs=lambda rng: rng.integers(0, 256, spaces.obs_dim).astype(np.float32),  # pixel values
    )
    before = [p.detach().clone() for p in (*actor_cnn.parameters(), *critic_cnn.parameters())]
    agent.train()
    assert agent.opt(buffer) is not None
    after = [*actor_cnn.parameters(), *critic_cnn.parameters()]
    n_actor = len(list(actor_cnn.parameters()))
    assert any(not torch.equal(a, b) for a, b in zip(before[:n_actor], after[:n_actor], strict=True))
    assert any(not torch.equal(a, b) for a, b in zip(before[n_actor:], after[n_actor:], strict=True))
