"""Every Python and shell block of the getting-started page and the tutorials runs as the reader would run
it, in order, in an empty folder (``tests/docs/doc_pages.py`` says how the page's directives shorten long
budgets or state why a block does not run)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.doc_pages import ROOT, Block, read_page, shell_commands

DOCS = ROOT / "docs"
PAGES = ["getting-started.md", *sorted(f"tutorials/{p.name}" for p in (DOCS / "tutorials").glob("*.md"))]


@pytest.mark.parametrize("page", PAGES)
def test_a_page_parses_and_runs_something(page: str) -> None:
    blocks = read_page(DOCS / page)
    assert any(b.lang in ("python", "sh") and b.skip is None for b in blocks)


def test_a_page_with_an_unclosed_fence_or_a_reasonless_skip_is_refused(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text("text\n\n```python\nx = 1\n\nmore text\n")
    with pytest.raises(ValueError, match="never closed"):
        read_page(page)
    page.write_text("<!-- test-skip:  -->\n```sh\nls\n```\n")
    with pytest.raises(ValueError, match="needs its reason"):
        read_page(page)
    page.write_text("```bash\nls\n```\n")
    with pytest.raises(ValueError, match="write shell blocks as"):
        read_page(page)


def test_appended_arguments_reach_only_their_verb() -> None:
    block = Block(
        "sh",
        "border-py train dqn --env CartPole-v1   # a comment\n"
        "border-py eval --model-dir runs/x \\\n  --episodes 3\n",
        1,
        append=(("train", "--set trainer.max_opts=10"),),
    )
    assert shell_commands(block) == [
        ["border-py", "train", "dqn", "--env", "CartPole-v1", "--set", "trainer.max_opts=10"],
        ["border-py", "eval", "--model-dir", "runs/x", "--episodes", "3"],
    ]


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


@pytest.mark.smoke
@pytest.mark.parametrize("page", PAGES)
def test_the_pages_blocks_run_in_order(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # `python` in a folder imports the modules there
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONUNBUFFERED": "1"}
    env.setdefault("RAY_NODE_IP_ADDRESS", "127.0.0.1")
    monkeypatch.setenv("RAY_NODE_IP_ADDRESS", env["RAY_NODE_IP_ADDRESS"])
    namespace: dict[str, object] = {"__name__": f"docs_{Path(page).stem}"}
    for block in read_page(DOCS / page):
        for source, dest in block.files:
            shutil.copyfile(ROOT / source, tmp_path / dest)
        if block.skip is not None or block.files or block.mypy_error is not None:
            continue
        if block.save is not None:
            (tmp_path / block.save).write_text(block.text)
        elif block.lang == "python":
            exec(compile(block.text, f"{page} block at line {block.line}", "exec"), namespace)
        elif block.lang == "sh":
            _run_shell(block, env, tmp_path, page)
