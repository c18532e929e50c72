"""Recorders: where records go."""

from border_py.recorders.buffered import BufferedRecorder
from border_py.recorders.null import NullRecorder
from border_py.recorders.tensorboard import TensorboardRecorder

__all__ = ["BufferedRecorder", "NullRecorder", "TensorboardRecorder"]
