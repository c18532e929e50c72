"""``OnnxPolicy``: an exported ONNX policy run with onnxruntime (no torch)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from border_py.export.numpy_policy import PolicyFileError

ONNX_FILE = "policy.onnx"


class OnnxPolicy:
    """A policy written by `border_py.export.export_onnx`, run with onnxruntime on the CPU.

    ``act(obs)`` takes one observation ``(obs_dim,)`` or a batch ``(n, obs_dim)`` and returns what
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
        dim = inputs[0].shape[1]
        if not isinstance(dim, int):
            raise PolicyFileError(f"{file}: the observation size is not fixed ({dim!r})")
        self.obs_dim = dim
        self.discrete = "values" in outputs
        self.file = file

    @classmethod
    def load(cls, path: Path | str) -> OnnxPolicy:
        """Opens ``path/policy.onnx`` (or the ``.onnx`` file ``path``)."""
        return cls(path)

    def _run(self, obs: npt.ArrayLike, output: str) -> tuple[npt.NDArray[Any], bool]:
        x = np.asarray(obs, dtype=np.float32)
        single = x.ndim == 1
        if single:
            x = x[None]
        if x.ndim != 2 or x.shape[1] != self.obs_dim:
            raise ValueError(
                f"observations must be ({self.obs_dim},) or (n, {self.obs_dim}), got shape {np.shape(obs)}"
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
