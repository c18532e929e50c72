"""What every fuzz target shares: the property, the watch on writes, and the mutations that make inputs.

The property: a generated input either loads or is refused with one of the errors the CLI prints as one
line (`border_py.run.cli.REFUSED`), with a message; never another exception, and never a write outside
the example's own folder. The watch is a Python audit hook (`sys.addaudithook`): it sees every file
opened for writing, every folder made, file removed, renamed or linked, whichever library does it, and
refuses the operation (so a fuzzed input cannot damage the machine) besides recording it.
"""

from __future__ import annotations

import copy
import os
import shutil
import sys
import tempfile
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from border_py.run.cli import REFUSED

T = TypeVar("T")

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_PATH_EVENTS = {  # audit event -> the positions of the paths it changes, and of their dir_fd
    "os.mkdir": ((0,), 2),
    "os.remove": ((0,), 1),
    "os.rmdir": ((0,), 1),
    "os.rename": ((0, 1), 2),
    "os.replace": ((0, 1), 2),
    "os.symlink": ((1,), 2),
    "os.link": ((1,), 3),
    "os.truncate": ((0,), None),
    "os.chmod": ((0,), 2),
    "os.utime": ((0,), 4),
    "shutil.rmtree": ((0,), 1),
    "shutil.copyfile": ((1,), None),
    "shutil.move": ((1,), None),
}


class WriteOutside(BaseException):
    """Raised inside the operation that would write outside the example's folder, so it never happens.
    A ``BaseException``: no ``except Exception`` in the code under test turns it into a refusal."""


@attrs.define
class _Watch:
    allowed: Path | None = None
    outside: list[str] = attrs.Factory(list)


_WATCH = _Watch()


def _resolve(path: object, dir_fd: object) -> Path | None:
    if isinstance(path, int) or path is None:
        return None  # an open file descriptor: its opening was watched
    where = Path(os.fsdecode(path))  # type: ignore[arg-type]  # str, bytes or PathLike, as os takes
    if not where.is_absolute():
        base = os.readlink(f"/proc/self/fd/{dir_fd}") if isinstance(dir_fd, int) else os.getcwd()
        where = Path(base) / where
    return Path(os.path.normpath(where))


def _hook(event: str, args: tuple[Any, ...]) -> None:
    allowed = _WATCH.allowed
    if allowed is None:
        return
    if event == "open":
        if isinstance(args[2], int) and args[2] & _WRITE_FLAGS:
            targets = [_resolve(args[0], None)]
        else:
            return
    elif event in _PATH_EVENTS:
        positions, fd_at = _PATH_EVENTS[event]
        dir_fd = args[fd_at] if fd_at is not None and fd_at < len(args) else None
        targets = [_resolve(args[i], dir_fd) for i in positions]
    else:
        return
    for target in targets:
        if target is None or "__pycache__" in target.parts:  # Python's own byte-code cache
            continue
        if not target.is_relative_to(allowed):
            _WATCH.outside.append(f"{event} {target}")
            raise WriteOutside(f"{event} {target}")


sys.addaudithook(_hook)  # once per process: hooks cannot be removed; idle unless a watch is on


@contextmanager
def writes_only_under(folder: Path) -> Iterator[list[str]]:
    """Refuses and records, while the block runs, every write outside ``folder``; yields the record."""
    _WATCH.allowed, _WATCH.outside = folder.resolve(), []
    try:
        yield _WATCH.outside
    finally:
        _WATCH.allowed = None


@attrs.frozen
class Outcome:
    """What a fuzz run saw: the inputs tried, how many loaded, and the refusals by exception type."""

    tried: int
    loaded: int
    refused: Counter[str]
    warned: Counter[str]


def fuzz(
    strategy: st.SearchStrategy[T],
    check: Callable[[T, Path, Path], object],
    examples: int,
    root: Path,
    assets: Path,
    *,
    derandomize: bool,
) -> Outcome:
    """Runs ``check(input, folder, assets)`` on ``examples`` inputs drawn from ``strategy``, each in a fresh
    folder under ``root``, asserting the property of the module docstring. Warnings are recorded, not
    raised (the CLI shows them, it does not fail on them)."""
    refused: Counter[str] = Counter()
    warned: Counter[str] = Counter()
    counts = {"tried": 0, "loaded": 0}

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=derandomize,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )
    @given(strategy)
    def prop(value: T) -> None:
        counts["tried"] += 1
        folder = Path(tempfile.mkdtemp(dir=root))
        try:
            with writes_only_under(folder) as outside, warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                said = None
                try:
                    check(value, folder, assets)
                    counts["loaded"] += 1
                except REFUSED as exc:
                    said = f"{type(exc).__name__}: {exc}"
                    refused[type(exc).__name__] += 1
            assert not outside, f"wrote outside {folder}: {outside}"
            assert said is None or said.split(":", 1)[1].strip(), f"{said} has no message"
            warned.update(f"{w.category.__name__}: {str(w.message)[:80]}" for w in caught)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    prop()
    return Outcome(counts["tried"], counts["loaded"], refused, warned)


# -- mutations -----------------------------------------------------------------------------------------

NASTY: list[Any] = [
    -1, 0, 1, -3, 2**31, 2**63, 2**64, 2**128, 2**200, -(2**200), 10**30, 0.5, -0.0, 1e308, 1e-320,
    float("nan"), float("inf"), float("-inf"), True, False, None, "", "x", "nan", "-inf", "1e400", "\x00",
    "../../outside", "/", "~", "..", "a" * 5000, [], {}, [[[[]]]], [None], {"": None}, [1, 2, 3],
    {"__ndarray__": "", "dtype": "<f4", "shape": [1]}, {"__ndarray__": "AAAA", "dtype": "O", "shape": [1]},
    {"__ndarray__": "AAAA", "dtype": "<f4", "shape": [-1]}, {"__float__": "nan"}, {"__float__": "bogus"},
    {"__ndarray__": "AAAAAAAAAAA=", "dtype": "<i8", "shape": [10**12, 10**12]},
]  # fmt: skip
"""Values that break loaders: out of every integer type, non-finite, wrong types, paths, tagged arrays."""


def json_values() -> st.SearchStrategy[Any]:
    """Small JSON trees of any shape, the `NASTY` values among their leaves."""
    leaves = st.one_of(
        st.sampled_from(NASTY),
        st.integers(),
        st.floats(),
        st.text(max_size=20),
        st.booleans(),
        st.none(),
    )
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
        max_leaves=12,
    )


def _nodes(tree: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every node's path; of a long list only the first three items and the last, so that a state with
    an RNG's 625 words is not mutated there nearly always."""
    yield path
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield from _nodes(value, (*path, key))
    elif isinstance(tree, list):
        for i, value in enumerate(tree):
            if i < 3 or i == len(tree) - 1:
                yield from _nodes(value, (*path, i))


@st.composite
def mutated_tree(draw: st.DrawFn, base: Any, deep: bool = True) -> Any:
    """``base`` (a JSON tree) with one to three nodes replaced by `json_values`, removed, or given an
    unknown sibling key."""
    tree = copy.deepcopy(base)
    # Each drawn value copied: a later mutation appending to the [] of NASTY would change NASTY itself, and
    # with it what the next example draws (Hypothesis refuses such a strategy as flaky).
    fresh = json_values().map(copy.deepcopy)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(list(_nodes(tree))))
        if not path:
            return draw(fresh)
        parent = tree
        for step in path[:-1]:
            parent = parent[step]
        action = draw(st.sampled_from(["replace", "replace", "replace", "remove", "add"]))
        if action == "replace":
            parent[path[-1]] = draw(fresh)
        elif action == "remove":
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.text(min_size=1, max_size=12))] = draw(fresh)
        else:
            parent.append(draw(fresh))
    return tree


TEXT_TOKENS = [
    "&a ", "*a", "<<: *a", "!!python/object/apply:os.system ['touch /tmp/fuzz-ran']", "!!binary AAAA",
    "!!set {a}", "!!timestamp 2001-01-01", "{", "}", "[", "]", "- ", ": ", "\t", "\x00", "\ufeff", "\r",
    "1e400", ".nan", "-.inf", "~", "null", "'", '"', "---\n", "...\n", "%YAML 1.1\n", "? ", "|", ">",
    "0x7f", "0o17", "1_000", "2001-01-01", "-1", "18446744073709551616", "true", "yes", "NaN",
    "[" * 2000, "{a: " * 2000, "- " * 500, "\n  ", "\\u0000", "\\ud800", "../../outside",
]  # fmt: skip
"""Pieces of text that parsers trip on: YAML's tags, aliases and nesting, control characters, numbers no
machine type holds, unbalanced brackets, bare surrogates in JSON escapes."""


@st.composite
def mutated_text(draw: st.DrawFn, base: str) -> str:
    """``base`` cut short, with a slice removed, or with `TEXT_TOKENS` or random text put in, one to three
    times."""
    text = base
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["insert", "insert", "replace", "cut", "truncate"]))
        piece = draw(st.sampled_from(TEXT_TOKENS) | st.text(max_size=8))
        if action == "insert":
            text = text[:at] + piece + text[at:]
        elif action == "replace":
            end = draw(st.integers(at, min(len(text), at + 12)))
            text = text[:at] + piece + text[end:]
        elif action == "cut":
            text = text[:at] + text[draw(st.integers(at, len(text))) :]
        else:
            text = text[:at]
    return text
