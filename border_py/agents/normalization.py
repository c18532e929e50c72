"""Normalisation every agent can use: running statistics (PPO's observations and returns) and fixed ones
(an offline dataset's observations)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from torch import nn


class RunningMeanStd:
    """Running mean and variance of a stream of batches (parallel algorithm of Chan et al.), float64: what
    observation and return normalisation divide by.

    Args:
        shape: the shape of one sample.
        epsilon: the weight (in samples) of the prior mean 0 and variance 1, so that the first batch does
            not set a variance of 0.

    Examples:
        >>> stats = RunningMeanStd(shape=(1,), epsilon=0.0)
        >>> stats.update(np.array([[1.0], [3.0]])); stats.mean.tolist(), stats.var.tolist()
        ([2.0], [1.0])
    """

    def __init__(self, shape: tuple[int, ...], epsilon: float = 1e-4) -> None:
        self.mean = np.zeros(shape, np.float64)
        self.var = np.ones(shape, np.float64)
        self.count = epsilon

    def update(self, batch: npt.NDArray[Any]) -> None:
        """Adds a batch (its first axis runs over samples)."""
        batch = np.asarray(batch, np.float64)
        n = batch.shape[0]
        if n == 0:
            return
        mean, var = batch.mean(axis=0), batch.var(axis=0)
        delta, total = mean - self.mean, self.count + n
        self.mean = np.asarray(self.mean + delta * n / total)
        m2 = self.var * self.count + var * n + delta**2 * self.count * n / total
        self.var, self.count = np.asarray(m2 / total), total

    def normalize(self, x: torch.Tensor, clip: float, eps: float = 1e-8) -> torch.Tensor:
        """``clip((x - mean) / sqrt(var + eps), -clip, clip)``, in ``x``'s dtype and device."""
        mean = torch.as_tensor(self.mean, dtype=x.dtype, device=x.device)
        std = torch.as_tensor(np.sqrt(self.var + eps), dtype=x.dtype, device=x.device)
        return ((x - mean) / std).clamp(-clip, clip)

    def state_dict(self) -> dict[str, Any]:
        """The statistics, for a checkpoint (tensors: ``torch.load(weights_only=True)`` reads them)."""
        return {"mean": torch.from_numpy(self.mean), "var": torch.from_numpy(self.var), "count": self.count}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restores what `state_dict` returned.

        Raises:
            ValueError: the statistics have another shape.
        """
        # Loaded onto the agent's device (a model trained on cuda): statistics live on the CPU.
        mean, var = (np.asarray(torch.as_tensor(state[k]).cpu(), np.float64) for k in ("mean", "var"))
        if mean.shape != self.mean.shape or var.shape != self.var.shape:
            raise ValueError(f"normalisation statistics of shape {mean.shape}, expected {self.mean.shape}")
        self.mean, self.var, self.count = mean.copy(), var.copy(), float(state["count"])


class ObsNormalizer(nn.Module):
    """``(obs - mean) / std`` with fixed statistics (an offline dataset's), as a module whose buffers are
    saved with the agent's files; the identity without statistics.

    Examples:
        >>> ObsNormalizer(2, np.array([1.0, 1.0]), np.array([2.0, 2.0]))(torch.tensor([[3.0, 1.0]])).tolist()
        [[1.0, 0.0]]
    """

    mean: torch.Tensor
    std: torch.Tensor

    def __init__(
        self, obs_dim: int, mean: npt.NDArray[Any] | None = None, std: npt.NDArray[Any] | None = None
    ) -> None:
        super().__init__()
        mean = np.zeros(obs_dim) if mean is None else np.asarray(mean, dtype=np.float64).reshape(-1)
        std = np.ones(obs_dim) if std is None else np.asarray(std, dtype=np.float64).reshape(-1)
        if (
            mean.shape != (obs_dim,)
            or std.shape != (obs_dim,)
            or not (np.isfinite(std).all() and (std > 0).all())
        ):
            raise ValueError(f"observation statistics must be {obs_dim} finite means and positive stds")
        self.register_buffer("mean", torch.as_tensor(mean, dtype=torch.float32))
        self.register_buffer("std", torch.as_tensor(std, dtype=torch.float32))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """The normalised observations."""
        return (obs - self.mean) / self.std
