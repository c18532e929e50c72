"""``OnnxPolicy``: an exported ONNX policy run with onnxruntime (no torch); a policy with memory (an input
``memory`` and an output ``memory_after``: recurrent PPO's) acts with it (``act_with_memory``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from border_py.base.obs_parts import ObsParts
from border_py.export.action_mask import refuse_no_legal
from border_py.export.dict_obs import ONNX_META, Obs, flat_obs
from border_py.export.numpy_policy import PolicyFileError

ONNX_FILE = "policy.onnx"
MEMORY_INPUT, MEMORY_OUTPUT = "memory", "memory_after"
"""A policy with memory's graph input ``(2, layers, batch, hidden)`` and its output after the step."""


class OnnxPolicy:
    """A policy written by `border_py.export.export_onnx`, run with onnxruntime on the CPU.

    ``act(obs)`` takes one observation ``(obs_dim,)`` or a batch ``(n, obs_dim)`` (a pixel policy: uint8
    frames ``obs_shape``, ``(channels, height, width)``, or a batch of them; a dict policy, whose graph
    takes one input per part, the dict observation, one or a batch, or its flat vector) and returns what
    `border_py.export.NumpyPolicy.act` returns. A policy with memory (``recurrent``) acts with
    ``act_with_memory(obs, memory)`` and ``initial_memory(lanes)`` as `border_py.export.NumpyPolicy` does,
    and refuses ``act`` and ``values``. Needs the ``export`` extra (onnxruntime).
    """

    def __init__(self, path: Path | str) -> None:
        import onnxruntime

        path = Path(path)
        file = path / ONNX_FILE if path.is_dir() else path
        if not file.is_file():
            raise PolicyFileError(f"{file}: no such file (is {path} an exported ONNX policy?)")
        options = onnxruntime.SessionOptions()
        # One thread: a batch-1 policy gains nothing from a pool and should not contend with the env.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        try:
            self.session = onnxruntime.InferenceSession(
                str(file), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own types for a malformed model
            raise PolicyFileError(f"{file}: not a loadable ONNX model ({exc})") from exc
        inputs = self.session.get_inputs()
        outputs = [o.name for o in self.session.get_outputs()]
        if "action" not in outputs:
            raise PolicyFileError(f"{file}: not a border_py policy (needs an output 'action')")
        self.recurrent = MEMORY_OUTPUT in outputs
        """Whether the policy has memory: it acts through `act_with_memory`."""
        self._memory = _memory_shape(inputs, file) if self.recurrent else None
        if self.recurrent:  # the memory is the last input, after the observation's
            inputs = inputs[:-1]
        meta = self.session.get_modelmeta().custom_metadata_map
        dict_obs = [i.name for i in inputs] != ["obs"] or ONNX_META in meta
        self.obs_parts = _parts(inputs, file) if dict_obs else None
        """A dict policy's parts, one graph input each (by key); None: the graph takes ``obs``."""
        shape = inputs[0].shape[1:] if self.obs_parts is None else [self.obs_parts.dim]
        if not shape or not all(isinstance(side, int) for side in shape):
            raise PolicyFileError(f"{file}: the observation size is not fixed ({shape!r})")
        self.obs_shape: tuple[int, ...] = tuple(shape)
        self.obs_dim = math.prod(shape)
        self.pixels = inputs[0].type == "tensor(uint8)"
        """The graph takes uint8 frames (a pixel policy), not float32 vectors."""
        self.discrete = "values" in outputs
        self.file = file

    @classmethod
    def load(cls, path: Path | str) -> OnnxPolicy:
        """Opens ``path/policy.onnx`` (or the ``.onnx`` file ``path``)."""
        return cls(path)

    def _run(
        self, obs: Obs, outputs: list[str], memory: npt.ArrayLike | None = None
    ) -> tuple[list[npt.NDArray[Any]], bool]:
        if isinstance(obs, Mapping):
            obs = flat_obs(self.obs_parts, obs)
        x = np.asarray(obs) if self.pixels else np.asarray(obs, dtype=np.float32)
        if self.pixels and x.dtype != np.uint8:  # a cast would silently wrap or truncate other values
            raise ValueError(f"this policy takes uint8 frames, got {x.dtype}")
        single = x.shape == self.obs_shape
        if single:
            x = x[None]
        if x.shape[1:] != self.obs_shape:
            shape = ", ".join(map(str, self.obs_shape))
            raise ValueError(
                f"observations must be {self.obs_shape} or (n, {shape}), got shape {np.shape(obs)}"
            )
        parts, feed = self.obs_parts, {"obs": x}
        if parts is not None:  # a dict policy: each part from its slice of the flat vector
            feed = {key: np.ascontiguousarray(parts.part(x, key)) for key in parts.keys}
        if memory is not None:
            feed[MEMORY_INPUT] = self._checked_memory(memory, len(x))
        out: list[npt.NDArray[Any]] = self.session.run(outputs, feed)
        return out, single

    def values(self, obs: Obs) -> npt.NDArray[np.float32]:
        """The per-action values ``(n, n_actions)`` of a discrete policy, raw: an action mask not applied."""
        self._refuse_memory("values()")
        if not self.discrete:
            raise TypeError("a continuous policy has no per-action values; use act()")
        (values,), _ = self._run(obs, ["values"])
        return values.astype(np.float32, copy=False)

    def act(self, obs: Obs) -> npt.NDArray[Any]:
        """The greedy action of one observation or of each in a batch; with an action mask (in the graph),
        the best legal one.

        Raises:
            ValueError: an observation's mask allows no action (the graph's action -1).
        """
        self._refuse_memory("act()")
        (act,), single = self._run(obs, ["action"])
        if self.discrete:
            refuse_no_legal(act >= 0)
        return act[0] if single else act

    def _refuse_memory(self, call: str) -> None:
        if self.recurrent:
            raise TypeError(
                f"this policy acts on the episode so far: {call} has no memory to act with; call "
                "act_with_memory(obs, memory), memory = initial_memory(lanes) at the episodes' start"
            )

    def initial_memory(self, lanes: int = 1) -> npt.NDArray[np.float32]:
        """The memory of ``lanes`` episodes at their start, zeros ``(2, layers, lanes, hidden)``.

        Raises:
            TypeError: the policy has no memory (use `act`).
        """
        if self._memory is None:
            raise TypeError("this policy has no memory; use act()")
        layers, hidden = self._memory
        return np.zeros((2, layers, lanes, hidden), np.float32)

    def _checked_memory(self, memory: npt.ArrayLike, lanes: int) -> npt.NDArray[np.float32]:
        m = np.ascontiguousarray(memory, dtype=np.float32)
        expected = self.initial_memory(lanes).shape
        if m.shape != expected:
            raise ValueError(
                f"a memory of {lanes} lane(s) is (2, layers, lanes, hidden) = {expected} (h then c), "
                f"got shape {m.shape}"
            )
        return m

    def act_with_memory(
        self, obs: Obs, memory: npt.ArrayLike
    ) -> tuple[npt.NDArray[Any], npt.NDArray[np.float32]]:
        """As `border_py.export.NumpyPolicy.act_with_memory`: the greedy action of one observation or of
        each in a batch (one lane each) with the lanes' ``memory``, and the memory after it.

        Raises:
            TypeError: the policy has no memory (use `act`).
            ValueError: ``obs`` as `act`, a memory of another shape, or an observation's mask allows no
                action.
        """
        if not self.recurrent:
            raise TypeError("this policy has no memory; use act()")
        (act, after), single = self._run(obs, ["action", MEMORY_OUTPUT], memory)
        if self.discrete:
            refuse_no_legal(act >= 0)
        return (act[0] if single else act), after.astype(np.float32, copy=False)


def _memory_shape(inputs: Sequence[Any], file: Path) -> tuple[int, int]:
    """A policy with memory's ``(layers, hidden)``, from its last input ``memory`` ``(2, layers, batch,
    hidden)``."""
    memory = inputs[-1]
    shape = memory.shape
    if (
        memory.name != MEMORY_INPUT
        or memory.type != "tensor(float)"
        or len(shape) != 4
        or shape[0] != 2
        or not all(isinstance(side, int) for side in (shape[1], shape[3]))
    ):
        raise PolicyFileError(
            f"{file}: a policy with memory needs a last input 'memory', float32 (2, layers, batch, hidden)"
        )
    return shape[1], shape[3]


def _parts(inputs: Sequence[Any], file: Path) -> ObsParts:
    """A dict policy's parts from its graph's inputs: each float32 ``(batch, *shape)``, in order."""
    for i in inputs:
        if i.type != "tensor(float)" or not all(isinstance(side, int) for side in i.shape[1:]):
            raise PolicyFileError(f"{file}: input {i.name!r} must be float32 (batch, *shape) of fixed shape")
    try:
        return ObsParts.of({i.name: i.shape[1:] for i in inputs})
    except ValueError as exc:
        raise PolicyFileError(f"{file}: {exc}") from exc
