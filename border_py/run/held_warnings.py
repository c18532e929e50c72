"""Warnings held back while a run is checked, so that a refused run's stderr is its one error line.

`held_warnings` holds back the warnings of the thread that enters it (Gymnasium's "out of date" among
them) until the function it yields is called (every check passed); then the caller says each, one line
apiece, and later warnings are shown as Python shows them.

Python has one ``warnings.showwarning`` for the whole process, so holding is a handler over it that
routes a warning by thread: the holding thread's are kept, any other thread's go to the handler found when
the first hold began. The last hold to end puts that handler back, so a call leaves
``warnings.showwarning`` as it found it, whatever holds overlapped it (two runs checked at once in
threads, one of which ends first, left the other's handler in place before, swallowing every warning
after it).
"""

from __future__ import annotations

import re
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol, TextIO

ANSI = re.compile(r"\x1b\[[0-9;]*m")
"""Terminal colour codes (Gymnasium colours its warnings): a held warning is said as plain text."""


class ShowWarning(Protocol):
    """The signature of ``warnings.showwarning``."""

    def __call__(
        self,
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None: ...


_LOCK = threading.Lock()
_HOLDERS: dict[int, list[str]] = {}
"""The warnings each holding thread (by `threading.get_ident`) holds, as lines."""
_FOUND: list[ShowWarning] = []
"""The ``warnings.showwarning`` that `_show` was put over (set when it first is)."""
_INSTALLED: list[bool] = [False]
"""Whether `_show` is in the chain of handlers: put over `_FOUND` and not put back yet (a handler the
program put over it during a hold keeps it there: that handler may hand warnings on to it)."""


def _show(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """``warnings.showwarning`` while anything holds: keeps the holding thread's, shows the others'."""
    kept = _HOLDERS.get(threading.get_ident())
    if kept is None:
        _FOUND[0](message, category, filename, lineno, file, line)
        return
    text = " ".join(ANSI.sub("", str(message)).split())
    kept.append(f"warning: {text.removeprefix('WARN: ')}")


def _begin(ident: int, kept: list[str]) -> list[str] | None:
    """Registers ``kept`` as thread ``ident``'s held warnings (returns the hold it nests in, if any),
    putting `_show` over the handler found unless it is in the chain already."""
    with _LOCK:
        outer = _HOLDERS.get(ident)
        if not _INSTALLED[0]:
            if warnings.showwarning is not _show:  # a stale reference put back (catch_warnings): no loop
                _FOUND[:] = [warnings.showwarning]
            warnings.showwarning = _show
            _INSTALLED[0] = True
        _HOLDERS[ident] = kept
        return outer


def _end(ident: int, outer: list[str] | None) -> None:
    """Ends thread ``ident``'s hold; the last hold puts the handler found back (unless the program put
    its own over `_show` meanwhile: `_show` then hands every warning on)."""
    with _LOCK:
        if outer is None:
            _HOLDERS.pop(ident, None)
        else:
            _HOLDERS[ident] = outer
        if not _HOLDERS and warnings.showwarning is _show:
            warnings.showwarning = _FOUND[0]
            _INSTALLED[0] = False


@contextmanager
def held_warnings() -> Iterator[Callable[[], list[str]]]:
    """Holds back this thread's warnings until the yielded function is called, which ends the hold and
    returns them (one line each, in order; a second call returns none); the hold ends at the block's end
    in any case.

    Holds nest and overlap (in one thread or several); once the last has ended, ``warnings.showwarning``
    is the handler found when the first began.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("always")
        ...     with held_warnings() as release:
        ...         warnings.warn("\x1b[33mWARN: out of date\x1b[0m", stacklevel=1)
        ...         release()
        ['warning: out of date']
    """
    ident = threading.get_ident()
    kept: list[str] = []
    outer = _begin(ident, kept)
    ended = False

    def release() -> list[str]:
        nonlocal ended
        if not ended:
            ended = True
            _end(ident, outer)
        lines = kept[:]
        kept.clear()  # said once
        return lines

    try:
        yield release
    finally:
        release()


@contextmanager
def one_line_own_warnings() -> Iterator[None]:
    r"""border_py's own warnings (a category defined in border_py, `ResumeWarning`) said as one line,
    ``warning: ResumeWarning: ...``, for the block, without Python's ``file:line:`` and the echo of the
    source line that warned; other warnings as Python formats them.

    Example:
        >>> from border_py.trainer.sampler import ResumeWarning
        >>> with one_line_own_warnings():
        ...     warnings.formatwarning("new\nepisodes", ResumeWarning, "sampler.py", 3)
        'warning: ResumeWarning: new episodes\n'
    """
    found = warnings.formatwarning

    def formatted(
        message: Warning | str, category: type[Warning], filename: str, lineno: int, line: str | None = None
    ) -> str:
        if category.__module__.split(".")[0] == "border_py":
            return f"warning: {category.__name__}: {' '.join(str(message).split())}\n"
        return found(message, category, filename, lineno, line)

    warnings.formatwarning = formatted
    try:
        yield
    finally:
        warnings.formatwarning = found
