"""MkDocs hook: the command line reference is written at build time from the parsers themselves, so it
cannot drift from the code. In a page, ``<!-- cli: border-py -->`` becomes the help of ``border-py``,
``<!-- cli: border-py train -->`` that of a verb, and ``<!-- cli: program -->`` the flags ``run_cli`` gives
an example program."""

from __future__ import annotations

import argparse
import os
import re
from typing import Any

_MARK = re.compile(r"<!-- cli: ([\w -]+) -->")


def _help(name: str) -> str:
    from border_py import plot
    from border_py.run import cli, program, zoo_datasets

    if name == "border-py plot":
        return plot.parser("border-py plot").format_help()
    if name == "border-py datasets":
        return zoo_datasets.parser().format_help()
    if name == "program":
        return program.parser("python -m examples.dqn_cartpole", None, finetune=False).format_help()
    top = cli.parser()
    if name == "border-py":
        return top.format_help()
    verbs = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    return str(verbs.choices[name.removeprefix("border-py ")].format_help())


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Replaces each ``<!-- cli: NAME -->`` mark with NAME's help as a text block."""
    os.environ["COLUMNS"] = "100"  # argparse wraps its help to the terminal's width
    return _MARK.sub(lambda m: f"```text\n{_help(m[1]).rstrip()}\n```", markdown)
