"""A documentation page as a script: its fenced blocks in order, with the directives (HTML comments, which
the site does not show) that say how a test runs them.

- ``<!-- test-files: SRC -> DEST -->``: the next block shows the repository's file SRC, which the page asks
  the reader to save as DEST: it is copied into the current folder instead of run.
- ``<!-- test-save: DEST -->``: the next block is a file's text (a YAML experiment); save it as DEST.
- ``<!-- test-append VERB: ARGS -->``: append ARGS to every ``border-py VERB`` command (VERB ``python``: every
  ``python`` command) of the next block: long budgets shortened through ``--set``.
- ``<!-- test-replace: OLD -> NEW -->``: the next block runs with OLD replaced by NEW (a Python block's
  long budget shortened, ``total_timesteps=50_000 -> total_timesteps=1_024``); OLD must be in the block, so
  the directive cannot outlive the text it shortens. Type checks read the block as written.
- ``<!-- test-namespace: NAME -->``: the next Python block runs in its own namespace NAME, shared with the
  page's other blocks of that name and type-checked as their own module: another library's code beside
  border_py's (``from-sb3.md``'s Stable-Baselines3 side), each side with its own names.
- ``<!-- test-skip: REASON -->``: the next block does not run; REASON is required.
- ``<!-- test-mypy-error: TEXT -->``: the next block shows a mistake ``mypy --strict`` catches: it is
  checked on its own and must be refused with one error containing TEXT (and it never runs).

Python blocks run in one namespace per page (and one per ``test-namespace`` name); shell blocks (``sh``)
run command by command in bash, in the same folder. A block of another language runs nowhere. An unclosed
fence, a shell block in another spelling (``bash``, ``console``), a skip without a reason, a replacement
whose text is not in its block and a directive that precedes no block are errors.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import attrs

ROOT = Path(__file__).resolve().parents[2]
_FENCE = re.compile(r"^(\s*)```(.*)$")
_DIRECTIVE = re.compile(
    r"^<!-- test-(files|save|append|replace|namespace|skip|mypy-error)( [\w]+)?: (.*?) -->$"
)
_SNIPPET = re.compile(r'^--8<-- "([^"]+)"$')


@attrs.frozen
class Block:
    """A fenced block, what its directives say, and where it starts."""

    lang: str
    text: str
    line: int
    files: tuple[tuple[str, str], ...] = ()
    save: str | None = None
    append: tuple[tuple[str, str], ...] = ()
    skip: str | None = None
    mypy_error: str | None = None
    replace: tuple[tuple[str, str], ...] = ()
    namespace: str | None = None

    @property
    def script(self) -> str:
        """The text that runs: the block's, with its ``test-replace`` directives applied."""
        text = self.text
        for old, new in self.replace:
            text = text.replace(old, new)
        return text


def read_page(page: Path) -> list[Block]:
    """The page's fenced blocks in order (a snippet include read from its file).

    Raises:
        ValueError: an unclosed fence, a shell block spelt other than ``sh``, a skip without a reason, a
            replacement whose text is not in its block, or a directive before no block.
    """
    blocks: list[Block] = []
    pending: dict[str, list[tuple[str, str]]] = {
        "files": [],
        "save": [],
        "append": [],
        "replace": [],
        "namespace": [],
        "skip": [],
        "mypy-error": [],
    }
    lines = page.read_text().splitlines()
    i = 0
    while i < len(lines):
        directive = _DIRECTIVE.match(lines[i].strip())
        if directive:
            kind, verb, value = directive[1], (directive[2] or "").strip(), directive[3].strip()
            if kind == "skip" and not value:
                raise ValueError(f"{page}:{i + 1}: a skipped block needs its reason")
            pending[kind].append((verb, value))
        fence = _FENCE.match(lines[i])
        if fence and not directive:
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == "```"), None)
            if end is None:
                raise ValueError(f"{page}:{i + 1}: the fence opened here is never closed")
            lang = fence[2].strip()
            if lang in ("bash", "shell", "console"):
                raise ValueError(f"{page}:{i + 1}: write shell blocks as ```sh (found ```{lang})")
            body = "\n".join(line[len(fence[1]) :] for line in lines[i + 1 : end]) + "\n"
            include = _SNIPPET.match(body.strip())
            text = (ROOT / include[1]).read_text() if include else body
            blocks.append(_block(lang, text, i + 1, pending, page))
            pending = {key: [] for key in pending}
            i = end
        i += 1
    if any(pending.values()):
        raise ValueError(f"{page}: a test directive at the end precedes no block")
    return blocks


def _block(lang: str, text: str, line: int, pending: dict[str, list[tuple[str, str]]], page: Path) -> Block:
    files = tuple(_arrow(value) for _, value in pending["files"])
    save = pending["save"][-1][1] if pending["save"] else None
    skip = pending["skip"][-1][1] if pending["skip"] else None
    error = pending["mypy-error"][-1][1] if pending["mypy-error"] else None
    replace = tuple(_arrow(value, "test-replace") for _, value in pending["replace"])
    missing = [old for old, _ in replace if old not in text]
    if missing:
        raise ValueError(f"{page}:{line}: test-replace: {missing[0]!r} is not in the block")
    namespace = pending["namespace"][-1][1] if pending["namespace"] else None
    append = tuple(pending["append"])
    return Block(lang, text, line, files, save, append, skip, error, replace, namespace)


def _arrow(value: str, directive: str = "test-files") -> tuple[str, str]:
    source, sep, dest = value.partition(" -> ")
    if not sep:
        raise ValueError(f"{directive}: expected 'SRC -> DEST', got {value!r}")
    return source.strip(), dest.strip()


def shell_commands(block: Block) -> list[list[str]]:
    """The block's commands as argument lists (continuation lines joined, comments dropped, ``export``
    kept), each with what the block's ``test-append`` directives add to it."""
    joined = block.script.replace("\\\n", " ")
    commands = []
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        if not words:
            continue
        for verb, extra in block.append:
            if _verb(words) == verb:
                words = [*words, *shlex.split(extra)]
        commands.append(words)
    return commands


def _verb(words: list[str]) -> str | None:
    """``train`` for ``border-py train ...``; ``python`` for a program (``python -m examples.X ...``)."""
    if words[0] == "border-py" and len(words) > 1:
        return words[1]
    return "python" if words[0] == "python" else None
