"""The translator's outputs: one YAML file of zoo entries per border_py algorithm (each entry citing its RL
Zoo source and listing its conversions) for the maintainers to review and merge by hand, and the report
(markdown) of what was translated, refused (with the keys that blocked it), refused by border_py itself
(with its message), skipped (with the reason), and how the translations differ from the zoo's entries."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import yaml

from campaigns.rlzoo.review import Reviewed, flatten
from campaigns.rlzoo.sb3 import SB3_VERSION
from campaigns.rlzoo.translate import Outcome


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
    """The entry's comment: its source, its conversions, the fields where it differs from the zoo's."""
    variant = f"variant {reviewed.outcome.variant}: " if reviewed.outcome.variant else ""
    lines = [f"# {variant}{reviewed.outcome.source(version)} (SB3 {SB3_VERSION}'s defaults where silent)"]
    lines += [f"#   {note}" for note in reviewed.outcome.notes]
    differing = [field for field, _, _ in own_differences(reviewed)]
    if differing:
        lines.append(f"#   differs from the zoo's entry in {', '.join(differing)}")
    return lines


def zoo_yaml(algo: str, entries: Sequence[Reviewed], version: str) -> str:
    """The YAML file of ``algo``'s translated entries (variants inside their entries)."""
    envs = list(dict.fromkeys(r.outcome.env.gym for r in entries if r.outcome.env))  # RL Zoo's order
    text = [
        f"# {algo}: entries translated by campaigns/rlzoo_translate.py from rl_zoo3 {version} "
        f"(hyperparams/*.yml), SB3 {SB3_VERSION}'s",
        f"# defaults where an entry is silent. Each is deep-merged over border_py/zoo/{algo}.yaml's "
        "`defaults`;",
        "# review and merge by hand. See REPORT.md beside this file for refusals and differences.",
        "",
    ]
    for env in envs:
        main = [
            r for r in entries if r.outcome.env and r.outcome.env.gym == env and r.outcome.variant is None
        ]
        variants = [r for r in entries if r.outcome.env and r.outcome.env.gym == env and r.outcome.variant]
        entry: dict[str, Any] = dict(main[0].entry) if main else {}
        for reviewed in main:
            text += _comment(reviewed, version)
        for reviewed in variants:
            text += _comment(reviewed, version)
            entry.setdefault("variants", {})[reviewed.outcome.variant] = reviewed.entry
        text.append(yaml.safe_dump({env: entry}, sort_keys=False, default_flow_style=None, width=110))
    return "\n".join(text)


def write_yaml(run: Run, out: Path) -> list[Path]:
    """One ``<algo>.yaml`` in ``out`` per border_py algorithm with a translated entry that builds."""
    out.mkdir(parents=True, exist_ok=True)
    by_algo: dict[str, list[Reviewed]] = {}
    for reviewed in run.written:
        by_algo.setdefault(reviewed.outcome.zoo_algo, []).append(reviewed)
    paths = []
    for algo, entries in by_algo.items():
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
