"""An exported recurrent policy's LSTM in numpy: ``network.lstm`` of the ``lstm`` kind read and checked, and
one step of every lane through its layers (torch's ``nn.LSTM`` written once; docs/export-format.md states
the arithmetic). numpy alone, as `border_py.export.numpy_policy`.

A memory is float32 ``(2, layers, lanes, hidden)``: each layer's ``h`` (``memory[0]``), then its ``c``
(``memory[1]``), for each lane (a sub-env, an episode played beside others). Zeros start an episode.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import numpy.typing as npt

from border_py.export.policy_files import PolicyFileError
from border_py.numpy_mlp import F32, Mlp

ARRAYS = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
"""The arrays of one layer, in the order `NumpyLstm` takes them (torch's parameter names)."""

ReadArray = Callable[[object, int, str], F32]
"""Reads an array by its name, checking its number of dimensions (`NumpyPolicy`'s, naming the file)."""


def sigmoid(x: F32) -> F32:
    """``1 / (1 + exp(-x))`` in float32, as ``(1 + tanh(x / 2)) / 2``, which never overflows."""
    half = np.float32(0.5)
    out: F32 = half + half * np.tanh(half * x)
    return out


class NumpyLstm:
    """Stacked LSTM layers, each ``(weight_ih (in, 4h), weight_hh (h, 4h), bias_ih (4h,), bias_hh (4h,))``:
    torch's parameters, the weights transposed, the four gates' columns in torch's order (input, forget,
    cell, output). The first layer takes the observation (or its front's features), each next one the ``h``
    of the one before.

    Batch-invariant as `border_py.numpy_mlp.Mlp` (each product is a one-layer ``Mlp``): a lane's step is the
    same bits whatever other lanes share the batch.

    Examples:
        >>> bias = np.zeros(8, np.float32)
        >>> lstm = NumpyLstm([(np.ones((3, 8), np.float32), np.ones((2, 8), np.float32), bias, bias)])
        >>> h, memory = lstm.step(np.ones((5, 3), np.float32), lstm.zeros(5))
        >>> h.shape, memory.shape
        ((5, 2), (2, 1, 5, 2))
    """

    def __init__(self, layers: list[tuple[F32, F32, F32, F32]]) -> None:
        self.input = [Mlp([(w_ih, b_ih)], relu_out=False) for w_ih, _, b_ih, _ in layers]
        self.recurrent = [Mlp([(w_hh, b_hh)], relu_out=False) for _, w_hh, _, b_hh in layers]
        self.in_dim = int(layers[0][0].shape[0])
        self.hidden = int(layers[0][1].shape[0])
        self.layers = len(layers)

    def zeros(self, lanes: int) -> F32:
        """The memory of ``lanes`` lanes at their episodes' start: zeros ``(2, layers, lanes, hidden)``."""
        return np.zeros((2, self.layers, lanes, self.hidden), np.float32)

    def checked(self, memory: npt.ArrayLike, lanes: int) -> F32:
        """``memory`` as float32, checked to be the memory of ``lanes`` lanes.

        Raises:
            ValueError: another shape (the expected one named), or values that are not finite.
        """
        m = np.asarray(memory, dtype=np.float32)
        expected = (2, self.layers, lanes, self.hidden)
        if m.shape != expected:
            raise ValueError(
                f"a memory of {lanes} lane(s) is (2, layers, lanes, hidden) = {expected} (h then c), "
                f"got shape {m.shape}"
            )
        if not np.isfinite(m).all():
            raise ValueError("the memory holds values that are not finite")
        return m

    def step(self, x: F32, memory: F32) -> tuple[F32, F32]:
        """One step of every lane: the last layer's ``h`` ``(lanes, hidden)`` for the inputs ``x`` ``(lanes,
        in_dim)``, and the memory after it (a new array; ``memory`` is left as it was)."""
        after = np.empty_like(memory)
        for k, (inp, rec) in enumerate(zip(self.input, self.recurrent, strict=True)):
            gates = inp(x) + rec(memory[0, k])
            i, f, g, o = np.split(gates, 4, axis=1)
            c = sigmoid(f) * memory[1, k] + sigmoid(i) * np.tanh(g)
            x = sigmoid(o) * np.tanh(c)
            after[0, k], after[1, k] = x, c
        return x, after


def read_lstm(field: object, array: ReadArray, in_dim: int, source: str) -> NumpyLstm:
    """``network.lstm`` of an ``lstm`` policy (``{"layers": [{weight_ih, weight_hh, bias_ih, bias_hh},
    ...]}``, each an array's name), its arrays read by ``array``.

    Raises:
        PolicyFileError: a malformed field, an array missing or of the wrong dimensions (``array``'s), or
            layers whose shapes do not fit: the first taking other than ``in_dim`` inputs (the observation's,
            or its front's features), a hidden size
            that differs between layers, weights or biases not of four gates.
    """
    layers_field = field.get("layers") if isinstance(field, Mapping) else None
    if (
        not isinstance(layers_field, list)
        or not layers_field
        or not all(isinstance(layer, Mapping) for layer in layers_field)
    ):
        raise PolicyFileError(
            f"{source}: network.lstm must be {{layers: [{{weight_ih, weight_hh, bias_ih, bias_hh}}, ...]}}"
        )
    layers: list[tuple[F32, F32, F32, F32]] = []
    for k, layer in enumerate(layers_field):
        arrays = [array(layer.get(name), 2 if name.startswith("weight") else 1, source) for name in ARRAYS]
        hidden = int(arrays[1].shape[0]) if not layers else int(layers[0][1].shape[0])
        takes, gates = (in_dim if k == 0 else hidden), 4 * hidden
        if [a.shape for a in arrays] != [(takes, gates), (hidden, gates), (gates,), (gates,)]:
            shapes = ", ".join(f"{name} {a.shape}" for name, a in zip(ARRAYS, arrays, strict=True))
            raise PolicyFileError(
                f"{source}: network.lstm.layers[{k}] takes {takes} inputs with a hidden size of {hidden}: "
                f"weight_ih must be ({takes}, {gates}), weight_hh ({hidden}, {gates}) and each bias "
                f"({gates},); got {shapes}"
            )
        w_ih, w_hh, b_ih, b_hh = arrays
        layers.append((w_ih, w_hh, b_ih, b_hh))
    return NumpyLstm(layers)
