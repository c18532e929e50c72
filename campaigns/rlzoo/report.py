"""The translator's report, in markdown: the counts, then what border_py itself refuses (its message,
first, as issue 52 asks), the refused entries and the keys that blocked them, the skipped ones and why,
the translated ones, and how they differ from the zoo's entries (the review aid)."""

from __future__ import annotations

from typing import Any

from campaigns.rlzoo.output import Run, difference_counts, own_differences, refusal_counts
from campaigns.rlzoo.review import Reviewed
from campaigns.rlzoo.sb3 import SB3_VERSION


def report(run: Run, hyperparams: str) -> str:
    """The report of ``run`` (RL Zoo's files read from ``hyperparams``)."""
    blocked = [r for r in run.reviewed if r.refusal is not None]
    lines = [
        f"# RL Zoo's hyperparameters as border_py zoo entries (rl_zoo3 {run.version})",
        "",
        f"Read `{hyperparams}` (rl_zoo3 {run.version}; SB3 {SB3_VERSION}'s defaults where an entry is "
        f"silent): {len(run.outcomes)} entries.",
        "",
        f"- translated and built: {len(run.written)}",
        f"- refused by border_py: {len(blocked)}",
        f"- refused: {len(run.refused)}",
        f"- skipped: {len(run.skipped)}",
        "",
        "## Refused by border_py",
        "",
        "Translated, but border_py will not build them (its message); not written.",
        "",
        *[f"- `{r.outcome.name}` ({r.outcome.source(run.version)}): {r.refusal}" for r in blocked],
        *_refused(run),
        *_skipped(run),
        "## Translated",
        "",
        *[f"- `{r.outcome.name}` ({r.outcome.source(run.version)})" for r in run.written],
        "",
        *_differences(run),
    ]
    return "\n".join(lines) + "\n"


def _refused(run: Run) -> list[str]:
    counts = refusal_counts(run)
    return [
        "",
        "## Refused",
        "",
        "The keys that blocked them, by how many entries each blocked:",
        "",
        *[f"- `{key}`: {n}" for key, n in counts.most_common()],
        "",
        *[f"- `{o.name}` ({o.source(run.version)}): {'; '.join(map(str, o.refused))}" for o in run.refused],
        "",
    ]


def _skipped(run: Run) -> list[str]:
    reasons: dict[str, list[str]] = {}
    for outcome in run.skipped:
        assert outcome.skipped is not None
        reasons.setdefault(outcome.skipped, []).append(f"{outcome.algo} {outcome.key}")
    lines = ["## Skipped", ""]
    for reason, names in reasons.items():
        lines.append(f"- {reason} ({len(names)}): {', '.join(names)}")
    return [*lines, ""]


def _value(value: Any) -> str:
    return "(unset)" if value is None else f"`{value}`"


def _differences(run: Run) -> list[str]:
    compared = [r for r in run.reviewed if r.differences is not None]
    differing = [r for r in compared if own_differences(r)]
    counts = difference_counts(run)
    lines = [
        "## Differences from border_py's zoo",
        "",
        f"{len(compared)} translated entries have an entry in border_py's zoo; {len(differing)} differ in "
        "the fields the translation sets. Most often:",
        "",
        *[f"- `{field}`: {n}" for field, n in counts.most_common()],
        "",
    ]
    for reviewed in compared:
        lines += _entry_differences(reviewed)
    return lines


def _entry_differences(reviewed: Reviewed) -> list[str]:
    own = own_differences(reviewed)
    others = [d for d in reviewed.differences or () if d not in own]
    lines = [f"### `{reviewed.outcome.name}`", ""]
    if reviewed.refusal is not None:
        lines += ["border_py refuses the translation (see above); compared all the same.", ""]
    if own:
        lines += ["| field | zoo | translated |", "|---|---|---|"]
        lines += [f"| `{f}` | {_value(zoo)} | {_value(ours)} |" for f, zoo, ours in own]
    else:
        lines.append("Same in every field the translation sets.")
    if others:
        kept = ", ".join(f"`{f}` {_value(zoo)}" for f, zoo, _ in others)
        lines += ["", f"The zoo's entry also sets (border_py's own, left to `defaults` here): {kept}."]
    return [*lines, ""]
