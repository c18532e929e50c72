"""The translator's outputs: one YAML file of zoo entries per border_py algorithm (each entry citing its RL
Zoo source and listing its conversions) for the maintainers to review (`campaigns.rlzoo.merge` appends
those the zoo lacks to its files, each rendered by `env_block`), and the report (markdown) of what was
translated, refused (with the keys that blocked it), refused by border_py itself (with its message),
skipped (with the reason), and how the translations differ from the zoo's entries."""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import yaml

from campaigns.rlzoo.review import Reviewed, flatten
from campaigns.rlzoo.sb3 import SB3_VERSION
from campaigns.rlzoo.translate import Outcome

WIDTH = 110
"""The zoo files' line width, which the comments are wrapped to."""


@attrs.frozen
class Run:
    """Everything one translation run found."""

    version: str
    """rl_zoo3's version."""
    outcomes: tuple[Outcome, ...]
    """Every RL Zoo entry read, translated or not."""
    reviewed: tuple[Reviewed, ...]
    """The translations, as zoo entries, compared and built."""
    orphans: tuple[Outcome, ...] = ()
    """Variants refused for want of their entry."""

    @property
    def written(self) -> list[Reviewed]:
        """The entries border_py builds: those the YAML files hold."""
        return [r for r in self.reviewed if r.refusal is None]

    @property
    def refused(self) -> list[Outcome]:
        """The entries refused for keys border_py cannot take."""
        return [o for o in self.outcomes if o.refused] + list(self.orphans)

    @property
    def skipped(self) -> list[Outcome]:
        """The entries skipped whole."""
        return [o for o in self.outcomes if o.skipped]


def own_differences(reviewed: Reviewed) -> list[tuple[str, Any, Any]]:
    """The differences from the zoo's entry in the fields the translation sets (RL Zoo's hyperparameters),
    not those only border_py's entry sets (evaluation and checkpoint cadence)."""
    own = set(flatten(reviewed.outcome.data or {}))
    return [d for d in reviewed.differences or () if d[0] in own]


def _comment(reviewed: Reviewed, version: str) -> list[str]:
    """The entry's comment: its source (on one line, to be found), its conversions, the fields where it
    differs from the zoo's (each wrapped at `WIDTH`)."""
    variant = f"variant {reviewed.outcome.variant}: " if reviewed.outcome.variant else ""
    lines = [f"# {variant}{reviewed.outcome.source(version)} (SB3 {SB3_VERSION}'s defaults where silent)"]
    notes = list(reviewed.outcome.notes)
    differing = [field for field, _, _ in own_differences(reviewed)]
    if differing:
        notes.append(f"differs from the zoo's entry in {', '.join(differing)}")
    for note in notes:
        lines += textwrap.wrap(
            note, WIDTH, initial_indent="#   ", subsequent_indent="#     ", break_long_words=False,
            break_on_hyphens=False,
        )  # fmt: skip
    return lines


def zoo_yaml(algo: str, entries: Sequence[Reviewed], version: str) -> str:
    """The YAML file of ``algo``'s translated entries (variants inside their entries)."""
    envs = env_ids(entries)
    text = [
        f"# {algo}: entries translated by campaigns/rlzoo_translate.py from rl_zoo3 {version} "
        f"(hyperparams/*.yml), SB3 {SB3_VERSION}'s",
        f"# defaults where an entry is silent. Each is deep-merged over border_py/zoo/{algo}.yaml's "
        "`defaults`;",
        "# --merge appends those it lacks. See REPORT.md beside this file for refusals and differences.",
        "",
    ]
    text += [env_block(env, entries, version) for env in envs]
    return "\n".join(text)


def env_ids(entries: Sequence[Reviewed]) -> list[str]:
    """The env ids of ``entries``, in RL Zoo's order."""
    return list(dict.fromkeys(r.outcome.env.gym for r in entries if r.outcome.env))


def env_block(env: str, entries: Sequence[Reviewed], version: str) -> str:
    """The YAML of ``env``'s translated entry (``entries`` may hold every env's), its variants inside it,
    each translation's comment (source, conversions) above it."""
    mine = [r for r in entries if r.outcome.env and r.outcome.env.gym == env]
    main = [r for r in mine if r.outcome.variant is None]
    entry: dict[str, Any] = dict(main[0].entry) if main else {}
    text = [line for r in main for line in _comment(r, version)]
    for reviewed in mine:
        if reviewed.outcome.variant:
            text += _comment(reviewed, version)
            entry.setdefault("variants", {})[reviewed.outcome.variant] = reviewed.entry
    text.append(yaml.safe_dump({env: entry}, sort_keys=False, default_flow_style=None, width=110))
    return "\n".join(text)


def by_algo(entries: Sequence[Reviewed]) -> dict[str, list[Reviewed]]:
    """``entries`` by border_py's zoo file (``td3`` for DDPG's), in RL Zoo's order."""
    found: dict[str, list[Reviewed]] = {}
    for reviewed in entries:
        found.setdefault(reviewed.outcome.zoo_algo, []).append(reviewed)
    return found


def write_yaml(run: Run, out: Path) -> list[Path]:
    """One ``<algo>.yaml`` in ``out`` per border_py algorithm with a translated entry that builds."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for algo, entries in by_algo(run.written).items():
        path = out / f"{algo}.yaml"
        path.write_text(zoo_yaml(algo, entries, run.version))
        paths.append(path)
    return paths


def refusal_counts(run: Run) -> Counter[str]:
    """How many refused entries each key blocked."""
    return Counter(key for o in run.refused for key in sorted({r.key for r in o.refused}))


def difference_counts(run: Run) -> Counter[str]:
    """How many translated entries differ from the zoo's in each translated field."""
    return Counter(field for r in run.reviewed for field, _, _ in own_differences(r))
