"""Writing a trained agent's greedy policy out of torch: plain arrays (`export_numpy`) or ONNX
(`export_onnx`), and the same greedy policy as a torch module (`greedy_module`). The agent states its
policy (``greedy_policy()``, `border_py.agents.greedy`); nothing here reads an agent's insides. A policy
with memory (an ``lstm``: recurrent PPO's) is written with it, its memory an input and an output."""

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
from border_py.base.obs_parts import ObsParts
from border_py.base.spaces import legal_flags
from border_py.export.action_mask import MASK_VERSION, UNMASKED_VERSION, checked_mask
from border_py.export.conv_front import conv_spec, inputs_spec
from border_py.export.dict_obs import ONNX_META, obs_parts_field
from border_py.export.lstm_parts import LstmGreedy, lstm_spec
from border_py.export.mlp_parts import MlpGreedy, mlp_spec
from border_py.export.numpy_inputs import INPUTS_VERSION
from border_py.export.numpy_policy import FORMAT, SPEC_FILE, WEIGHTS_FILE, NumpyPolicy
from border_py.export.onnx_policy import MEMORY_INPUT, MEMORY_OUTPUT, ONNX_FILE
from border_py.export.policy_files import CLIP_MEAN_VERSION


@runtime_checkable
class Exportable(Protocol):
    """An agent that states its greedy policy (every agent of border_py: DQN, IQN, SAC, TD3, PPO, recurrent
    PPO, BC, IQL, AWAC, CQL, TD3+BC)."""

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
    frames ``(n, channels, height, width)``, a policy of a dict observation with images (a multi-input
    encoder's) the flat float32 vector of its parts; a policy with memory takes ``(obs, memory)`` and gives
    the memory after the step last (`border_py.export.lstm_parts.LstmGreedy`). It holds the agent's weights
    (an MLP policy: a copy; a dueling DQN or IQN: the agent's networks), in eval mode, on the agent's
    device. With an ``action_mask``, the action is the best legal one (-1 where none is) and the values
    stay raw.

    Raises:
        TypeError, ValueError: as `export_numpy`.
    """
    policy = _policy(agent)
    if isinstance(policy, MlpParts):
        module: nn.Module = MlpGreedy(policy) if policy.lstm is None else LstmGreedy(policy)
    else:
        module = policy.module
    mask = _mask(agent, policy)
    if mask is not None:
        module = MaskedArgmax(module, mask)
    return module.to(agent.device).eval()


class MaskedArgmax(nn.Module):
    """A discrete greedy module ``obs -> (values, action)`` whose action is the best the observation's
    mask ``obs[:, start:stop]`` allows, read as given (before ``module`` normalises); the values stay raw.
    A policy with memory: ``(obs, memory) -> (values, action, memory_after)``, the memory passed through."""

    def __init__(self, module: nn.Module, mask: tuple[int, int]) -> None:
        super().__init__()
        self.module = module
        self.start, self.stop = mask

    def forward(self, obs: torch.Tensor, memory: torch.Tensor | None = None) -> tuple[torch.Tensor, ...]:
        # One optional input, not *args: torch.export would take varargs as one tuple-shaped input.
        values, _, *after = self.module(obs) if memory is None else self.module(obs, memory)
        legal = legal_flags(obs, slice(self.start, self.stop))
        act = torch.where(legal, values, float("-inf")).argmax(dim=1)
        # A legal value of -inf (float32 overflow) ties with the masked ones: take the first legal instead.
        first_legal = legal.to(values.dtype).argmax(dim=1)
        act = torch.where(legal.gather(1, act[:, None]).squeeze(1), act, first_legal)
        # No legal action: -1, which no env takes and OnnxPolicy refuses, rather than a masked action.
        return values, torch.where(legal.any(dim=1), act, torch.full_like(act, -1)), *after


def _mask(agent: Exportable, policy: GreedyPolicy) -> tuple[int, int] | None:
    """The policy's ``action_mask``, checked against the agent's observation and the policy's actions.

    Raises:
        ValueError: one line naming ``action_mask`` (`border_py.export.action_mask.checked_mask`).
    """
    if policy.action_mask is None:
        return None
    if isinstance(policy, GreedyNetwork):
        n = policy.action.get("n")
    else:
        n = int(policy.layers[-1][0].shape[1]) if policy.head == "argmax" else None
    return checked_mask(policy.action_mask, n, agent.obs_dim, policy.conv is not None, "action_mask")


def _checked_parts(agent: Exportable, policy: GreedyPolicy, obs_parts: ObsParts | None) -> ObsParts | None:
    """The dict observation's parts the export writes: ``obs_parts`` as given, checked, or, for a policy
    with a multi-input front, that front's (which marks the images), the same keys and shapes as any given."""
    front = policy.inputs.parts if policy.inputs is not None else None
    if obs_parts is None:
        return front
    if policy.conv is not None:
        raise ValueError("obs_parts: a pixel (conv) policy takes frames, not a dict observation's parts")
    if obs_parts.dim != agent.obs_dim:
        raise ValueError(f"obs_parts lay out {obs_parts.dim} values, the agent's obs_dim is {agent.obs_dim}")
    if front is not None:
        if [(p.key, p.shape) for p in obs_parts.parts] != [(p.key, p.shape) for p in front.parts]:
            raise ValueError(
                f"obs_parts {list(obs_parts.keys)} are not the parts the agent's encoder reads "
                f"({list(front.keys)}, in that order and of the same shapes)"
            )
        return front
    return obs_parts


def _spec_and_weights(agent: Exportable, obs_parts: ObsParts | None) -> tuple[dict[str, Any], dict[str, F32]]:
    policy = _policy(agent)
    obs_parts = _checked_parts(agent, policy, obs_parts)
    weights: dict[str, F32] = {}
    if isinstance(policy, MlpParts):
        network, action = mlp_spec(policy, weights)
        kind = "mlp" if policy.lstm is None else "lstm"
        if policy.lstm is not None:  # a new kind, which a reader that does not know it refuses by its name
            network["lstm"] = lstm_spec(policy.lstm, weights)
    else:
        network, action, kind = dict(policy.network), policy.action, policy.kind
        weights.update(policy.weights)
    obs_shape = [agent.obs_dim]
    if policy.conv is not None:
        network = {"conv": conv_spec(policy.conv, weights), **network}
        obs_shape = list(policy.conv.obs_shape)
    if policy.inputs is not None:
        network = {"inputs": inputs_spec(policy.inputs, weights), **network}
    mask = _mask(agent, policy)
    if mask is not None:  # version 4 only then: a version 3 reader refuses it rather than ignore the mask
        action = {**action, "mask": list(mask)}
    # The oldest version that holds the file: an older reader refuses what it would misread.
    version = UNMASKED_VERSION if mask is None else MASK_VERSION
    if policy.inputs is not None:
        version = INPUTS_VERSION
    if "clip_mean" in action:
        version = CLIP_MEAN_VERSION
    spec = {"format": FORMAT, "version": version, "kind": kind, "obs_dim": agent.obs_dim,
            "obs_shape": obs_shape, "action": action, "network": network}  # fmt: skip
    if obs_parts is not None:  # optional: a reader that ignores it acts the same on the flat vector
        spec["obs_parts"] = obs_parts_field(obs_parts)
    return spec, weights


def numpy_policy_of(agent: Exportable, *, obs_parts: ObsParts | None = None) -> NumpyPolicy:
    """The agent's greedy policy as a `NumpyPolicy` in memory, as `export_numpy` then `NumpyPolicy.load`
    would give it: a copy of the weights as they are now (the evaluator takes one per evaluation).

    Raises:
        TypeError, ValueError: as `export_numpy`; `border_py.export.PolicyFileError` (a ValueError) for
            weights that are not finite.
    """
    spec, weights = _spec_and_weights(agent, obs_parts)
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


def export_numpy(agent: Exportable, path: Path | str, *, obs_parts: ObsParts | None = None) -> Path:
    """Writes the agent's greedy policy to the directory ``path`` as ``policy.json`` and ``weights.npz``,
    for `border_py.export.NumpyPolicy.load`. Returns ``path``.

    Args:
        obs_parts: the env's dict observation layout (``Spaces.obs_parts``): the loaded policy then takes
            the dict as well as the flat vector the agent saw. A policy with a multi-input encoder writes
            its encoder's parts without it.

    Raises:
        TypeError: the agent states no greedy policy.
        ValueError: the agent's policy cannot be exported (an IQN acting on random fractions),
            ``obs_parts`` do not lay out ``obs_dim`` values, come with a pixel policy or are not the parts
            a multi-input encoder reads, or its ``action_mask`` does not fit
            (`border_py.export.action_mask.checked_mask`).
    """
    spec, weights = _spec_and_weights(agent, obs_parts)
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)

    def save_npz(tmp: Path) -> None:
        with tmp.open("wb") as f:
            np.savez(f, **weights)  # type: ignore[arg-type]  # numpy's stub types **kwds loosely

    _write_atomically(path / WEIGHTS_FILE, save_npz)
    _write_atomically(path / SPEC_FILE, lambda tmp: tmp.write_text(json.dumps(spec, indent=1)))
    return path


class _DictInputs(nn.Module):
    """The greedy module behind one input per dict observation part: each part ``(n, *shape)`` flattened
    to ``(n, size)`` and laid side by side in `ObsParts` order, the flat vector the agent learned on. The
    inputs after the parts (a policy's memory) go to the module as they are."""

    def __init__(self, module: nn.Module, obs_parts: ObsParts) -> None:
        super().__init__()
        self.module = module
        self.sizes = [p.size for p in obs_parts.parts]

    def forward(self, *inputs: torch.Tensor) -> Any:
        parts, rest = inputs[: len(self.sizes)], inputs[len(self.sizes) :]
        flat = [x.reshape(x.shape[0], size) for x, size in zip(parts, self.sizes, strict=True)]
        return self.module(torch.cat(flat, dim=1), *rest)


def _onnx_inputs(
    agent: Exportable, policy: GreedyPolicy, obs_parts: ObsParts | None, outputs: list[str]
) -> tuple[tuple[Any, ...], list[str], tuple[Any, ...]]:
    """The example inputs, their names and their dynamic shapes (the batch, any size: a memory's lanes)."""
    batch = torch.export.Dim("batch")
    lstm = policy.lstm if isinstance(policy, MlpParts) else None
    memory = [] if lstm is None else [torch.zeros(2, len(lstm.layers), 2, lstm.hidden)]
    names, shapes = [MEMORY_INPUT] * len(memory), [{2: batch}] * len(memory)
    if obs_parts is not None:
        # An input named as an output or as another input: two values of one name, an invalid graph.
        clash = next((k for k in obs_parts.keys if k in outputs or k in names), None)
        if clash is not None:
            kind = "output" if clash in outputs else "input"
            raise ValueError(f"obs_parts: key {clash!r} is also the name of the ONNX policy's {kind}")
        parts = tuple(torch.zeros(2, *p.shape) for p in obs_parts.parts)
        part_shapes = [{0: batch} for _ in parts]
        # varargs (`_DictInputs`): one entry
        return (*parts, *memory), [*obs_parts.keys, *names], (tuple(part_shapes + shapes),)
    if policy.conv is None:
        example = torch.zeros(2, agent.obs_dim)
    else:  # frames stay uint8 into the graph, as into the agent's network
        example = torch.zeros(2, *policy.conv.obs_shape, dtype=torch.uint8)
    return (example, *memory), ["obs", *names], ({0: batch}, *shapes)


def export_onnx(agent: Exportable, path: Path | str, *, obs_parts: ObsParts | None = None) -> Path:
    """Writes the agent's greedy policy as ``path/policy.onnx`` (the ``export`` extra: onnx, onnxscript).

    The graph takes ``obs`` float32 ``(batch, obs_dim)`` (any batch; a pixel policy uint8 frames
    ``(batch, channels, height, width)``; with ``obs_parts``, one float32 input ``(batch, *shape)`` per
    part, named by its key, laid side by side inside the graph; a multi-input encoder's policy always
    takes its parts so, an image as its float32 pixel values) and gives ``action`` (int64
    ``(batch,)`` for discrete actions, float32 ``(batch, act_dim)`` within the bounds for a box) and, for
    discrete actions, ``values`` ``(batch, n_actions)``. A policy with memory also takes ``memory``
    float32 ``(2, layers, batch, hidden)`` (each layer's ``h``, then its ``c``; zeros at an episode's
    start) and gives ``memory_after``, of the same shape, last. Returns the file's path.

    Raises:
        TypeError, ValueError: as `export_numpy`; a part keyed as an output (``action``, ``values``,
            ``memory_after``) or as the ``memory`` input.
    """
    policy = _policy(agent)
    obs_parts = _checked_parts(agent, policy, obs_parts)
    outputs = ["values", "action"] if _discrete(policy) else ["action"]
    if isinstance(policy, MlpParts) and policy.lstm is not None:
        outputs.append(MEMORY_OUTPUT)
    args, names, dynamic = _onnx_inputs(agent, policy, obs_parts, outputs)
    module = greedy_module(agent)
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    device = agent.device
    try:
        module.cpu()
        graph = module if obs_parts is None else _DictInputs(module, obs_parts).eval()

        def write(tmp: Path) -> None:
            program = _quiet_onnx_export(graph, args, names, outputs, dynamic)
            if obs_parts is not None:
                program.model.metadata_props[ONNX_META] = json.dumps(obs_parts_field(obs_parts))
            program.save(str(tmp), external_data=False)

        out = path / ONNX_FILE
        _write_atomically(out, write)
    finally:
        module.to(device)
    return out


def _quiet_onnx_export(
    module: nn.Module, args: tuple[Any, ...], names: list[str], outputs: list[str], dynamic: tuple[Any, ...]
) -> Any:
    """``torch.onnx.export``'s program. The exporter reports its passes on stdout and logs a warning per
    torchvision op it skips, and torch.export warns about its own internals (FutureWarning,
    DeprecationWarning): none of it is about the user's model. An export is quiet unless it fails."""
    registration = logging.getLogger("torch.onnx._internal.exporter._registration")
    level = registration.level
    registration.setLevel(logging.ERROR)
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            # A dict policy's inputs share one batch dimension, named once: the exporter says so.
            warnings.filterwarnings("ignore", "# The axis name: batch will not be used", UserWarning)
            return torch.onnx.export(
                module,
                args,
                input_names=names,
                output_names=outputs,
                dynamic_shapes=dynamic,
                verbose=False,
            )
    finally:
        registration.setLevel(level)
