"""A greedy policy with memory (`MlpParts` with an ``lstm``: recurrent PPO's) written out: the
``network.lstm`` entry of an ``lstm`` policy's ``policy.json`` (`lstm_spec`; `mlp_spec` writes the rest)
and a torch module for ONNX, ``(obs, memory) -> (..., memory_after)`` (`LstmGreedy`).
"""

from __future__ import annotations

from typing import Any

import attrs
import torch
from torch import nn

from border_py.agents.greedy import F32, LstmParts, MlpParts
from border_py.export.conv_front import front_module
from border_py.export.mlp_parts import MlpGreedy


def lstm_spec(lstm: LstmParts, weights: dict[str, F32]) -> dict[str, Any]:
    """``network.lstm`` of an ``lstm`` policy's ``policy.json``: each layer's four arrays by name
    (``lstm.{k}.weight_ih``, ...), which go into ``weights``."""
    layers = []
    for k, arrays in enumerate(lstm.layers):
        names = {kind: f"lstm.{k}.{kind}" for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")}
        weights.update(zip(names.values(), arrays, strict=True))
        layers.append(names)
    return {"layers": layers}


class LstmGreedy(nn.Module):
    """`MlpParts` with an ``lstm`` as a torch module (for ONNX): ``(obs (n, obs_dim), memory (2, layers, n,
    hidden)) -> (values, action, memory_after)`` for ``argmax``, ``-> (action, memory_after)`` otherwise;
    with a front (``conv``: ``obs`` uint8 frames; ``inputs``: the flat dict observation), the LSTM takes its
    features.

    The LSTM is written gate by gate, as docs/export-format.md states it and `border_py.export.numpy_lstm`
    computes it, rather than as ``nn.LSTM``, so the ONNX graph holds that arithmetic and not an exporter's
    rendering of torch's fused kernel.
    """

    mean: torch.Tensor
    std: torch.Tensor

    def __init__(self, parts: MlpParts) -> None:
        super().__init__()
        if parts.lstm is None:
            raise ValueError("LstmGreedy needs MlpParts with an lstm (MlpGreedy serves the others)")
        self.front = front_module(parts.conv, parts.inputs)
        self.clip = parts.obs_clip
        self.norm = parts.obs_mean is not None
        if self.norm:
            self.register_buffer("mean", torch.as_tensor(parts.obs_mean))
            self.register_buffer("std", torch.as_tensor(parts.obs_std))
        self.inputs, self.recurrent = nn.ModuleList(), nn.ModuleList()
        for w_ih, w_hh, b_ih, b_hh in parts.lstm.layers:
            self.inputs.append(_linear(w_ih, b_ih))
            self.recurrent.append(_linear(w_hh, b_hh))
        # The layers after the LSTM and the head: the front and the normalisation are done here, before it.
        self.head = MlpGreedy(
            attrs.evolve(parts, obs_mean=None, obs_std=None, obs_clip=None, lstm=None, conv=None, inputs=None)
        )

    def forward(self, obs: torch.Tensor, memory: torch.Tensor) -> tuple[torch.Tensor, ...]:
        x = obs if self.front is None else self.front(obs)
        if self.norm:
            x = (x - self.mean) / self.std
            if self.clip is not None:
                x = x.clamp(-self.clip, self.clip)
        hs, cs = [], []
        for k, (inputs, recurrent) in enumerate(zip(self.inputs, self.recurrent, strict=True)):
            i, f, g, o = (inputs(x) + recurrent(memory[0, k])).chunk(4, dim=1)
            c = torch.sigmoid(f) * memory[1, k] + torch.sigmoid(i) * torch.tanh(g)
            x = torch.sigmoid(o) * torch.tanh(c)
            hs.append(x)
            cs.append(c)
        out = self.head(x)
        after = torch.stack((torch.stack(hs), torch.stack(cs)))
        return (*out, after) if isinstance(out, tuple) else (out, after)


def _linear(weight: F32, bias: F32) -> nn.Linear:
    """``x @ weight + bias`` (``weight`` ``(in, out)``) as an ``nn.Linear``."""
    linear = nn.Linear(weight.shape[0], weight.shape[1])
    with torch.no_grad():
        linear.weight.copy_(torch.as_tensor(weight.T))
        linear.bias.copy_(torch.as_tensor(bias))
    return linear
