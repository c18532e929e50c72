"""A pixel policy's convolutional front in numpy alone: what `border_py.export.NumpyPolicy` runs before a
policy's layers when ``policy.json`` has ``network.conv`` (docs/export-format.md), and that field read
(`read_conv`). Nothing here imports torch.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import sliding_window_view

from border_py.export.policy_files import PolicyFileError, field
from border_py.numpy_mlp import F32, relu

MAX_SIDE = 1 << 16
"""The largest frame side, channel count and stride a policy file may state: no frame is larger, and a
hostile file cannot make a reader size anything from a number it invents."""


class NumpyConv:
    """Valid (unpadded) 2-d convolutions of pixels ``obs_shape`` ``(channels, height, width)``, divided by
    ``divide_by`` first, with a ReLU after each, flattened in (channel, row, column) order as torch's
    ``nn.Flatten``: ``(n, *obs_shape) -> (n, out_features)``.

    Each convolution is one matrix product per observation over its patches (im2col through a strided
    view), so an observation's features are the same bits whatever else is in the batch, as `Mlp`'s.

    Args:
        obs_shape: the pixels' shape.
        layers: ``(weight (out, in, kh, kw), bias (out,), stride)`` per convolution (torch's layout).
        divide_by: the pixels are divided by it (255: uint8 to [0, 1]).
        name: the field the convolutions are, for messages (a dict observation's image:
            ``network.inputs[i].conv``).

    Raises:
        ValueError: the shapes do not chain or exceed `MAX_SIDE`, or a filter is larger than its input
            (the message names the layer as ``network.conv.layers[i]``).
    """

    def __init__(
        self,
        obs_shape: tuple[int, ...],
        layers: list[tuple[F32, F32, int]],
        divide_by: float,
        name: str = "network.conv",
    ) -> None:
        if len(obs_shape) != 3 or not all(0 < side <= MAX_SIDE for side in obs_shape):
            raise ValueError(
                f"obs_shape must be (channels, height, width), each in 1..{MAX_SIDE}, got {obs_shape}"
            )
        if not layers:
            raise ValueError(f"{name}.layers must name at least one convolution")
        if not 0 < divide_by < float("inf"):
            raise ValueError(f"{name}.divide_by must be positive, got {divide_by}")
        self.obs_shape = obs_shape
        self.divide_by = np.float32(divide_by)
        self._kernels: list[tuple[F32, F32, tuple[int, int], int]] = []
        channels, height, width = obs_shape
        for i, (weight, bias, stride) in enumerate(layers):
            where = f"{name}.layers[{i}]"
            out, c_in, kh, kw = weight.shape
            if c_in != channels or bias.shape != (out,):
                raise ValueError(
                    f"{where}: weight {weight.shape} and bias {bias.shape} must be (out, {channels}, kh, kw) "
                    "and (out,)"
                )
            if not 0 < stride <= MAX_SIDE or kh > height or kw > width:
                raise ValueError(f"{where}: a {kh}x{kw} filter of stride {stride} on {height}x{width} inputs")
            # (C * kh * kw, out): the patches' (channel, row, column) order, as torch's weight flattens.
            matrix = np.ascontiguousarray(weight.reshape(out, -1).T)
            self._kernels.append((matrix, bias, (kh, kw), stride))
            channels, height, width = out, (height - kh) // stride + 1, (width - kw) // stride + 1
        self.out_features = channels * height * width

    def __call__(self, obs: npt.NDArray[Any]) -> F32:
        """``(n, *obs_shape)`` pixels of any dtype to float32 features ``(n, out_features)``."""
        h: F32 = obs.astype(np.float32) / self.divide_by
        h = h.transpose(0, 2, 3, 1)  # channels last: one observation's patches are rows of one matrix
        for matrix, bias, kernel, stride in self._kernels:
            windows = sliding_window_view(h, kernel, axis=(1, 2))[
                :, ::stride, ::stride
            ]  # (n, H', W', C, kh, kw)
            n, rows, cols = windows.shape[:3]
            patches = windows.reshape(n, rows * cols, -1)  # a copy: each patch a row
            h = relu(np.matmul(patches, matrix) + bias).reshape(n, rows, cols, -1)
        return np.ascontiguousarray(h.transpose(0, 3, 1, 2)).reshape(len(h), -1)


def read_conv(
    conv: object,
    array: Callable[[object, int, str], F32],
    obs_shape: tuple[int, ...],
    kind: str,
    source: str,
    name: str = "network.conv",
) -> NumpyConv | None:
    """``network.conv`` (``None`` where absent; ``name``: another field of the same form) of a ``kind``
    policy whose observations are ``obs_shape``, its arrays read by ``array`` (`NumpyPolicy`'s, which names
    the file).

    Raises:
        PolicyFileError: a malformed field, on a ``sac`` policy, or convolutions that do not fit (as
            `NumpyConv`); the message names ``source``.
    """
    if conv is None:
        return None
    if not isinstance(conv, Mapping) or type(conv.get("divide_by")) not in (int, float):
        raise PolicyFileError(f"{source}: {name} must be {{layers, divide_by}} or absent")
    if kind == "sac":
        raise PolicyFileError(f"{source}: a sac policy (version 1) has no {name}")
    layers = []
    if not isinstance(conv.get("layers"), list):
        raise PolicyFileError(f"{source}: {name}.layers must be a list, got {conv.get('layers')!r:.60}")
    for layer in conv["layers"]:
        if not isinstance(layer, Mapping):
            raise PolicyFileError(f"{source}: {name}.layers must be {{weight, bias, stride}} objects")
        w, b = array(layer.get("weight"), 4, source), array(layer.get("bias"), 1, source)
        layers.append((w, b, field(layer, "stride", int, source)))
    try:
        return NumpyConv(obs_shape, layers, float(conv["divide_by"]), name)
    except ValueError as exc:
        raise PolicyFileError(f"{source}: {exc}") from exc
