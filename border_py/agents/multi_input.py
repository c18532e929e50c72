"""``MultiInputEncoder``: the features of a dict observation with images: a CNN per image part, the flat
parts as they are, side by side (Stable-Baselines3's ``CombinedExtractor``). Its config, which builds it,
is `border_py.agents.cnn_config.MultiInputConfig` (no torch there)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import torch
from torch import nn

from border_py.agents.cnn import NatureCnn
from border_py.base.obs_parts import ObsPart, ObsParts


def images_beside(
    parts: ObsParts, flat: torch.Tensor, images: Iterable[Callable[[torch.Tensor], torch.Tensor]]
) -> torch.Tensor:
    """Flat dict observations ``(n, parts.dim)`` as features: each part in order, an image part in
    ``(n, channels, height, width)`` (transposed where its shape is channels last) through the next of
    ``images`` (one per image part, in their order), another part as it is, side by side. The agent's
    encoder (`MultiInputEncoder`) and its exported twin for ONNX
    (`border_py.export.conv_front.MultiInputFront`) both lay their features out here.
    """
    pieces, through = [], iter(images)
    for p in parts.parts:
        where = flat[:, parts.span(p.key)]
        if p.image:
            image = where.reshape(-1, *p.shape)
            where = next(through)(image if p.channels_first else image.permute(0, 3, 1, 2))
        pieces.append(where)
    return torch.cat(pieces, dim=-1)


class ImageFeatures(nn.Module):
    """One image part's features: the Nature CNN on its pixels scaled to [0, 1], then a linear layer to
    ``features`` and a ReLU (SB3's ``NatureCNN`` with ``features_dim``).

    Examples:
        >>> part = ObsPart("camera", (36, 36, 3), image=True)
        >>> ImageFeatures(part, 16)(torch.zeros(2, 3, 36, 36)).shape
        torch.Size([2, 16])
    """

    def __init__(self, part: ObsPart, features: int) -> None:
        super().__init__()
        try:
            self.cnn = NatureCnn(part.channels_first_shape)
        except ValueError as exc:
            raise ValueError(f"dict observation part {part.key!r}: {exc}") from None
        self.linear = nn.Linear(self.cnn.out_features, features)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        """``(batch, channels, height, width)`` pixel values 0-255 to ``(batch, features)``."""
        return torch.relu(self.linear(self.cnn(image / 255.0)))


class MultiInputEncoder(nn.Module):
    """Maps flat dict observations ``(*batch, parts.dim)`` (`border_py.base.obs_parts`) to features
    ``(*batch, out_features)``: each part in order, an image through its own `ImageFeatures`, a flat part
    as it is.

    Raises:
        ValueError: the parts hold no image (an MLP takes them flat), or an image is smaller than the Nature
            CNN's filters cover (36 x 36).

    Examples:
        >>> parts = ObsParts.of({"camera": (36, 36, 1), "speed": (2,)}, images=["camera"])
        >>> encoder = MultiInputEncoder(parts, image_features=8)
        >>> encoder.out_features, encoder(torch.zeros(4, parts.dim)).shape
        (10, torch.Size([4, 10]))
    """

    def __init__(self, parts: ObsParts, image_features: int = 256) -> None:
        super().__init__()
        if not parts.images:
            raise ValueError(
                f"a multi-input encoder is for dict observations with images; the parts {list(parts.keys)} "
                "are flat (leave agent.encoder out: the MLP takes them)"
            )
        self.parts = parts
        # A list, not a ModuleDict: a key may hold a dot, which a module's name may not.
        self.images = nn.ModuleList(ImageFeatures(p, image_features) for p in parts.images)
        self.out_features = sum(image_features if p.image else p.size for p in parts.parts)
        """The length of the features."""

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """The features of ``obs``, flat dict observations of any leading dimensions."""
        lead = obs.shape[:-1]
        features = images_beside(self.parts, obs.reshape(-1, obs.shape[-1]), self.images)
        return features.reshape(*lead, self.out_features)


Encoder = NatureCnn | MultiInputEncoder
"""What an agent's network puts in front of its layers: an encoder with ``out_features``."""


class Encoded(nn.Module):
    """``net(encoder(obs))``: a network whose layers take a multi-input encoder's features (an offline
    agent's MLP policy or value network over a dict observation with images; `encoded` makes it).

    Attributes:
        encoder: the encoder, first.
        net: the layers after it.
    """

    def __init__(self, encoder: MultiInputEncoder, net: nn.Module) -> None:
        super().__init__()
        self.encoder = encoder
        self.net = net

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """``net``'s output for flat dict observations ``(batch, parts.dim)``."""
        out: torch.Tensor = self.net(self.encoder(obs))
        return out


def encoded(encoder: MultiInputEncoder | None, obs_dim: int, layers: Callable[[int], nn.Module]) -> nn.Module:
    """``layers(obs_dim)`` without an encoder (the network as it always was, its checkpoint keys
    unchanged); with one, an `Encoded` of the encoder and ``layers(encoder.out_features)``.

    Examples:
        >>> parts = ObsParts.of({"camera": (36, 36, 1), "speed": (2,)}, images=["camera"])
        >>> net = encoded(MultiInputEncoder(parts, 4), parts.dim, lambda n: nn.Linear(n, 3))
        >>> net(torch.zeros(5, parts.dim)).shape, type(encoded(None, 6, lambda n: nn.Linear(n, 3))).__name__
        (torch.Size([5, 3]), 'Linear')
    """
    if encoder is None:
        return layers(obs_dim)
    return Encoded(encoder, layers(encoder.out_features))
