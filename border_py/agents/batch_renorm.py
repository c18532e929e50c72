"""Batch renormalisation (Ioffe, 2017) as CrossQ uses it: `BatchRenorm`, the layer; `renorm_statistics`,
its arithmetic after the warm-up; `train_mode`, the block in which a network normalises with its batch;
and `folded_linear_layers`, a network's eval-mode normalisations folded into its linear layers (export).

The layer is SBX's ``BatchRenorm`` (sbx 0.28.0, ``sbx/common/jax_layers.py``), which sb3-contrib's
``BatchRenorm1d`` follows: in train mode it normalises with the batch's statistics, plain batch
normalisation, for its first ``warmup_steps`` calls, then with the batch's statistics corrected towards the
running ones (``r`` and ``d``, clipped to ``r_max`` and ``d_max``, fixed; the paper's schedule that relaxes
them is not SBX's); the running statistics follow every train-mode batch; in eval mode it normalises with
the running statistics alone.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from border_py.agents.greedy import F32, f32

__all__ = ["BatchRenorm", "folded_linear_layers", "renorm_statistics", "train_mode"]

F64 = npt.NDArray[np.float64]


def renorm_statistics(
    mean: torch.Tensor,
    var: torch.Tensor,
    running_mean: torch.Tensor,
    running_var: torch.Tensor,
    eps: float,
    r_max: float,
    d_max: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The mean and variance batch renormalisation normalises with after its warm-up: ``mean - d sqrt(var)
    / r`` and ``var / r^2``, with ``r = sqrt(var + eps) / sqrt(running_var + eps)`` clipped to ``[1 / r_max,
    r_max]`` and ``d = (mean - running_mean) / sqrt(running_var + eps)`` clipped to ``[-d_max, d_max]``
    (SBX's form of Ioffe's ``(x - mean) / std * r + d``). No gradient flows through ``r`` and ``d``; one
    flows through the batch's ``mean`` and ``var``.

    Examples:
        >>> one = torch.ones(1)
        >>> renorm_statistics(2 * one, 4 * one, 0 * one, 1 * one, 0.0, 3.0, 5.0)  # r 2, d 2: 2 - 2 x 2 / 2
        (tensor([0.]), tensor([1.]))
    """
    with torch.no_grad():
        running_std = (running_var + eps).sqrt()
        r = ((var + eps).sqrt() / running_std).clamp(1.0 / r_max, r_max)
        d = ((mean - running_mean) / running_std).clamp(-d_max, d_max)
    # sqrt(var) with a gradient that stays finite where a feature is constant over the batch (var 0): SBX's
    # sqrt would send 0 x inf = NaN back into the layers below.
    std = var.clamp_min(torch.finfo(var.dtype).tiny).sqrt()
    return mean - d * std / r, var / r**2


class BatchRenorm(nn.Module):
    """Batch renormalisation of the last dimension of ``x`` ``(..., batch, features)``, over its batch
    dimension (-2), with a trained scale (``weight``, ones at first) and shift (``bias``, zeros).

    ``shape`` is the shape of its statistics and affine parameters: ``(features,)`` for one network's layer,
    ``(n, 1, features)`` for ``n`` stacked networks (`border_py.agents.ensemble.CriticEnsemble`), each with
    statistics of its own, over an input ``(n, batch, features)`` or ``(1, batch, features)`` (one batch
    that every member normalises). The running statistics and the count of train-mode calls are buffers:
    saved with the network, so a resumed run normalises as the run it continues.

    Args:
        shape: of the statistics and the affine parameters (their last entry: the features).
        momentum: unitless: the weight of each batch in the running statistics, ``running <- (1 -
            momentum) running + momentum batch`` (torch's convention; SBX's 0.99 is flax's, ``1 -
            momentum``).
        eps: added to each variance before its square root.
        warmup_steps: in train-mode calls: plain batch normalisation before that many, renormalisation
            from then on.
        r_max: the clip of the scale correction ``r`` to ``[1 / r_max, r_max]``.
        d_max: the clip of the shift correction ``d`` to ``[-d_max, d_max]``.

    Examples:
        >>> norm = BatchRenorm((2,), momentum=0.5, eps=0.0, warmup_steps=10, r_max=3.0, d_max=5.0)
        >>> norm(torch.tensor([[0.0, 1.0], [2.0, 5.0]])).detach()  # the batch's means (1, 3), stds (1, 2)
        tensor([[-1., -1.],
                [ 1.,  1.]])
        >>> norm.running_mean, norm.running_var  # halfway from (0, 0) to (1, 3), from (1, 1) to (1, 4)
        (tensor([0.5000, 1.5000]), tensor([1.0000, 2.5000]))
    """

    running_mean: torch.Tensor
    running_var: torch.Tensor
    steps: torch.Tensor

    def __init__(
        self,
        shape: Sequence[int],
        *,
        momentum: float,
        eps: float,
        warmup_steps: int,
        r_max: float,
        d_max: float,
    ) -> None:
        super().__init__()
        if not shape or any(s < 1 for s in shape):
            raise ValueError(f"BatchRenorm's shape must be sizes >= 1, got {tuple(shape)}")
        self.momentum, self.eps, self.warmup_steps = momentum, eps, warmup_steps
        self.r_max, self.d_max = r_max, d_max
        self.weight = nn.Parameter(torch.ones(*shape))
        self.bias = nn.Parameter(torch.zeros(*shape))
        self.register_buffer("running_mean", torch.zeros(*shape))
        self.register_buffer("running_var", torch.ones(*shape))
        self.register_buffer("steps", torch.tensor(0, dtype=torch.int64))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x`` normalised: with the batch's statistics (train mode: counted, the running statistics
        follow) or the running ones (eval mode), then scaled and shifted."""
        if not self.training:
            mean, var = self.running_mean, self.running_var
        else:
            # (features,) for one network, (1 or n, 1, features) for stacked ones: the running ones' shape.
            stacked = self.running_mean.dim() > 1
            batch_mean = x.mean(dim=-2, keepdim=stacked)
            batch_var = x.var(dim=-2, keepdim=stacked, correction=0)  # biased, as SBX's (flax's)
            renorm_mean, renorm_var = renorm_statistics(
                batch_mean, batch_var, self.running_mean, self.running_var, self.eps, self.r_max, self.d_max
            )
            # Both computed and one selected on the device, as SBX does: no host sync to read the count.
            warmed_up = self.steps >= self.warmup_steps
            mean = torch.where(warmed_up, renorm_mean, batch_mean)
            var = torch.where(warmed_up, renorm_var, batch_var)
            with torch.no_grad():  # after r and d: they compare the batch with the statistics before it
                self.running_mean.lerp_(batch_mean.detach(), self.momentum)
                self.running_var.lerp_(batch_var.detach(), self.momentum)
                self.steps += 1
        return (x - mean) * torch.rsqrt(var + self.eps) * self.weight + self.bias

    def eval_affine(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The eval-mode layer as ``x * scale + shift`` (its running statistics and affine parameters
        folded together), each of the statistics' shape."""
        with torch.no_grad():
            scale = self.weight * torch.rsqrt(self.running_var + self.eps)
            return scale, self.bias - self.running_mean * scale

    def extra_repr(self) -> str:
        return (
            f"{tuple(self.weight.shape)}, momentum={self.momentum}, eps={self.eps}, "
            f"warmup_steps={self.warmup_steps}, r_max={self.r_max}, d_max={self.d_max}"
        )


@contextmanager
def train_mode(module: nn.Module) -> Iterator[None]:
    """``module`` in train mode for the block (its normalisations use the batch and update their running
    statistics), then in the mode it was in.

    Examples:
        >>> net = nn.Linear(1, 1).eval()
        >>> with train_mode(net):
        ...     net.training
        True
        >>> net.training
        False
    """
    was_training = module.training
    module.train()
    try:
        yield
    finally:
        module.train(was_training)


def folded_linear_layers(module: nn.Sequential) -> list[tuple[F32, F32]]:
    """The ``(weight (in, out), bias)`` of each linear layer of ``module``, with every eval-mode
    `BatchRenorm` before it (an affine map of each feature) folded into it; the activations between stay
    where they are. The layers compute what ``module`` computes in eval mode.

    Raises:
        ValueError: a normalisation follows the last linear layer (nothing to fold it into), or is not of
            one network (statistics ``(features,)``).
    """
    layers: list[tuple[F32, F32]] = []
    pending: tuple[F64, F64] | None = None
    for layer in module:
        if isinstance(layer, BatchRenorm):
            if layer.running_mean.dim() != 1:
                raise ValueError("only a single network's normalisations fold into its layers")
            scale, shift = (t.detach().cpu().double().numpy() for t in layer.eval_affine())
            # Two normalisations in a row compose: x s1 + t1, then (.) s2 + t2.
            pending = (scale, shift) if pending is None else (pending[0] * scale, pending[1] * scale + shift)
        elif isinstance(layer, nn.Linear):
            weight = layer.weight.detach().cpu().double().numpy().T  # (in, out)
            bias = layer.bias.detach().cpu().double().numpy()
            if pending is not None:  # (x s + t) W + b = x (s W) + (t W + b)
                scale, shift = pending
                weight, bias = scale[:, None] * weight, bias + shift @ weight
                pending = None
            layers.append((f32(weight), f32(bias)))
        elif pending is not None:
            raise ValueError(f"a normalisation is followed by {type(layer).__name__}, not a linear layer")
    if pending is not None:
        raise ValueError("a normalisation after the last linear layer cannot be folded into it")
    return layers
