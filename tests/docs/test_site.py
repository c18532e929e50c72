"""The documentation site cannot drift from the code: every public name has a reference entry, and every
Python block of the getting-started page and the tutorials runs (the site's build itself, with
``--strict``, is ``make docs``)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import border_py
from border_py import _EXPORTS

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = ["getting-started.md", *sorted(f"tutorials/{p.name}" for p in (DOCS / "tutorials").glob("*.md"))]
_BLOCK = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)
_SNIPPET = re.compile(r'^--8<-- "([^"]+)"$')


def python_blocks(page: Path) -> list[str]:
    """The page's Python blocks, in order; a block that is a snippet include is the file it names."""
    blocks = []
    for body in _BLOCK.findall(page.read_text()):
        include = _SNIPPET.match(body.strip())
        blocks.append((ROOT / include[1]).read_text() if include else body)
    return blocks


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


def test_every_tutorial_and_the_getting_started_page_has_python_to_run() -> None:
    assert len(PAGES) == 7
    assert all(python_blocks(DOCS / page) for page in PAGES)


@pytest.mark.parametrize("page", PAGES)
def test_the_pages_python_blocks_run_in_order(
    page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(ROOT))
    monkeypatch.setenv("RAY_NODE_IP_ADDRESS", os.environ.get("RAY_NODE_IP_ADDRESS", "127.0.0.1"))
    namespace: dict[str, object] = {"__name__": f"docs_{Path(page).stem}"}
    for i, block in enumerate(python_blocks(DOCS / page)):
        exec(compile(block, f"{page} block {i + 1}", "exec"), namespace)
