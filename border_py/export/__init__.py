"""Trained policies without the training stack.

- `NumpyPolicy` runs any agent's exported greedy policy (its actions within the bounds of a box) with
  numpy alone: ``from border_py.export import NumpyPolicy`` imports neither torch nor anything optional.
- `export_numpy` writes an agent's policy for it (``policy.json`` + ``weights.npz``; needs torch);
  `numpy_policy_of` gives the same policy in memory (what the evaluator acts with).
- `export_onnx` writes ``policy.onnx`` and `OnnxPolicy` runs it with onnxruntime (the
  ``export`` extra).
- A policy with memory (recurrent PPO's, the ``lstm`` kind) acts through either with
  ``act_with_memory(obs, memory)``, which returns the memory for the next step as well.

Example:

    export_numpy(agent, "exported/dqn_cartpole")           # on the training machine
    policy = NumpyPolicy.load("exported/dqn_cartpole")     # anywhere with numpy
    action = policy.act(obs)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from border_py.export.exporters import export_numpy, export_onnx, greedy_module, numpy_policy_of
    from border_py.export.numpy_policy import NumpyPolicy, PolicyFileError
    from border_py.export.onnx_policy import OnnxPolicy

_WHERE = {
    "NumpyPolicy": "border_py.export.numpy_policy",
    "PolicyFileError": "border_py.export.numpy_policy",
    "OnnxPolicy": "border_py.export.onnx_policy",
    "export_numpy": "border_py.export.exporters",
    "export_onnx": "border_py.export.exporters",
    "greedy_module": "border_py.export.exporters",
    "numpy_policy_of": "border_py.export.exporters",
}

__all__ = [
    "NumpyPolicy",
    "OnnxPolicy",
    "PolicyFileError",
    "export_numpy",
    "export_onnx",
    "greedy_module",
    "numpy_policy_of",
]


def __getattr__(name: str) -> Any:
    """Imports a name's module on first use (torch only for the exporters)."""
    if name not in _WHERE:
        raise AttributeError(f"module 'border_py.export' has no attribute {name!r}")
    value = getattr(importlib.import_module(_WHERE[name]), name)
    globals()[name] = value
    return value
