"""Every Python block of the site type-checks under ``mypy --strict`` as a reader would paste it: a page's
blocks in order as one module (one per ``test-namespace`` name: another library's side of a comparison is
its own module; the files its ``test-files`` directives copy beside it, ``examples/`` from a checkout),
with the one setting the guide asks of a user's own torch code, so a renamed argument or a removed name in
a page fails here, on pages no test runs too. A block that shows a mistake (``test-mypy-error``) is checked
alone and must be refused with the error the page names."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.doc_pages import ROOT, Block, read_page

DOCS = ROOT / "docs"
_ERROR = re.compile(r"^(?P<file>[\w.]+\.py):(?P<line>\d+): error: (?P<message>.*)$")


def _modules(tmp_path: Path) -> tuple[dict[str, str], dict[str, str]]:
    """Writes one module per page (``page_<name>.py``) and one per block with an expected error; returns
    where each module came from, and the error each mistake module must produce."""
    sources: dict[str, str] = {}
    expected: dict[str, str] = {}
    for page in sorted(DOCS.rglob("*.md")):
        name = re.sub(r"\W", "_", str(page.relative_to(DOCS).with_suffix("")))
        checked: dict[str | None, list[Block]] = {}
        for block in read_page(page):
            for source, dest in block.files:
                shutil.copyfile(ROOT / source, tmp_path / dest)
            if block.lang != "python" or block.skip is not None or block.files or block.save is not None:
                continue
            if block.mypy_error is not None:
                module = f"mistake_{name}_{block.line}.py"
                (tmp_path / module).write_text(block.text)
                sources[module], expected[module] = f"{page.name}:{block.line}", block.mypy_error
            else:
                checked.setdefault(block.namespace, []).append(block)
        for namespace, blocks in checked.items():
            module = "_".join(filter(None, ["page", name, namespace])) + ".py"
            (tmp_path / module).write_text("\n\n".join(b.text for b in blocks))
            sources[module] = page.name if namespace is None else f"{page.name} ({namespace})"
    return sources, expected


@pytest.mark.smoke
def test_every_python_block_on_the_site_type_checks_and_each_shown_mistake_is_refused(tmp_path: Path) -> None:
    sources, expected = _modules(tmp_path)
    shutil.copytree(ROOT / "examples", tmp_path / "examples")  # the algorithm pages import the programs
    assert len(sources) > 10  # the site's pages were found
    assert len(expected) >= 2  # and the mistakes they show
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(ROOT / ".mypy_cache" / "pages"),
         "--untyped-calls-exclude=torch", "--no-error-summary", *sorted(sources)],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    errors: dict[str, list[str]] = {}
    for line in done.stdout.splitlines():
        match = _ERROR.match(line)
        if match:
            errors.setdefault(match["file"], []).append(f"line {match['line']}: {match['message']}")
    unexpected = {sources.get(m, m): e for m, e in errors.items() if m not in expected}
    assert unexpected == {}, done.stdout + done.stderr
    for module, text in expected.items():
        found = [error for error in errors.get(module, []) if text in error]
        assert found == errors.get(module), (
            f"{sources[module]}: expected only {text!r}, got {errors.get(module)}"
        )
