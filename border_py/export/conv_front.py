"""A pixel policy's convolutions (`ConvParts`) written out: as a torch module in front of the policy's
layers for ONNX (`ConvFront`), and as the ``network.conv`` entry of ``policy.json`` (`conv_spec`)."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from border_py.agents.greedy import F32, ConvParts


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


def conv_spec(parts: ConvParts, weights: dict[str, F32]) -> dict[str, Any]:
    """The ``network.conv`` entry of ``policy.json``; the arrays go into ``weights`` as ``conv.{i}.weight``
    and ``conv.{i}.bias``."""
    layers = []
    for i, (weight, bias, stride) in enumerate(parts.layers):
        w, b = f"conv.{i}.weight", f"conv.{i}.bias"
        weights[w], weights[b] = weight, bias
        layers.append({"weight": w, "bias": b, "stride": stride})
    return {"layers": layers, "divide_by": parts.divide_by}
