"""The process-wide torch settings a run makes."""

from __future__ import annotations

import pytest
import torch

from border_py import configure_torch


def test_configure_torch_sets_the_threads_and_flushes_denormals() -> None:
    """tests/conftest.py restores both settings afterwards."""
    torch.set_flush_denormal(False)
    denormal = torch.tensor([1e-39], dtype=torch.float32)  # below float32's smallest normal, 1.2e-38
    assert float(denormal * 1.0) > 0.0
    configure_torch(1)
    assert torch.get_num_threads() == 1
    assert float(denormal * 1.0) == 0.0
    with pytest.raises(ValueError, match="threads must be >= 1"):
        configure_torch(0)
