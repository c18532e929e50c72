"""What an agent's greedy (eval-mode) policy is, as the agent states it for export
(`border_py.export`): its ``greedy_policy()`` returns one of

- `MlpParts`: ``head(mlp(normalise(obs)))`` as arrays; every agent whose greedy policy is one MLP (PPO,
  SAC, TD3, plain DQN and the offline agents);
- `GreedyNetwork`: a network the MLP description cannot hold (a dueling DQN, IQN), as named arrays in the
  layout the numpy policy reads and a torch module for ONNX.

Either may start with the agent's encoder, which `with_encoder` reads off it (`encoder_parts`): `ConvParts`,
a pixel policy's convolutions (the Nature CNN), or `MultiInputParts`, a dict observation's images each
through its own CNN and linear layer (`border_py.agents.multi_input`). An `MlpParts` with `LstmParts`
(`lstm_parts` reads them off an ``nn.LSTM``) is a policy with memory: recurrent PPO's, exported as the
``lstm`` kind (its LSTM after the encoder, where it has one).
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

import attrs
import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from border_py.agents.multi_input import ImageFeatures, MultiInputEncoder
from border_py.base.obs_parts import ObsParts

F32 = npt.NDArray[np.float32]
Head = Literal["argmax", "identity", "tanh_box", "clip_box"]


def f32(x: object) -> F32:
    """``x`` as a contiguous float32 array (a copy)."""
    return np.ascontiguousarray(np.array(x, dtype=np.float32))


@attrs.frozen(kw_only=True, eq=False)
class ConvParts:
    """A pixel policy's front: observations ``obs_shape`` divided by ``divide_by``, then valid (unpadded)
    2-d convolutions, a ReLU after each, flattened in (channel, row, column) order as torch's
    ``nn.Flatten``: the features the policy's layers take."""

    obs_shape: tuple[int, int, int]
    """``(channels, height, width)`` of one observation."""
    layers: list[tuple[F32, F32, int]]
    """``(weight (out, in, kh, kw), bias (out,), stride)`` per convolution: torch's ``nn.Conv2d`` layout."""
    divide_by: float = 255.0
    """The pixels are divided by it first (uint8 to [0, 1], as `border_py.agents.cnn.NatureCnn` does)."""


def conv_parts(encoder: nn.Module, obs_shape: tuple[int, ...]) -> ConvParts:
    """The convolutions of ``encoder`` (a `border_py.agents.cnn.NatureCnn`) for observations of
    ``obs_shape``, as export writes them: ``MlpParts(..., conv=conv_parts(encoder, obs_shape))`` exports
    a policy whose layers take the encoder's features.

    Raises:
        ValueError: ``obs_shape`` is not ``(channels, height, width)``, or ``encoder`` is not convolutions
            each followed by a ReLU, then a flatten (valid padding, no dilation, one group, square strides).
    """
    leaves = [m for m in encoder.modules() if not list(m.children())]
    convs = [m for m in leaves if isinstance(m, nn.Conv2d)]
    pattern = [t for _ in convs for t in (nn.Conv2d, nn.ReLU)] + [nn.Flatten]
    if len(obs_shape) != 3 or [type(m) for m in leaves] != pattern or not convs:
        raise ValueError(
            f"export takes (channels, height, width) frames through convolutions each followed by a ReLU, "
            f"then a flatten; got {obs_shape} and {encoder}"
        )
    for conv in convs:
        plain = conv.padding in ("valid", (0, 0)) and conv.dilation == (1, 1) and conv.groups == 1
        if not plain or conv.stride[0] != conv.stride[1] or conv.bias is None:
            raise ValueError(f"export takes unpadded convolutions with a bias and square strides, got {conv}")
    c, h, w = obs_shape
    return ConvParts(
        obs_shape=(c, h, w),
        layers=[
            (f32(conv.weight.detach().cpu().numpy()), f32(conv.bias.detach().cpu().numpy()), conv.stride[0])
            for conv in convs
            if conv.bias is not None
        ],
    )


@attrs.frozen(kw_only=True, eq=False)
class ImageParts:
    """One image part of a dict observation through its CNN: its flat pixels in the part's shape (channels
    first: transposed from ``(height, width, channels)`` where ``channels_last``), `ConvParts`, then one
    linear layer and a ReLU (`border_py.agents.multi_input.ImageFeatures`)."""

    key: str
    """The part's key in the dict observation."""
    channels_last: bool
    """The part's shape is ``(height, width, channels)``: its pixels are transposed to ``(channels, height,
    width)`` before the convolutions (``False``: the part is ``(channels, height, width)`` already)."""
    conv: ConvParts
    """The convolutions, over the part's ``(channels, height, width)`` pixels divided by 255."""
    linear: tuple[F32, F32]
    """``(weight (conv features, out), bias (out,))``, a ReLU after it: the part's features."""


@attrs.frozen(kw_only=True, eq=False)
class MultiInputParts:
    """A dict observation's front (`border_py.agents.multi_input.MultiInputEncoder`): the flat observation's
    parts in order, each image part through its `ImageParts`, each other part as it is, side by side: the
    features the policy's layers take."""

    parts: ObsParts
    """The observation's parts, as the encoder lays them out (its images marked)."""
    images: list[ImageParts]
    """One per image part of ``parts``, in their order."""

    @property
    def out_features(self) -> int:
        """The length of the features."""
        widths = iter(int(image.linear[0].shape[1]) for image in self.images)
        return sum(next(widths) if p.image else p.size for p in self.parts.parts)


def encoder_parts(
    encoder: nn.Module | None, obs_shape: tuple[int, ...]
) -> ConvParts | MultiInputParts | None:
    """What export writes of an agent's ``encoder`` for observations of ``obs_shape``: a
    `MultiInputEncoder`'s `MultiInputParts`, another encoder's convolutions (`conv_parts`), or ``None``
    without one.

    Raises:
        ValueError: as `conv_parts`.
    """
    if encoder is None:
        return None
    if not isinstance(encoder, MultiInputEncoder):
        return conv_parts(encoder, obs_shape)
    images = []
    for part, features in zip(encoder.parts.images, encoder.images, strict=True):
        assert isinstance(features, ImageFeatures)  # for mypy: a ModuleList holds modules
        (linear,) = linear_layers(features.linear)
        conv = conv_parts(features.cnn, part.channels_first_shape)
        images.append(
            ImageParts(key=part.key, channels_last=not part.channels_first, conv=conv, linear=linear)
        )
    return MultiInputParts(parts=encoder.parts, images=images)


@attrs.frozen(kw_only=True, eq=False)
class LstmParts:
    """A recurrent policy's LSTM: torch's ``nn.LSTM`` (one direction, with biases, no projection), its
    layers stacked, each taking the ``h`` of the one before (the first: the normalised observation, or the
    encoder's features). Its
    memory is ``(2, layers, lanes, hidden)``: each layer's ``h``, then its ``c``."""

    layers: list[tuple[F32, F32, F32, F32]]
    """``(weight_ih (in, 4 hidden), weight_hh (hidden, 4 hidden), bias_ih (4 hidden,), bias_hh (4 hidden,))``
    per layer: torch's ``weight_ih_l{k}``, ``weight_hh_l{k}`` transposed (``x @ W``, as `MlpParts`' layers)
    and its biases, the four gates' columns in torch's order (input, forget, cell, output)."""

    @property
    def hidden(self) -> int:
        """The units of each layer: the size of ``h`` and ``c``."""
        return int(self.layers[0][1].shape[0])


def lstm_parts(lstm: nn.LSTM) -> LstmParts:
    """The layers of ``lstm`` as export writes them (copies): ``MlpParts(..., lstm=lstm_parts(lstm))``
    exports a policy whose layers take the LSTM's last ``h``.

    Raises:
        ValueError: ``lstm`` is bidirectional, has no biases or projects its ``h`` (``proj_size``).
    """
    if lstm.bidirectional or not lstm.bias or lstm.proj_size:
        raise ValueError(f"export takes a one-way LSTM with biases and no projection, got {lstm}")
    arrays = {name: f32(p.detach().cpu().numpy()) for name, p in lstm.named_parameters()}
    layers = []
    for k in range(lstm.num_layers):
        w_ih, w_hh = arrays[f"weight_ih_l{k}"].T.copy(), arrays[f"weight_hh_l{k}"].T.copy()
        layers.append((w_ih, w_hh, arrays[f"bias_ih_l{k}"], arrays[f"bias_hh_l{k}"]))
    return LstmParts(layers=layers)


def mask_span(mask: slice | None) -> tuple[int, int] | None:
    """An agent's ``action_mask`` slice (`border_py.base.Spaces.action_mask`) as the greedy policy's
    ``(start, stop)``."""
    return None if mask is None else (int(mask.start), int(mask.stop))


@attrs.frozen(kw_only=True, eq=False)
class MlpParts:
    """A greedy policy ``head(mlp(normalise(obs)))`` as arrays."""

    obs_mean: F32 | None
    """Subtracted from the observation (``None``: no normalisation)."""
    obs_std: F32 | None
    """The observation is divided by it."""
    obs_clip: float | None
    """The normalised observation is clipped to ``[-clip, clip]`` (``None``: not clipped)."""
    layers: list[tuple[F32, F32]]
    """``(weight (in, out), bias (out,))`` per layer; the activation follows every layer but the last."""
    activation: Literal["relu", "tanh"]
    head: Head
    """``argmax`` (discrete), ``identity`` (the output is the action), ``tanh_box`` (``bias + scale *
    tanh(out)`` within the box) or ``clip_box`` (the output clipped to the box)."""
    low: F32 | None = None
    """The box's lower bounds, with ``tanh_box`` and ``clip_box``."""
    high: F32 | None = None
    clip_mean: float | None = None
    """With ``tanh_box``: the output is clipped to ``[-clip_mean, clip_mean]`` before the tanh (SAC's gSDE
    mean, as SB3 holds it); ``None``: not clipped."""
    conv: ConvParts | None = None
    """A pixel policy's convolutions, before the layers (``obs_mean`` is then ``None``)."""
    action_mask: tuple[int, int] | None = None
    """Where the legal-action mask lies in the flat observation, ``(start, stop)``, with ``stop - start``
    the number of actions; only with head ``argmax``. The greedy action is the best legal one, the mask read
    from the observation as given, before ``obs_mean`` and ``obs_std`` (``None``: every action is legal)."""
    lstm: LstmParts | None = None
    """A policy with memory: an LSTM between the normalisation (or the front, ``conv`` or ``inputs``, whose
    features it takes) and the layers, which then take its last layer's ``h`` (``None``: no memory)."""
    inputs: MultiInputParts | None = None
    """A dict observation's images through their CNNs, before the layers (``obs_mean`` is then ``None``);
    not with ``conv``."""

    def __attrs_post_init__(self) -> None:
        if self.inputs is not None and (self.conv is not None or self.obs_mean is not None):
            raise ValueError("MlpParts: a multi-input front takes the observation as given, alone")
        if self.clip_mean is not None and self.head != "tanh_box":
            raise ValueError(f"MlpParts: clip_mean goes before a tanh_box head, not {self.head}")


def linear_layers(module: nn.Module) -> list[tuple[F32, F32]]:
    """The ``(weight (in, out), bias)`` of each linear layer of ``module``, in order (copies)."""
    return [
        (f32(layer.weight.detach().cpu().numpy().T), f32(layer.bias.detach().cpu().numpy()))
        for layer in module.modules()
        if isinstance(layer, nn.Linear)
    ]


def mean_head(layers: list[tuple[F32, F32]], act_dim: int) -> list[tuple[F32, F32]]:
    """``layers`` of a Gaussian policy whose last layer gives ``(mean, log_std)``, keeping only the mean:
    the greedy action."""
    weight, bias = layers[-1]
    return [*layers[:-1], (f32(weight[:, :act_dim]), f32(bias[:act_dim]))]


@attrs.frozen(kw_only=True, eq=False)
class GreedyNetwork:
    """A greedy policy that is not one MLP (a dueling DQN, IQN)."""

    kind: str
    """Its kind in ``policy.json`` (``dqn``, ``iqn``)."""
    network: dict[str, Any]
    """``policy.json``'s ``network`` entry: the arrays' names, by part."""
    weights: dict[str, F32]
    """The arrays, by name (``weights.npz``)."""
    action: dict[str, Any]
    """``policy.json``'s ``action`` entry."""
    module: nn.Module
    """``obs -> (values, action)`` in torch, sharing the agent's networks (for ONNX); with ``conv``, ``obs``
    is uint8 frames; with ``inputs``, the flat dict observation (its encoder included)."""
    conv: ConvParts | None = None
    """A pixel policy's convolutions, before the parts ``network`` names."""
    inputs: MultiInputParts | None = None
    """A dict observation's images through their CNNs, before the parts ``network`` names; not with
    ``conv``."""
    action_mask: tuple[int, int] | None = None
    """Where the legal-action mask lies in the flat observation, ``(start, stop)``, with ``stop - start``
    the number of actions (``None``: every action is legal); ``module`` gives the values unmasked, the
    export masks them."""

    def __attrs_post_init__(self) -> None:
        if self.conv is not None and self.inputs is not None:
            raise ValueError("GreedyNetwork: one front, a pixel policy's conv or a multi-input's inputs")


class ArrayNames:
    """Collects a network's linear layers as named arrays: ``add("trunk", seq)`` stores ``trunk.0.weight``
    (as ``(in, out)``: no transpose at each call) and ``trunk.0.bias``, ... and returns their names."""

    def __init__(self) -> None:
        self.weights: dict[str, F32] = {}

    def add(self, name: str, module: nn.Module) -> list[list[str]]:
        """Stores ``module``'s linear layers under ``name``; their ``[weight, bias]`` names, in order.

        Raises:
            ValueError: ``module`` has no linear layer.
        """
        layers = linear_layers(module)
        if not layers:
            raise ValueError(f"no linear layers in {module}")
        names = []
        for i, (weight, bias) in enumerate(layers):
            w, b = f"{name}.{i}.weight", f"{name}.{i}.bias"
            self.weights[w], self.weights[b] = weight, bias
            names.append([w, b])
        return names


GreedyPolicy = MlpParts | GreedyNetwork
"""What ``agent.greedy_policy()`` returns."""
G = TypeVar("G", MlpParts, GreedyNetwork)


def with_encoder(policy: G, encoder: nn.Module | None, obs_shape: tuple[int, ...]) -> G:
    """``policy``, whose layers take ``encoder``'s features, with the encoder in front (`encoder_parts`):
    ``conv`` for a pixel policy's convolutions, ``inputs`` for a multi-input encoder; as it is without one.

    Raises:
        ValueError: as `conv_parts`.
    """
    front = encoder_parts(encoder, obs_shape)
    if front is None:
        return policy
    if isinstance(front, ConvParts):
        return attrs.evolve(policy, conv=front)
    return attrs.evolve(policy, inputs=front)


class ArgmaxGreedy(nn.Module):
    """``obs -> (values, argmax of the values)`` over a network that gives per-action values."""

    def __init__(self, values: nn.Module) -> None:
        super().__init__()
        self.values = values

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        values: torch.Tensor = self.values(obs)
        return values, values.argmax(dim=1)
