"""Every parser and loader a user's words or a model directory's files reach, fed generated inputs
(`tests.fuzz.targets`): each input loads or is refused in one line, and nothing is written outside the
test's folder (`tests.fuzz.harness`). A short, fixed budget runs in the integration tier; ``make
test-fuzz`` runs thousands of random inputs per target (marker ``fuzz_long``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import strategies as st

from tests.fuzz.harness import WriteOutside, fuzz
from tests.fuzz.targets import TARGETS, Target

SHORT = 60
"""Inputs per target in the integration tier: the same ones every run (derandomized)."""
LONG = 3000
"""Inputs per target under ``-m fuzz_long``: new random ones every run."""


def _run(target: Target, examples: int, tmp_path_factory: pytest.TempPathFactory, fixed: bool) -> None:
    assets, root = tmp_path_factory.mktemp("assets"), tmp_path_factory.mktemp(target.name)
    outcome = fuzz(target.inputs(assets), target.check, examples, root, assets, derandomize=fixed)
    print(f"{target.name}: {outcome}")  # shown with -rP: what a long run tried and saw
    assert outcome.tried >= min(examples, 10)


@pytest.mark.integration
@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_generated_inputs_load_or_are_refused_in_one_line(
    target: Target, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _run(target, SHORT, tmp_path_factory, fixed=True)


@pytest.mark.integration
@pytest.mark.fuzz_long
@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_many_random_inputs_load_or_are_refused_in_one_line(
    target: Target, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _run(target, LONG, tmp_path_factory, fixed=False)


@pytest.mark.integration
def test_the_watch_stops_a_write_outside_the_examples_folder(tmp_path: Path) -> None:
    """The harness itself: a loader that writes beside its folder fails the property, and the write never
    happens."""
    victim = tmp_path / "victim.txt"

    def writes_outside(value: int, folder: Path, assets: Path) -> None:
        victim.write_text("written")

    (tmp_path / "root").mkdir()
    with pytest.raises(WriteOutside, match=r"victim\.txt"):
        fuzz(st.just(0), writes_outside, 1, tmp_path / "root", tmp_path, derandomize=True)
    assert not victim.exists()
