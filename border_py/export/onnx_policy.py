"""``OnnxPolicy``: an exported ONNX policy run with onnxruntime (no torch)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from border_py.export.numpy_policy import PolicyFileError

ONNX_FILE = "policy.onnx"


class OnnxPolicy:
    """A policy written by `border_py.export.export_onnx`, run with onnxruntime on the CPU.

    ``act(obs)`` takes one observation ``(obs_dim,)`` or a batch ``(n, obs_dim)`` (a pixel policy: uint8
    frames ``obs_shape``, ``(channels, height, width)``, or a batch of them) and returns what
    `border_py.export.NumpyPolicy.act` returns. Needs the ``export`` extra (onnxruntime).
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
        if [i.name for i in inputs] != ["obs"] or "action" not in outputs:
            raise PolicyFileError(f"{file}: not a border_py policy (needs input 'obs' and output 'action')")
        shape = inputs[0].shape[1:]
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

    def _run(self, obs: npt.ArrayLike, output: str) -> tuple[npt.NDArray[Any], bool]:
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
        out: npt.NDArray[Any] = self.session.run([output], {"obs": x})[0]
        return out, single

    def values(self, obs: npt.ArrayLike) -> npt.NDArray[np.float32]:
        """The per-action values ``(n, n_actions)`` of a discrete policy."""
        if not self.discrete:
            raise TypeError("a continuous policy has no per-action values; use act()")
        values, _ = self._run(obs, "values")
        return values.astype(np.float32, copy=False)

    def act(self, obs: npt.ArrayLike) -> npt.NDArray[Any]:
        """The greedy action of one observation or of each in a batch."""
        act, single = self._run(obs, "action")
        return act[0] if single else act
