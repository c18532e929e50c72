"""The encoders' configs (the Nature CNN for frames, the multi-input encoder for a dict observation with
images), apart from their networks (`border_py.agents.cnn`, `border_py.agents.multi_input`) so that an
agent's config, and an experiment read from YAML, import no torch: a network's module is imported when it
is built."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

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


def build_encoder(
    config: MultiInputConfig | None, obs_dim: int, parts: ObsParts | None
) -> MultiInputEncoder | None:
    """A fresh encoder of an env's dict observation with images, as an agent's ``encoder`` field asks
    (``None``: none): each network that takes observations builds its own, in its agent's ``seeded``
    block (the online actor-critics' and the offline agents' networks).

    Raises:
        ValueError: as `MultiInputConfig.build`.
    """
    return None if config is None else config.build((obs_dim,), parts)


def without_normalize_obs(instance: Any, attribute: attrs.Attribute[Any], value: object) -> None:
    """The ``encoder`` field's validator in a config with ``normalize_obs`` (the offline agents'): the two
    together are refused, as the exported policy has no normalisation in front of an encoder.

    Raises:
        ValueError: ``value`` is an encoder and ``instance.normalize_obs`` is set.
    """
    if value is not None and instance.normalize_obs:
        raise ValueError(
            "normalize_obs is for flat observations: an encoder scales pixels itself (set "
            "normalize_obs: false with an encoder)"
        )
