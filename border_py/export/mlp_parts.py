"""The greedy policy of PPO, BC, IQL, AWAC, CQL, TD3 and TD3+BC as plain parts: observation normalisation,
an MLP, a head.

Every one of them acts, in eval mode, as ``head(mlp(normalise(obs)))``:

- PPO: ``clip((obs - mean) / sqrt(var + 1e-8), -clip_obs, clip_obs)`` with ``normalize_obs``, its policy
  network (tanh or ReLU), then the argmax of the logits or the mean action (not clipped: the env clips).
- BC, IQL, AWAC, CQL, TD3+BC: ``(obs - mean) / std`` (the dataset's statistics; the identity without), a
  ReLU MLP, then the argmax (discrete BC) or ``bias + scale * tanh(out)`` within the box (the mean of a
  Gaussian policy, or a deterministic one).

`mlp_parts` reads these from an agent; the numpy policy and the ONNX graph are both built from them.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs
import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from border_py.agents.bc import Bc
from border_py.agents.offline_base import OfflineAgent
from border_py.agents.policies import GaussianPolicy
from border_py.agents.ppo import Ppo
from border_py.agents.sac.model import GaussianActor
from border_py.agents.td3 import Td3

F32 = npt.NDArray[np.float32]
Head = Literal["argmax", "identity", "tanh_box"]


def _f32(x: object) -> F32:
    return np.ascontiguousarray(np.asarray(x, dtype=np.float32))


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
    """``argmax`` (discrete), ``identity`` (the output is the action) or ``tanh_box``."""
    low: F32 | None = None
    """The box's lower bounds, with ``tanh_box``."""
    high: F32 | None = None


def _linear_layers(module: nn.Module) -> list[tuple[F32, F32]]:
    return [
        (_f32(layer.weight.detach().cpu().numpy().T), _f32(layer.bias.detach().cpu().numpy()))
        for layer in module.modules()
        if isinstance(layer, nn.Linear)
    ]


def _ppo_parts(agent: Ppo) -> MlpParts:
    body, head = agent.net.body, agent.net.action_net
    layers = [
        (_f32(w[0].detach().cpu().numpy()), _f32(b[0].detach().cpu().numpy().reshape(-1)))
        for w, b in zip(body.weights, body.biases, strict=True)
    ]
    layers += _linear_layers(head)
    normalise = agent.config.normalize_obs
    return MlpParts(
        obs_mean=_f32(agent.obs_rms.mean) if normalise else None,
        obs_std=_f32(np.sqrt(agent.obs_rms.var + 1e-8)) if normalise else None,
        obs_clip=float(agent.config.clip_obs) if normalise else None,
        layers=layers,
        activation=agent.config.activation,
        head="argmax" if agent.discrete else "identity",
    )


def _offline_parts(agent: OfflineAgent) -> MlpParts:
    policy = agent.policy if isinstance(agent, Bc) else agent.actor  # type: ignore[attr-defined]
    net = policy.net if isinstance(policy, GaussianPolicy | GaussianActor) else policy
    scale = agent.scale
    layers = _linear_layers(net)
    if isinstance(
        policy, GaussianActor
    ):  # its last layer gives (mean, log_std): the greedy action is the mean
        assert scale is not None
        weight, bias = layers[-1]
        layers[-1] = (_f32(weight[:, : scale.dim]), _f32(bias[: scale.dim]))
    return MlpParts(
        obs_mean=_f32(agent.normalizer.mean.cpu().numpy()),
        obs_std=_f32(agent.normalizer.std.cpu().numpy()),
        obs_clip=None,
        layers=layers,
        activation="relu",
        head="argmax" if scale is None else "tanh_box",
        low=None if scale is None else _f32(scale.low),
        high=None if scale is None else _f32(scale.high),
    )


def _td3_parts(agent: Td3) -> MlpParts:
    return MlpParts(
        obs_mean=None,
        obs_std=None,
        obs_clip=None,
        layers=_linear_layers(agent.actor.net),
        activation="relu",
        head="tanh_box",
        low=_f32(agent.action_low),
        high=_f32(agent.action_high),
    )


MlpAgent = Ppo | OfflineAgent | Td3
"""The agents whose greedy policy is one MLP with a head: exported as the ``mlp`` kind."""


def mlp_parts(agent: MlpAgent) -> MlpParts:
    """The greedy policy of a PPO, BC, IQL, AWAC, CQL, TD3 or TD3+BC agent as arrays (see the module
    docstring)."""
    if isinstance(agent, Td3):
        return _td3_parts(agent)
    return _ppo_parts(agent) if isinstance(agent, Ppo) else _offline_parts(agent)


class MlpGreedy(nn.Module):
    """`MlpParts` as a torch module (for ONNX): ``obs -> (scores, action)`` for ``argmax``,
    ``obs -> action`` otherwise."""

    mean: torch.Tensor
    std: torch.Tensor
    low: torch.Tensor
    high: torch.Tensor

    def __init__(self, parts: MlpParts) -> None:
        super().__init__()
        self.parts = parts
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
        if parts.head == "tanh_box":
            assert parts.low is not None
            assert parts.high is not None
            self.register_buffer("low", torch.as_tensor(parts.low))
            self.register_buffer("high", torch.as_tensor(parts.high))

    def forward(self, obs: torch.Tensor) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        x = obs
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
        if self.parts.head == "tanh_box":
            bias, scale = (self.high + self.low) / 2, (self.high - self.low) / 2
            return bias + scale * torch.tanh(x)
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
    elif parts.head == "tanh_box":
        assert parts.low is not None
        assert parts.high is not None
        action = {"type": "box", "squash": "tanh", "low": parts.low.tolist(), "high": parts.high.tolist()}
    else:
        action = {"type": "box", "squash": "none", "dim": out}
    return network, action
