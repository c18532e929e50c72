"""The documentation site cannot drift from the code: every public name has a reference entry (the pages'
blocks run in test_pages_run.py; the site's build itself, with ``--strict``, is ``make docs``)."""

from __future__ import annotations

import re
from pathlib import Path

import border_py
from border_py import _EXPORTS

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def test_every_public_name_has_a_reference_entry_at_its_module() -> None:
    entries = re.findall(r"^::: (border_py\.[\w.]+)$", (DOCS / "reference.md").read_text(), re.M)
    documented = {
        entry.rsplit(".", 1)[1]: entry.rsplit(".", 1)[0] for entry in entries if entry.count(".") >= 2
    }
    missing = sorted(set(border_py.__all__) - set(documented))
    assert missing == []
    wrong = {
        name: module for name, module in documented.items() if name in _EXPORTS and _EXPORTS[name] != module
    }
    assert wrong == {}
