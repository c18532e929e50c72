"""Process-wide torch settings do not leak from one test to the next."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import torch


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist (``make test``: one worker per core) each worker's torch runs on one thread: two
    workers of two threads each on two cores spun against each other in OpenMP's parallel regions, and the
    quantile agents' learning tests took 40-110 s each in place of 1-3."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        torch.set_num_threads(1)


@pytest.fixture(autouse=True)
def _restore_torch_settings() -> Iterator[None]:
    """The examples' ``configure_torch`` sets the thread count and flushes denormals for the whole process;
    hypothesis (rightly) refuses to run where subnormal floats cannot be represented. Each test starts with
    the settings pytest started with."""
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)
    torch.set_flush_denormal(False)


INTEGRATION_DIRS = ("smoke", "functional", "integration")
"""The integration tier's folders: every example with a tiny budget, learning runs, real servers and kills."""
INTEGRATION_MARKS = ("smoke", "functional", "integration")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test carries its tier's marker: ``integration`` for the folders above and for a test marked
    ``smoke`` or ``functional`` elsewhere (a short learning run among an agent's tests), ``unit`` for the
    rest (the default tier, ``make test``)."""
    for item in items:
        folder = item.path.parent.name
        if folder in INTEGRATION_DIRS:
            item.add_marker(folder)
        marks = {mark.name for mark in item.iter_markers()}
        item.add_marker("integration" if marks & set(INTEGRATION_MARKS) else "unit")
