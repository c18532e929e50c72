"""The documentation site cannot drift from the code: the API reference has one page per module and every
public name on one of them (the pages' blocks run in test_pages_run.py; the site's build itself, with
``--strict``, is ``make docs``)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import yaml

import border_py

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "docs" / "reference"
PACKAGES = ("base", "trainer", "envs", "replay_buffer", "agents", "recorders", "distributed", "export", "run")
"""The subpackages whose ``__all__`` is public API beside ``border_py.__all__``."""
_DIRECTIVE = re.compile(r"^::: (border_py[\w.]*)\n((?:    .*\n)*)", re.M)


def documented() -> dict[str, set[str]]:
    """Each module a reference page renders, with the names it shows (its ``members:``, else its
    ``__all__``)."""
    found: dict[str, set[str]] = {}
    for page in sorted(REFERENCE.glob("*.md")):
        for module, options in _DIRECTIVE.findall(page.read_text()):
            members = (yaml.safe_load(options) or {}).get("options", {}).get("members")
            names = members if members is not None else importlib.import_module(module).__all__
            found.setdefault(module, set()).update(names)
    return found


def _public_names() -> dict[str, str]:
    """Every public name, by the module it is documented at (``border_py``'s own names at the module
    that defines them)."""
    from border_py import _EXPORTS

    names = {name: module for name, module in _EXPORTS.items() if name in border_py.__all__}
    for package in PACKAGES:
        module = f"border_py.{package}"
        names.update(dict.fromkeys(importlib.import_module(module).__all__, module))
    return names


def test_every_public_name_is_on_the_reference_page_of_its_module() -> None:
    pages = documented()
    missing = {name: module for name, module in _public_names().items() if name not in pages.get(module, ())}
    assert missing == {}


def test_every_member_a_page_lists_exists() -> None:
    unknown = {
        f"{module}.{name}"
        for module, names in documented().items()
        for name in names
        if not hasattr(importlib.import_module(module), name)
    }
    assert unknown == set()


def test_each_reference_page_renders_one_module() -> None:
    for page in REFERENCE.glob("*.md"):
        if page.name != "index.md":
            assert len(_DIRECTIVE.findall(page.read_text())) == 1, page.name
