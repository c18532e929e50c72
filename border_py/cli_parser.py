"""The argument parser of every border_py command line (``border-py``, its ``plot`` and ``datasets``, the
example programs): argparse's, with a mistake said as one line on stderr and exit status 2, as every other
refusal of the CLI is (argparse prints the whole usage first, nine lines for ``border-py train``)."""

from __future__ import annotations

import argparse
from typing import NoReturn


class Parser(argparse.ArgumentParser):
    """`argparse.ArgumentParser` whose errors are one line naming the command and where its help is;
    subcommands' parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        line = " ".join(message.split())
        self.exit(2, f"error: {self.prog}: {line} ({self.prog} --help says more)\n")
