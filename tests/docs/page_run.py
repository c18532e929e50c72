"""A page's blocks run as the reader would run them, in order, in an empty folder: Python blocks in one
namespace per page (and one per ``test-namespace`` name), shell blocks command by command in bash, with what
the page's directives say (``tests/docs/doc_pages.py``). The documentation pages run here
(``test_pages_run.py``), and so does the README (``tests/smoke/test_readme.py``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.doc_pages import ROOT, Block, read_page, shell_commands


def run_page(page: Path, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs every block of ``page`` that its directives do not hold back, in order, in ``folder``.

    Raises:
        AssertionError: a shell command exited with a non-zero status (its output in the message).
    """
    monkeypatch.chdir(folder)
    monkeypatch.syspath_prepend(str(folder))  # `python` in a folder imports the modules there
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONUNBUFFERED": "1"}
    env.setdefault("RAY_NODE_IP_ADDRESS", "127.0.0.1")
    monkeypatch.setenv("RAY_NODE_IP_ADDRESS", env["RAY_NODE_IP_ADDRESS"])
    label = page.relative_to(ROOT) if page.is_relative_to(ROOT) else page
    namespaces: dict[str | None, dict[str, object]] = {}
    for block in read_page(page):
        for source, dest in block.files:
            shutil.copyfile(ROOT / source, folder / dest)
        if block.skip is not None or block.files or block.mypy_error is not None:
            continue
        if block.save is not None:
            (folder / block.save).write_text(block.text)
        elif block.lang == "python":
            name = "_".join(filter(None, ["docs", page.stem, block.namespace]))
            namespace = namespaces.setdefault(block.namespace, {"__name__": name})
            exec(compile(block.script, f"{label} block at line {block.line}", "exec"), namespace)
        elif block.lang == "sh":
            _run_shell(block, env, folder, str(label))


def _run_shell(block: Block, env: dict[str, str], cwd: Path, page: str) -> None:
    for words in shell_commands(block):
        if words[0] == "export":
            name, _, value = words[1].partition("=")
            env[name] = value
            continue
        done = subprocess.run(
            words, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False
        )
        assert done.returncode == 0, (
            f"{page} line {block.line}: {' '.join(words)}\n{done.stdout}\n{done.stderr}"
        )
