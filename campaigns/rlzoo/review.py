"""Translations as border_py zoo entries, checked: each entry is the translation less what the zoo's
``defaults`` already give (so the zoo's merge gives the translation back, which `review` checks), compared
field by field with the zoo's own entry where it has one, and built as ``border-py train`` would build it
(every component and check, nothing written), so a budget or interval border_py refuses is reported with
border_py's message before anyone merges the entry.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from border_py.config import ConfigError
from border_py.run import codec, zoo
from campaigns.rlzoo.draft import Refusal
from campaigns.rlzoo.translate import Outcome

IGNORED = ("trainer.model_dir",)
"""Fields never compared."""
SECTIONS = ("env", "step_processor", "replay_buffer", "agent", "trainer", "evaluator")
"""The order of an entry's sections, as the zoo writes them."""


@attrs.frozen
class Reviewed:
    """A translated entry as the zoo would hold it, and what border_py makes of it."""

    outcome: Outcome
    """The translation."""
    entry: dict[str, Any]
    """What the zoo file gets: the entry's fields over ``defaults`` (a variant's over its entry)."""
    merged: dict[str, Any]
    """The experiment data the zoo gives for it (``zoo.entry``'s)."""
    differences: tuple[tuple[str, Any, Any], ...] | None
    """(field, the zoo's value, the translation's) where the zoo has this entry; ``None`` where not."""
    refusal: str | None = None
    """border_py's message where it will not build the experiment; ``None``: it builds."""


def flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"agent": {"lr": 1}}`` as ``{"agent.lr": 1}`` (lists are values)."""
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, Mapping) and value:
            flat.update(flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = list(value) if isinstance(value, tuple) else value
    return flat


def normalised(data: Mapping[str, Any], source: str) -> dict[str, Any]:
    """Every field of the experiment ``data`` (defaults included), flattened, as the codec reads it.

    Raises:
        ConfigError: the codec refuses the data.
    """
    return flatten(codec.experiment_to_dict(codec.experiment_from_dict(dict(data), source)))


def entry_over(base: Mapping[str, Any], full: Mapping[str, Mapping[str, Any]], env_id: str) -> dict[str, Any]:
    """The fields of ``full`` (a translation) that ``base`` (a normalised experiment) lacks or holds
    otherwise, by section; a section of another ``type`` whole, as the zoo's merge replaces it."""
    entry: dict[str, Any] = {}
    for section in sorted(full, key=lambda s: SECTIONS.index(s) if s in SECTIONS else len(SECTIONS)):
        fields = full[section]
        if "type" in fields and fields["type"] != base.get(f"{section}.type"):
            entry[section] = dict(fields)
            continue
        changed = {
            key: value
            for key, value in flatten(fields).items()
            if key != "type" and not (section == "env" and key == "name" and value == env_id)
            and (f"{section}.{key}" not in base or base[f"{section}.{key}"] != value)
        }  # fmt: skip
        for key, value in changed.items():
            _put(entry.setdefault(section, {}), key.split("."), value)
    return entry


def _put(node: dict[str, Any], path: list[str], value: Any) -> None:
    for part in path[:-1]:
        node = node.setdefault(part, {})
    node[path[-1]] = value


def _base(outcome: Outcome, hosts: Mapping[tuple[str, str], dict[str, Any]]) -> dict[str, Any] | None:
    """The experiment data the translation is an entry over: the zoo's defaults with the env's id, or
    for a variant, the translated entry it varies (``None`` where that was not translated)."""
    assert outcome.env is not None
    if outcome.variant is not None:
        return hosts.get((outcome.zoo_algo, outcome.env.gym))
    defaults = zoo.zoo_file(outcome.zoo_algo)["defaults"]
    return zoo.merge(defaults, {"env": {"name": outcome.env.gym}})


def differences(outcome: Outcome, merged: Mapping[str, Any]) -> tuple[tuple[str, Any, Any], ...] | None:
    """The fields where ``merged`` differs from the zoo's entry for the same env (and variant), both read
    by the codec; ``None`` where the zoo has no such entry."""
    assert outcome.env is not None
    algo, env_id, variant = outcome.zoo_algo, outcome.env.gym, outcome.variant
    if env_id not in zoo.env_ids(algo) or (variant and variant not in zoo.variants(algo, env_id)):
        return None
    theirs = normalised(zoo.entry(algo, env_id, variant).data, f"zoo {algo}.yaml {env_id}")
    ours = normalised(merged, outcome.name)
    fields = sorted((set(theirs) | set(ours)) - set(IGNORED))
    return tuple((f, theirs.get(f), ours.get(f)) for f in fields if theirs.get(f) != ours.get(f))


def build_refusal(merged: Mapping[str, Any], source: str) -> str | None:
    """border_py's message where ``border-py train`` would refuse ``merged`` (every component built and
    every check run, as `border_py.run.tune.check_base` does, nothing written); ``None`` where it builds."""
    from border_py.run.commands import prepare  # builds agents: torch, imported only when building

    with tempfile.TemporaryDirectory() as scratch:
        try:
            data = zoo.merge(merged, {"trainer": {"model_dir": scratch}})
            with prepare(codec.experiment_from_dict(data, source), source=source):
                pass
        except ConfigError as exc:
            return str(exc)
    return None


def review(outcomes: Iterable[Outcome], build: bool = True) -> tuple[list[Reviewed], list[Outcome]]:
    """The translated ``outcomes`` as zoo entries, compared and (with ``build``) built; and those refused
    after all: a variant whose entry was not translated.

    Raises:
        AssertionError: an entry the zoo's merge does not turn back into its translation (a bug here).
    """
    hosts: dict[tuple[str, str], dict[str, Any]] = {}
    reviewed: list[Reviewed] = []
    orphans: list[Outcome] = []
    for outcome in outcomes:
        if outcome.data is None or outcome.env is None:
            continue
        base = _base(outcome, hosts)
        if base is None:
            why = f"no translated {outcome.zoo_algo} entry for {outcome.env.gym} to be a variant of"
            orphans.append(attrs.evolve(outcome, data=None, refused=(Refusal(outcome.zoo_algo, why),)))
            continue
        found = _review_one(outcome, base, build)
        if outcome.variant is None:
            hosts[(outcome.zoo_algo, outcome.env.gym)] = found.merged
        reviewed.append(found)
    return reviewed, orphans


def _review_one(outcome: Outcome, base: dict[str, Any], build: bool) -> Reviewed:
    """``outcome`` as an entry over ``base``, compared and built; a value the codec refuses (a width of
    0) is border_py's refusal like any other."""
    assert outcome.data is not None  # the caller passes translations alone
    assert outcome.env is not None
    entry = entry_over(normalised(base, outcome.name), outcome.data, outcome.env.gym)
    merged = zoo.merge(base, entry)
    try:
        got = normalised(merged, outcome.name)
    except ConfigError as exc:
        return Reviewed(outcome, entry, merged, None, str(exc))
    lost = {k: v for k, v in flatten(outcome.data).items() if k not in got or got[k] != v}
    if lost:
        raise AssertionError(f"{outcome.name}: the zoo's merge loses {lost}")
    refusal = build_refusal(merged, outcome.name) if build else None
    return Reviewed(outcome, entry, merged, differences(outcome, merged), refusal)
