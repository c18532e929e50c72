"""Writing a trained agent's greedy policy out of torch: plain arrays (`export_numpy`) or ONNX
(`export_onnx`), and the same greedy policy as a torch module (`greedy_module`)."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from border_py.agents.dqn import Dqn
from border_py.agents.iqn import Iqn
from border_py.agents.iqn.model import sample_taus
from border_py.agents.iqn.taus import EvenTaus, FixedTaus
from border_py.agents.sac import Sac
from border_py.export.mlp_parts import MlpAgent, MlpGreedy, mlp_parts, mlp_spec
from border_py.export.numpy_policy import F32, FORMAT, SPEC_FILE, VERSION, WEIGHTS_FILE
from border_py.export.onnx_policy import ONNX_FILE

Exportable = Dqn | Iqn | Sac | MlpAgent
"""The agents whose greedy policy can be exported: DQN, IQN, SAC, PPO, BC, IQL, AWAC, CQL, TD3
and TD3+BC."""


def _check(agent: object) -> None:
    if not isinstance(agent, Dqn | Iqn | Sac | MlpAgent):
        raise TypeError(
            "export supports DQN, IQN, SAC, PPO, BC, IQL, AWAC, CQL, TD3 and TD3+BC agents, "
            f"got {type(agent).__name__}"
        )
    if isinstance(agent, Dqn | Iqn) and agent.config.encoder is not None:
        raise ValueError(
            "export supports MLP policies; this agent has a CNN encoder (its checkpoint is the model: "
            "load it with the agent's load_params)"
        )
    if isinstance(agent, Iqn) and not isinstance(agent.config.act_taus, EvenTaus | FixedTaus):
        raise ValueError(
            "an IQN policy is exported with deterministic fractions: set act_taus to EvenTaus or FixedTaus "
            f"(it is {agent.config.act_taus!r})"
        )


def _iqn_taus(agent: Iqn) -> torch.Tensor:
    """The agent's acting fractions ``(n_taus,)`` (even or fixed, checked by ``_check``)."""
    return sample_taus(agent.config.act_taus, 1, agent.generator, torch.device("cpu"))[0]


class _DqnGreedy(nn.Module):
    """DQN's Q-values and their argmax."""

    def __init__(self, agent: Dqn) -> None:
        super().__init__()
        self.net = agent.net

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        values: torch.Tensor = self.net(obs)
        return values, values.argmax(dim=1)


class _IqnGreedy(nn.Module):
    """IQN's mean quantile at its fixed acting fractions, and its argmax."""

    taus: torch.Tensor

    def __init__(self, agent: Iqn) -> None:
        super().__init__()
        self.net = agent.net
        self.register_buffer("taus", _iqn_taus(agent))

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        values = self.net(obs, self.taus.expand(obs.shape[0], -1)).mean(dim=1)
        return values, values.argmax(dim=1)


class _SquashedMean(nn.Module):
    """SAC's deterministic action ``bias + scale * tanh(mean)``, clipped to the bounds."""

    scale: torch.Tensor
    bias: torch.Tensor
    low: torch.Tensor
    high: torch.Tensor

    def __init__(self, agent: Sac) -> None:
        super().__init__()
        self.actor = agent.actor
        self.register_buffer("scale", agent.scale.detach().clone())
        self.register_buffer("bias", agent.bias.detach().clone())
        self.register_buffer("low", torch.as_tensor(agent.action_low))
        self.register_buffer("high", torch.as_tensor(agent.action_high))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        mean, _ = self.actor(obs)
        return torch.clamp(self.bias + self.scale * torch.tanh(mean), self.low, self.high)


def greedy_module(agent: Exportable) -> nn.Module:
    """The agent's eval-mode policy as a CPU torch module: ``obs (n, obs_dim) -> (values, action)`` for DQN
    and IQN, ``-> action`` for SAC. It shares the agent's networks (no copy), in eval mode."""
    _check(agent)
    module: nn.Module
    if isinstance(agent, MlpAgent):
        module = MlpGreedy(mlp_parts(agent)).to(agent.device)
    elif isinstance(agent, Dqn):
        module = _DqnGreedy(agent)
    elif isinstance(agent, Iqn):
        module = _IqnGreedy(agent)
    else:
        module = _SquashedMean(agent)
    return module.eval()


def _linears(seq: nn.Module) -> list[nn.Linear]:
    layers = [m for m in seq.modules() if isinstance(m, nn.Linear)]
    if not layers:
        raise ValueError(f"no linear layers in {seq}")
    return layers


def _spec_and_weights(agent: Exportable) -> tuple[dict[str, Any], dict[str, F32]]:
    weights: dict[str, F32] = {}

    def add(name: str, seq: nn.Module) -> list[list[str]]:
        names = []
        for i, layer in enumerate(_linears(seq)):
            w, b = f"{name}.{i}.weight", f"{name}.{i}.bias"
            # Stored (in, out): x @ w needs no transpose at every call.
            weights[w] = np.ascontiguousarray(layer.weight.detach().cpu().numpy().T, dtype=np.float32)
            weights[b] = layer.bias.detach().cpu().numpy().astype(np.float32)
            names.append([w, b])
        return names

    network: dict[str, Any]
    action: dict[str, Any]
    if isinstance(agent, MlpAgent):
        network, action = mlp_spec(mlp_parts(agent), weights)
    elif isinstance(agent, Dqn):
        net = agent.net
        network = {"trunk": add("trunk", net.net), "dueling": net.dueling}
        if net.dueling:
            network |= {"value": add("value", net.value), "advantage": add("advantage", net.advantage)}
        action = {"type": "discrete", "n": agent.n_actions}
    elif isinstance(agent, Iqn):
        n = agent.net
        network = {
            "psi": add("psi", n.psi),
            "phi": add("phi", n.phi),
            "head": add("head", n.head),
            "taus": _iqn_taus(agent).tolist(),
        }
        action = {"type": "discrete", "n": agent.n_actions}
    else:
        network = {"actor": add("actor", agent.actor.net)}
        action = {"type": "box", "low": agent.action_low.tolist(), "high": agent.action_high.tolist()}
    spec = {
        "format": FORMAT,
        "version": VERSION,
        "kind": "mlp" if isinstance(agent, MlpAgent) else type(agent).__name__.lower(),
        "obs_dim": agent.obs_dim,
        "action": action,
        "network": network,
    }
    return spec, weights


def _write_atomically(path: Path, write: Any) -> None:
    """``write(tmp_path)`` then a rename: an interrupted export leaves no half-written file."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    try:
        # mkstemp makes the file private (0600); an exported policy is for sharing, as any new file.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        write(Path(tmp))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def export_numpy(agent: Exportable, path: Path | str) -> Path:
    """Writes the agent's greedy policy to the directory ``path`` as ``policy.json`` and ``weights.npz``,
    for `border_py.export.NumpyPolicy.load`. Returns ``path``.

    Raises:
        TypeError: the agent is not a Dqn, Iqn or Sac.
        ValueError: an IQN agent acts on random fractions (``act_taus`` uniform).
    """
    _check(agent)
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    spec, weights = _spec_and_weights(agent)

    def save_npz(tmp: Path) -> None:
        with tmp.open("wb") as f:
            np.savez(f, **weights)  # type: ignore[arg-type]  # numpy's stub types **kwds loosely

    _write_atomically(path / WEIGHTS_FILE, save_npz)
    _write_atomically(path / SPEC_FILE, lambda tmp: tmp.write_text(json.dumps(spec, indent=1)))
    return path


def export_onnx(agent: Exportable, path: Path | str) -> Path:
    """Writes the agent's greedy policy as ``path/policy.onnx`` (the ``export`` extra: onnx, onnxscript).

    The graph takes ``obs`` float32 ``(batch, obs_dim)`` (any batch) and gives ``action`` (int64
    ``(batch,)`` for DQN and IQN, float32 ``(batch, act_dim)`` for SAC) and, for DQN and IQN, ``values``
    ``(batch, n_actions)``. Returns the file's path.
    """
    _check(agent)
    module = greedy_module(agent)
    discrete = isinstance(agent, Dqn | Iqn) or (
        isinstance(agent, MlpAgent) and mlp_parts(agent).head == "argmax"
    )
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    example = torch.zeros(2, agent.obs_dim)
    device = agent.device
    try:
        module.cpu()

        def write(tmp: Path) -> None:
            # The exporter reports its passes on stdout and logs a warning per torchvision op it skips, and
            # torch.export warns about its own internals (FutureWarning, DeprecationWarning): none of it is
            # about the user's model. An export is quiet unless it fails.
            registration = logging.getLogger("torch.onnx._internal.exporter._registration")
            level = registration.level
            registration.setLevel(logging.ERROR)
            try:
                with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
                    warnings.simplefilter("ignore", FutureWarning)
                    warnings.simplefilter("ignore", DeprecationWarning)
                    torch.onnx.export(
                        module,
                        (example,),
                        str(tmp),
                        input_names=["obs"],
                        output_names=["values", "action"] if discrete else ["action"],
                        dynamic_shapes={"obs": {0: torch.export.Dim("batch")}},
                        external_data=False,
                        verbose=False,
                    )
            finally:
                registration.setLevel(level)

        out = path / ONNX_FILE
        _write_atomically(out, write)
    finally:
        module.to(device)
    return out
