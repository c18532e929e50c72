"""Whether a batched forward gives the same float32 bits as batch-1 forwards (issue 38's batched
evaluation): ``python -m benchmarks.batch_bits`` prints, per MLP, how many rows differ and by how much."""

from __future__ import annotations

import itertools

import torch
from torch import nn

SIZES = ((4, 64, 64, 2), (3, 256, 256, 1), (17, 256, 256, 6))
BATCHES = (2, 5, 10, 64)


def mlp(sizes: tuple[int, ...]) -> nn.Sequential:
    """Linear layers with ReLU between them, torch's default initialisation."""
    layers: list[nn.Module] = []
    for a, b in itertools.pairwise(sizes):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers[:-1])


def differing_rows(net: nn.Sequential, n_in: int) -> tuple[int, int, float]:
    """Rows whose batched output differs from the batch-1 output, rows compared, largest difference."""
    differ, rows, worst = 0, 0, 0.0
    for n in BATCHES:
        x = torch.randn(n, n_in)
        with torch.inference_mode():
            full = net(x)
            one = torch.cat([net(x[i : i + 1]) for i in range(n)])
        differ += int((full != one).any(dim=1).sum())
        rows += n
        worst = max(worst, float((full - one).abs().max()))
    return differ, rows, worst


def main() -> None:
    torch.manual_seed(0)
    torch.set_num_threads(1)
    for sizes in SIZES:
        differ, rows, worst = differing_rows(mlp(sizes), sizes[0])
        print(f"{'-'.join(map(str, sizes))}: {differ} of {rows} rows differ, by at most {worst:.1e}")


if __name__ == "__main__":
    main()
