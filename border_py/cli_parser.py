"""The argument parser of every border_py command line (``border-py``, its ``plot`` and ``datasets``, the
example programs): argparse's, with a mistake said as one line on stderr and exit status 2, as every other
refusal of the CLI is (argparse prints the whole usage first, nine lines for ``border-py train``), and its
help in plain text though the descriptions are docstrings written in reST (`plain`)."""

from __future__ import annotations

import argparse
import re
from typing import Any, NoReturn

_LITERAL = re.compile(r"``([^`]+)``")
_ROLE = re.compile(r"(?<![`\w])`([^`\n]+)`(?!`)")


def plain(text: str) -> str:
    r"""``text`` (a docstring in reST) as a terminal shows it: literals and references without their
    backquotes, a bare ``::`` line dropped, a paragraph's closing ``::`` one colon.

    Examples:
        >>> plain("Run ``border-py train``, see `Trainer`::\n\n    border-py zoo")
        'Run border-py train, see Trainer:\n\n    border-py zoo'
        >>> plain("Examples:\n\n::\n\n    x")
        'Examples:\n\n    x'
    """
    lines = [line for line in text.split("\n") if line.strip() != "::"]
    text = "\n".join(lines)
    text = re.sub(r"(?<=\S)::$", ":", text, flags=re.M)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return _ROLE.sub(r"\1", _LITERAL.sub(r"\1", text))


class PlainHelpFormatter(argparse.RawDescriptionHelpFormatter):
    """The description's lines kept as written (the examples' columns), its reST and the arguments' help
    made plain (`plain`)."""

    def _format_text(self, text: str) -> str:
        return super()._format_text(plain(text))

    def _expand_help(self, action: argparse.Action) -> str:
        return plain(super()._expand_help(action))


class Parser(argparse.ArgumentParser):
    """`argparse.ArgumentParser` whose errors are one line naming the command and where its help is, and
    whose help is plain text (`PlainHelpFormatter`, unless another formatter is given); subcommands'
    parsers are of this class too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", PlainHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        line = " ".join(message.split())
        self.exit(2, f"error: {self.prog}: {line} ({self.prog} --help says more)\n")
