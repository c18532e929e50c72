"""Process-wide torch settings do not leak from one test to the next."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch


@pytest.fixture(autouse=True)
def _restore_torch_settings() -> Iterator[None]:
    """The examples' ``configure_torch`` sets the thread count and flushes denormals for the whole process;
    hypothesis (rightly) refuses to run where subnormal floats cannot be represented. Each test starts with
    the settings pytest started with."""
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)
    torch.set_flush_denormal(False)
