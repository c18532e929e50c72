"""A multilayer perceptron in numpy alone: what an exported policy (`border_py.export.numpy_policy`) and an
agent's numpy acting path (`border_py.agents.toolkit`) both run.

It sits below both: the agents build on it and the exporters on the agents, so neither imports the other
to reach it. Nothing here imports torch.
"""

from __future__ import annotations

from typing import TypeAlias

import numpy as np
import numpy.typing as npt

F32: TypeAlias = npt.NDArray[np.float32]


def relu(x: F32) -> F32:
    """``max(x, 0)``, elementwise, in float32."""
    return np.maximum(x, np.float32(0.0))


class Mlp:
    """Linear layers with ReLU (or tanh) between them (and after the last one when ``relu_out``), each
    ``(weight (in, out), bias)``: an exported policy's networks (`border_py.export.NumpyPolicy`), and an
    agent's numpy acting path (`border_py.agents.toolkit.NumpyMlp`).

    Batch-invariant: each observation's output is computed on its own, the same product whatever else is
    in the batch, so ``mlp(x)[i]`` equals ``mlp(x[i:i + 1])[0]`` bit for bit. A 2-d input ``(n, in)`` is
    taken as n products of one row (numpy's matrix-vector kernel, as for a batch of one); a 3-d input
    ``(n, k, in)`` as n products of ``k`` rows (IQN's fractions of one observation). One matrix product
    over the whole batch would be faster for large batches, but BLAS sums a row in another order when the
    batch has other rows, so a batched evaluation would not play the same episodes as one after another.
    """

    def __init__(self, layers: list[tuple[F32, F32]], relu_out: bool, tanh: bool = False) -> None:
        self.layers = layers
        self.relu_out = relu_out
        self.activation = np.tanh if tanh else relu

    @property
    def in_dim(self) -> int:
        return int(self.layers[0][0].shape[0])

    @property
    def out_dim(self) -> int:
        return int(self.layers[-1][0].shape[1])

    def __call__(self, x: F32) -> F32:
        """``(n, in) -> (n, out)`` or ``(n, k, in) -> (n, k, out)``, each of the n on its own."""
        # A stack of n matrices: numpy's matmul multiplies each on its own, with the kernel of a 2-d product
        # of that shape (one row: matrix-vector). A single row is that 2-d product already (no view to make).
        rows = x.ndim == 2 and x.shape[0] > 1
        h = x[:, None, :] if rows else x
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            h = np.matmul(h, w) + b
            if i < last or self.relu_out:
                h = self.activation(h)
        return h[:, 0, :] if rows else h
