"""A policy's front written out: a pixel policy's convolutions (`ConvParts`) and a dict observation's
images (`MultiInputParts`), as torch modules in front of the policy's layers for ONNX (`ConvFront`,
`MultiInputFront`), and as the ``network.conv`` and ``network.inputs`` entries of ``policy.json``
(`conv_spec`, `inputs_spec`)."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from border_py.agents.greedy import F32, ConvParts, MultiInputParts
from border_py.agents.multi_input import images_beside


class ConvFront(nn.Module):
    """`ConvParts` as a torch module: pixels ``(n, *obs_shape)`` (uint8) to features ``(n, features)``."""

    def __init__(self, parts: ConvParts) -> None:
        super().__init__()
        self.divide_by = parts.divide_by
        layers: list[nn.Module] = []
        for weight, bias, stride in parts.layers:
            out, c_in, kh, kw = weight.shape
            conv = nn.Conv2d(c_in, out, (kh, kw), stride=stride)
            conv.load_state_dict({"weight": torch.as_tensor(weight), "bias": torch.as_tensor(bias)})
            layers += [conv, nn.ReLU()]
        self.convs = nn.Sequential(*layers, nn.Flatten())

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        # Always divided, whatever the dtype: the format's pixels are 0-255 (NumpyPolicy divides them too).
        features: torch.Tensor = self.convs(obs.float() / self.divide_by)
        return features


class MultiInputFront(nn.Module):
    """`MultiInputParts` as a torch module: flat dict observations ``(n, parts.dim)`` (float32 pixel
    values for the images) to features ``(n, out_features)``, each image part through its convolutions
    (`ConvFront`), a linear layer and a ReLU, each other part as it is, laid out as the agent's encoder lays
    them (`border_py.agents.multi_input.images_beside`)."""

    def __init__(self, parts: MultiInputParts) -> None:
        super().__init__()
        self.parts = parts.parts
        self.images = nn.ModuleList()
        for image in parts.images:
            weight, bias = image.linear
            linear = nn.Linear(weight.shape[0], weight.shape[1])
            linear.load_state_dict({"weight": torch.as_tensor(weight.T), "bias": torch.as_tensor(bias)})
            self.images.append(nn.Sequential(ConvFront(image.conv), linear, nn.ReLU()))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return images_beside(self.parts, obs, self.images)


def front_module(conv: ConvParts | None, inputs: MultiInputParts | None) -> nn.Module | None:
    """The torch module of a policy's front: `ConvFront` of ``conv``, `MultiInputFront` of ``inputs``, or
    ``None`` without one."""
    if conv is not None:
        return ConvFront(conv)
    return None if inputs is None else MultiInputFront(inputs)


def conv_spec(parts: ConvParts, weights: dict[str, F32], prefix: str = "conv") -> dict[str, Any]:
    """The ``network.conv`` entry of ``policy.json``; the arrays go into ``weights`` as
    ``{prefix}.{i}.weight`` and ``{prefix}.{i}.bias``."""
    layers = []
    for i, (weight, bias, stride) in enumerate(parts.layers):
        w, b = f"{prefix}.{i}.weight", f"{prefix}.{i}.bias"
        weights[w], weights[b] = weight, bias
        layers.append({"weight": w, "bias": b, "stride": stride})
    return {"layers": layers, "divide_by": parts.divide_by}


def inputs_spec(parts: MultiInputParts, weights: dict[str, F32]) -> list[dict[str, Any]]:
    """The ``network.inputs`` entry of ``policy.json``, one item per image part; the arrays go into
    ``weights`` as ``inputs.{i}.conv.{j}.weight``, ``inputs.{i}.linear.weight``, ... (by the image's
    index: a key may hold any character)."""
    entries = []
    for i, image in enumerate(parts.images):
        w, b = f"inputs.{i}.linear.weight", f"inputs.{i}.linear.bias"
        weights[w], weights[b] = image.linear
        conv = conv_spec(image.conv, weights, prefix=f"inputs.{i}.conv")
        entries.append(
            {"key": image.key, "channels_last": image.channels_last, "conv": conv, "linear": [w, b]}
        )
    return entries
