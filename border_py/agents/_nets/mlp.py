"""Multi-layer perceptrons."""

from __future__ import annotations

from collections.abc import Sequence

from torch import nn


def mlp(in_dim: int, out_dim: int, hidden: Sequence[int]) -> nn.Sequential:
    """A ReLU MLP ``in_dim -> hidden[0] -> ... -> out_dim`` with a linear output layer.

    Example:
        >>> mlp(4, 2, (64, 64))[0]
        Linear(in_features=4, out_features=64, bias=True)
    """
    if in_dim < 1 or out_dim < 1 or any(h < 1 for h in hidden):
        raise ValueError(f"mlp sizes must be >= 1, got in {in_dim}, hidden {tuple(hidden)}, out {out_dim}")
    layers: list[nn.Module] = []
    last = in_dim
    for width in hidden:
        layers += [nn.Linear(last, width), nn.ReLU()]
        last = width
    layers.append(nn.Linear(last, out_dim))
    return nn.Sequential(*layers)
