"""A greedy policy stated as `MlpParts` (``head(mlp(normalise(obs)))``, as every agent whose greedy
policy is one MLP states it: PPO, SAC, TD3, plain DQN, BC, IQL, AWAC, CQL, TD3+BC) written out: as a torch
module for ONNX (`MlpGreedy`, a pixel policy's `ConvFront` or a dict observation's `MultiInputFront` first)
and as the ``network`` and ``action`` entries of an ``mlp`` policy's ``policy.json`` (`mlp_spec`; the
exporter adds the front).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from border_py.agents.greedy import F32, MlpParts
from border_py.export.conv_front import front_module


class MlpGreedy(nn.Module):
    """`MlpParts` as a torch module (for ONNX): ``obs -> (scores, action)`` for ``argmax``,
    ``obs -> action`` otherwise (``obs``: uint8 frames for a pixel policy; with ``inputs``, the flat dict
    observation)."""

    mean: torch.Tensor
    std: torch.Tensor
    low: torch.Tensor
    high: torch.Tensor

    def __init__(self, parts: MlpParts) -> None:
        super().__init__()
        if parts.lstm is not None:  # its memory would be dropped without a word
            raise ValueError("MlpGreedy takes no lstm: a policy with memory is LstmGreedy's")
        self.parts = parts
        self.front = front_module(parts.conv, parts.inputs)
        self.norm = parts.obs_mean is not None
        if self.norm:
            self.register_buffer("mean", torch.as_tensor(parts.obs_mean))
            self.register_buffer("std", torch.as_tensor(parts.obs_std))
        self.linears = nn.ModuleList()
        for weight, bias in parts.layers:
            linear = nn.Linear(weight.shape[0], weight.shape[1])
            with torch.no_grad():
                linear.weight.copy_(torch.as_tensor(weight.T))
                linear.bias.copy_(torch.as_tensor(bias))
            self.linears.append(linear)
        if parts.head in ("tanh_box", "clip_box"):
            assert parts.low is not None
            assert parts.high is not None
            self.register_buffer("low", torch.as_tensor(parts.low))
            self.register_buffer("high", torch.as_tensor(parts.high))

    def forward(self, obs: torch.Tensor) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        x = obs if self.front is None else self.front(obs)
        if self.norm:
            x = (x - self.mean) / self.std
            if self.parts.obs_clip is not None:
                x = x.clamp(-self.parts.obs_clip, self.parts.obs_clip)
        act = torch.relu if self.parts.activation == "relu" else torch.tanh
        for i, linear in enumerate(self.linears):
            x = linear(x)
            if i < len(self.linears) - 1:
                x = act(x)
        if self.parts.head == "argmax":
            return x, x.argmax(dim=-1)
        if self.parts.clip_mean is not None:
            x = x.clamp(-self.parts.clip_mean, self.parts.clip_mean)
        if self.parts.head == "tanh_box":
            bias, scale = (self.high + self.low) / 2, (self.high - self.low) / 2
            x = bias + scale * torch.tanh(x)  # clipped below: float rounding can pass a bound
        if self.parts.head in ("tanh_box", "clip_box"):
            return torch.clamp(x, self.low, self.high)
        return x


def mlp_spec(parts: MlpParts, weights: dict[str, F32]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``network`` and ``action`` entries of an ``mlp`` policy's ``policy.json``; the arrays go into
    ``weights`` (by the names the entries hold)."""
    names = []
    for i, (w, b) in enumerate(parts.layers):
        weights[f"mlp.{i}.weight"], weights[f"mlp.{i}.bias"] = w, b
        names.append([f"mlp.{i}.weight", f"mlp.{i}.bias"])
    network: dict[str, Any] = {"layers": names, "activation": parts.activation, "obs_norm": None}
    if parts.obs_mean is not None and parts.obs_std is not None:
        weights["obs.mean"], weights["obs.std"] = parts.obs_mean, parts.obs_std
        network["obs_norm"] = {"mean": "obs.mean", "std": "obs.std", "clip": parts.obs_clip}
    out = int(parts.layers[-1][0].shape[1])
    action: dict[str, Any]
    if parts.head == "argmax":
        action = {"type": "discrete", "n": out}
    elif parts.head in ("tanh_box", "clip_box"):
        assert parts.low is not None
        assert parts.high is not None
        squash = "tanh" if parts.head == "tanh_box" else "clip"
        action = {"type": "box", "squash": squash, "low": parts.low.tolist(), "high": parts.high.tolist()}
        if parts.clip_mean is not None:  # version 6 only then
            action["clip_mean"] = parts.clip_mean
    else:
        action = {"type": "box", "squash": "none", "dim": out}
    return network, action
