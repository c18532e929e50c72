"""Every Python and shell block of the README runs as written, in order, in an empty folder, with the
directives of the documentation pages (``tests/docs/doc_pages.py``: HTML comments, which GitHub does not
show, shorten the budgets or say why a block does not run), so the README cannot drift from the code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.doc_pages import ROOT, read_page
from tests.docs.page_run import run_page

README = ROOT / "README.md"


def test_the_readme_parses_and_runs_python_and_shell_blocks() -> None:
    assert {b.lang for b in read_page(README) if b.skip is None} >= {"python", "sh"}


@pytest.mark.smoke
def test_the_readmes_blocks_run_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_page(README, tmp_path, monkeypatch)
    assert (tmp_path / "runs" / "again" / "best").is_dir()  # the command line's train --config
    assert (tmp_path / "runs" / "tune.db").is_file()  # and its tune
