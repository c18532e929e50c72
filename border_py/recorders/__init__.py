"""Recorders: where records go. ``MlflowRecorder`` imports mlflow (the ``mlflow`` extra) only when one is
made; names are imported on first use, so ``import border_py.recorders.mlflow`` does not import
``TensorboardRecorder``'s tensorboardX (which imports torch)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from border_py.lazy import lazy_face

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
    __getattr__, __dir__ = lazy_face(__name__, _EXPORTS, globals())


__all__ = ["BufferedRecorder", "MlflowRecorder", "NullRecorder", "TeeRecorder", "TensorboardRecorder"]
