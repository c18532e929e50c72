"""Recorders: where records go. ``MlflowRecorder`` imports mlflow (the ``mlflow`` extra) only when one is
made."""

from border_py.recorders.buffered import BufferedRecorder
from border_py.recorders.mlflow import MlflowRecorder
from border_py.recorders.null import NullRecorder
from border_py.recorders.tee import TeeRecorder
from border_py.recorders.tensorboard import TensorboardRecorder

__all__ = ["BufferedRecorder", "MlflowRecorder", "NullRecorder", "TeeRecorder", "TensorboardRecorder"]
