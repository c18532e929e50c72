"""Writing a trained agent's greedy policy out of torch: plain arrays (`export_numpy`) or ONNX
(`export_onnx`), and the same greedy policy as a torch module (`greedy_module`). The agent states its
policy (``greedy_policy()``, `border_py.agents.greedy`); nothing here reads an agent's insides."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import torch
from torch import nn

from border_py.agents.greedy import F32, GreedyNetwork, GreedyPolicy, MlpParts
from border_py.export.conv_front import conv_spec
from border_py.export.mlp_parts import MlpGreedy, mlp_spec
from border_py.export.numpy_policy import FORMAT, SPEC_FILE, VERSION, WEIGHTS_FILE, NumpyPolicy
from border_py.export.onnx_policy import ONNX_FILE


@runtime_checkable
class Exportable(Protocol):
    """An agent that states its greedy policy (every agent of border_py: DQN, IQN, SAC, TD3, PPO, BC, IQL,
    AWAC, CQL, TD3+BC)."""

    obs_dim: int
    device: torch.device

    def greedy_policy(self) -> GreedyPolicy:
        """The eval-mode policy, as `border_py.agents.greedy` describes it.

        Raises:
            ValueError: the agent's policy cannot be exported (the message says why).
        """
        ...


def _policy(agent: object) -> GreedyPolicy:
    if not isinstance(agent, Exportable):
        raise TypeError(
            "export needs an agent that states its greedy policy (greedy_policy()), "
            f"got {type(agent).__name__}"
        )
    return agent.greedy_policy()


def greedy_module(agent: Exportable) -> nn.Module:
    """The agent's eval-mode policy as a torch module: ``obs (n, obs_dim) -> (values, action)`` for a
    discrete policy, ``-> action`` for a continuous one (within the bounds); a pixel policy takes uint8
    frames ``(n, channels, height, width)``. It holds the agent's weights
    (an MLP policy: a copy; a dueling DQN or IQN: the agent's networks), in eval mode, on the agent's
    device."""
    policy = _policy(agent)
    module = MlpGreedy(policy) if isinstance(policy, MlpParts) else policy.module
    return module.to(agent.device).eval()


def _spec_and_weights(agent: Exportable) -> tuple[dict[str, Any], dict[str, F32]]:
    policy = _policy(agent)
    weights: dict[str, F32] = {}
    if isinstance(policy, MlpParts):
        network, action = mlp_spec(policy, weights)
        kind = "mlp"
    else:
        network, action, kind = dict(policy.network), policy.action, policy.kind
        weights.update(policy.weights)
    obs_shape = [agent.obs_dim]
    if policy.conv is not None:
        network = {"conv": conv_spec(policy.conv, weights), **network}
        obs_shape = list(policy.conv.obs_shape)
    spec = {"format": FORMAT, "version": VERSION, "kind": kind, "obs_dim": agent.obs_dim,
            "obs_shape": obs_shape, "action": action, "network": network}  # fmt: skip
    return spec, weights


def numpy_policy_of(agent: Exportable) -> NumpyPolicy:
    """The agent's greedy policy as a `NumpyPolicy` in memory, as `export_numpy` then `NumpyPolicy.load`
    would give it: a copy of the weights as they are now (the evaluator takes one per evaluation).

    Raises:
        TypeError, ValueError: as `export_numpy`; `border_py.export.PolicyFileError` (a ValueError) for
            weights that are not finite.
    """
    spec, weights = _spec_and_weights(agent)
    return NumpyPolicy(spec, weights, source=f"{type(agent).__name__}'s greedy policy")


def _discrete(policy: GreedyPolicy) -> bool:
    return isinstance(policy, GreedyNetwork) or policy.head == "argmax"


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
        TypeError: the agent states no greedy policy.
        ValueError: the agent's policy cannot be exported (an IQN acting on random fractions).
    """
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

    The graph takes ``obs`` float32 ``(batch, obs_dim)`` (any batch; a pixel policy uint8 frames
    ``(batch, channels, height, width)``) and gives ``action`` (int64
    ``(batch,)`` for discrete actions, float32 ``(batch, act_dim)`` within the bounds for a box) and, for
    discrete actions, ``values`` ``(batch, n_actions)``. Returns the file's path.

    Raises:
        TypeError, ValueError: as `export_numpy`.
    """
    module = greedy_module(agent)
    policy = _policy(agent)
    discrete = _discrete(policy)
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    if policy.conv is None:
        example = torch.zeros(2, agent.obs_dim)
    else:  # frames stay uint8 into the graph, as into the agent's network
        example = torch.zeros(2, *policy.conv.obs_shape, dtype=torch.uint8)
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
