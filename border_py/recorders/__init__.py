"""Recorders: where records go. ``MlflowRecorder`` imports mlflow (the ``mlflow`` extra) only when one is
made; names are imported on first use, so ``import border_py.recorders.mlflow`` does not import
``TensorboardRecorder``'s tensorboardX (which imports torch)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from border_py.recorders.buffered import BufferedRecorder
    from border_py.recorders.mlflow import MlflowRecorder
    from border_py.recorders.null import NullRecorder
    from border_py.recorders.tee import TeeRecorder
    from border_py.recorders.tensorboard import TensorboardRecorder

_EXPORTS: dict[str, str] = {
    "BufferedRecorder": "border_py.recorders.buffered",
    "MlflowRecorder": "border_py.recorders.mlflow",
    "NullRecorder": "border_py.recorders.null",
    "TeeRecorder": "border_py.recorders.tee",
    "TensorboardRecorder": "border_py.recorders.tensorboard",
}
"""Each public name and the module that defines it."""

if not TYPE_CHECKING:  # mypy would take a module __getattr__ as "any attribute exists"

    def __getattr__(name: str) -> Any:
        module = _EXPORTS.get(name)
        if module is None:
            raise AttributeError(f"module 'border_py.recorders' has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


__all__ = ["BufferedRecorder", "MlflowRecorder", "NullRecorder", "TeeRecorder", "TensorboardRecorder"]
