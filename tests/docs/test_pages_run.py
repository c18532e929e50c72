"""Every Python and shell block of the getting-started page, the tutorials and the from-SB3 page (its
Stable-Baselines3 side too, in its own namespace) runs as the reader would run it, in order, in an empty
folder (``tests/docs/doc_pages.py`` says how the page's directives shorten long budgets or state why a block
does not run; ``tests/docs/page_run.py`` runs them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.doc_pages import ROOT, Block, read_page, shell_commands
from tests.docs.page_run import run_page

DOCS = ROOT / "docs"
PAGES = [
    "getting-started.md",
    "from-sb3.md",
    *sorted(f"tutorials/{p.name}" for p in (DOCS / "tutorials").glob("*.md")),
]


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
    page.write_text("<!-- test-replace: steps=50 -> steps=5 -->\n```python\nrun(step=50)\n```\n")
    with pytest.raises(ValueError, match=r"p\.md:2: test-replace: 'steps=50' is not in the block"):
        read_page(page)


def test_a_replacement_and_a_namespace_reach_only_their_block(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text(
        "<!-- test-namespace: peer -->\n<!-- test-replace: steps=50_000 -> steps=5 -->\n"
        "```python\nrun(steps=50_000)\n```\n\n```python\nrun(steps=50_000)\n```\n"
    )
    peer, own = read_page(page)
    assert (peer.namespace, peer.text, peer.script) == ("peer", "run(steps=50_000)\n", "run(steps=5)\n")
    assert (own.namespace, own.script) == (None, "run(steps=50_000)\n")


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


@pytest.mark.smoke
@pytest.mark.parametrize("page", PAGES)
def test_the_pages_blocks_run_in_order(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_page(DOCS / page, tmp_path, monkeypatch)
