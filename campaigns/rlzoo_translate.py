"""RL Zoo's hyperparameters (rl_zoo3 2.9.2, ``hyperparams/*.yml``) as border_py zoo entries (issue 52), for
the maintainers to review, and with ``--merge`` to append to ``border_py/zoo/*.yaml`` where it lacks them.

    python -m campaigns.rlzoo_translate                       # -> runs/rlzoo_translated/
    python -m campaigns.rlzoo_translate --out DIR --no-build  # skip building each entry (faster)
    python -m campaigns.rlzoo_translate --hyperparams rl_zoo3/hyperparams --rlzoo-version 2.7.0
    python -m campaigns.rlzoo_translate --merge               # and append the zoo's missing env ids

For DQN, QR-DQN, SAC, TQC, TD3, DDPG (TD3's ``ddpg`` variant), PPO and A2C it writes ``<out>/<algo>.yaml``
(each entry citing ``rl_zoo3 <version> hyperparams/<algo>.yml <key>`` and its conversions) and
``<out>/REPORT.md`` (also printed): what was translated; what border_py refuses to build, with its
message; what was refused, naming every key border_py cannot take; what was skipped, and why; and where
each translation differs from the zoo's entry for the same env. With ``--merge`` it then appends each built
entry whose env id a zoo file lacks to that file (`campaigns.rlzoo.merge`: the zoo's own entries are kept,
nothing is rewritten) and prints what it appended. The package `campaigns.rlzoo` does the work.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from campaigns.rlzoo.merge import ZOO_DIR, merge_into, summary
from campaigns.rlzoo.output import Run, write_yaml
from campaigns.rlzoo.report import report
from campaigns.rlzoo.review import review
from campaigns.rlzoo.translate import HYPERPARAMS, RLZOO_VERSION, translate_all


def main(argv: Sequence[str] | None = None) -> int:
    """Translates, reviews and writes; returns the exit status (0; 2 for a bad argument)."""
    parser = argparse.ArgumentParser(
        prog="python -m campaigns.rlzoo_translate", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--hyperparams",
        type=Path,
        default=HYPERPARAMS,
        help=f"RL Zoo's hyperparams directory (default: rl_zoo3 {RLZOO_VERSION}'s, in the repository)",
    )
    parser.add_argument(
        "--rlzoo-version", default=None, help="the rl_zoo3 version of --hyperparams, for the citations"
    )
    parser.add_argument("--out", type=Path, default=Path("runs/rlzoo_translated"), help="where to write")
    parser.add_argument(
        "--no-build", action="store_true", help="do not build each entry (border_py's checks)"
    )
    parser.add_argument(
        "--merge", action="store_true", help="append the entries whose env id the zoo lacks to its files"
    )
    parser.add_argument(
        "--zoo-dir",
        type=Path,
        default=ZOO_DIR,
        help="the zoo files --merge appends to (default: border_py/zoo; a copy must keep its defaults)",
    )
    args = parser.parse_args(argv)  # fmt: skip
    if args.hyperparams != HYPERPARAMS and args.rlzoo_version is None:
        parser.error("give --rlzoo-version with --hyperparams: the entries cite it")
    if args.merge and args.no_build:
        parser.error("--merge appends only entries border_py builds: drop --no-build")
    version = args.rlzoo_version or RLZOO_VERSION
    outcomes = translate_all(args.hyperparams)
    reviewed, orphans = review(outcomes, build=not args.no_build)
    run = Run(version, tuple(outcomes), tuple(reviewed), tuple(orphans))
    write_yaml(run, args.out)
    text = report(run, str(args.hyperparams))
    (args.out / "REPORT.md").write_text(text)
    sys.stdout.write(text)
    if args.merge:
        sys.stdout.write(summary(merge_into(run, args.zoo_dir), args.zoo_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
