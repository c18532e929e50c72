"""The encoders' configs (the Nature CNN for frames, the multi-input encoder for a dict observation with
images), apart from their networks (`border_py.agents.cnn`, `border_py.agents.multi_input`) so that an
agent's config, and an experiment read from YAML, import no torch: a network's module is imported when it
is built."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import attrs

from border_py.base.obs_parts import ObsParts

if TYPE_CHECKING:
    from border_py.agents.cnn import NatureCnn
    from border_py.agents.multi_input import MultiInputEncoder

__all__ = ["EncoderConfig", "MultiInputConfig", "NatureCnnConfig"]


@attrs.frozen(kw_only=True)
class NatureCnnConfig:
    """The Nature DQN's convolutions: 32 8x8 filters of stride 4, 64 4x4 of stride 2, 64 3x3 of stride 1,
    each followed by a ReLU, flattened (3,136 features for 84x84 frames). The agent's ``hidden`` layers
    follow (Nature: one of 512 units).

    Examples:
        >>> NatureCnnConfig().build((4, 84, 84)).out_features
        3136
    """

    kind: Literal["nature_cnn"] = "nature_cnn"

    def build(self, obs_shape: tuple[int, ...], parts: ObsParts | None = None) -> NatureCnn:
        """The convolutions for observations of ``obs_shape`` ``(channels, height, width)``.

        Raises:
            ValueError: ``obs_shape`` is not 3-d, or its frames are smaller than the filters cover, or the
                observation is a dict (``parts``: ``multi_input`` takes those).
        """
        from border_py.agents.cnn import NatureCnn  # torch, imported only when a network is built

        if parts is not None:
            raise ValueError(
                "encoder kind nature_cnn takes frames; the env's observation is a dict (use {kind: "
                "multi_input}, which runs a Nature CNN on each image part)"
            )
        return NatureCnn(obs_shape)


@attrs.frozen(kw_only=True)
class MultiInputConfig:
    """A dict observation with images (`border_py.base.obs_parts`): each image part through its own Nature
    CNN and a linear layer of ``image_features`` units with a ReLU, the flat parts as they are, side by
    side (Stable-Baselines3's ``MultiInputPolicy`` with its ``CombinedExtractor``). The agent's ``hidden``
    layers follow.

    Examples:
        >>> from border_py.base.obs_parts import ObsParts
        >>> parts = ObsParts.of({"camera": (36, 36, 3), "speed": (2,)}, images=["camera"])
        >>> MultiInputConfig(image_features=16).build((parts.dim,), parts).out_features
        18
    """

    kind: Literal["multi_input"] = "multi_input"
    image_features: int = attrs.field(default=256, validator=attrs.validators.gt(0))
    """The features each image part gives (SB3's ``cnn_output_dim``)."""

    def build(self, obs_shape: tuple[int, ...], parts: ObsParts | None = None) -> MultiInputEncoder:
        """The encoder of flat observations of ``parts``.

        Raises:
            ValueError: the env's observation is not a dict, its parts hold no image, or an image is
                smaller than the filters cover.
        """
        from border_py.agents.multi_input import MultiInputEncoder  # torch, imported only here

        if parts is None:
            raise ValueError(
                f"encoder kind multi_input is for dict observations with images; the env's observation is "
                f"an array of shape {obs_shape}"
            )
        return MultiInputEncoder(parts, self.image_features)


EncoderConfig = NatureCnnConfig | MultiInputConfig
"""What an agent's ``encoder`` field takes: ``{kind: nature_cnn}`` for frames, ``{kind: multi_input}``
for a dict observation with images."""
