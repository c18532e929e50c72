"""The maintainers' merge of the translations into the zoo (``python -m campaigns.rlzoo_translate --merge``):
each translated entry whose env id a zoo file lacks is appended to ``border_py/zoo/<algo>.yaml`` with its
comment (the RL Zoo key it cites, its conversions), under one heading per file saying the translator wrote
them. The merge only appends: an entry the zoo already has is the zoo's (written by hand, perhaps tuned
further), and nothing above the end of the file is rewritten, so hand edits made meanwhile stay as they
are. A translated variant of an entry the zoo already has (TD3's ``ddpg``) cannot be appended (it is a key
inside that entry): the merge lists it for a maintainer to add by hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

import border_py.zoo
from border_py.config import ConfigError, parse_yaml
from border_py.run.zoo import RESERVED
from campaigns.rlzoo.output import Run, by_algo, env_block, env_ids
from campaigns.rlzoo.review import Reviewed
from campaigns.rlzoo.sb3 import SB3_VERSION

ZOO_DIR = Path(border_py.zoo.__file__).parent
"""The zoo's YAML files (``border_py/zoo/``), where ``--merge`` appends."""
MARK = "python -m campaigns.rlzoo_translate --merge"
"""The words of the heading that say a file already holds merged translations (one heading per file)."""


@attrs.frozen
class Merge:
    """What the merge did to one zoo file."""

    algo: str
    """The zoo file's algorithm (``td3`` for RL Zoo's TD3 and DDPG)."""
    appended: tuple[str, ...]
    """The env ids whose translated entries were appended, in RL Zoo's order."""
    kept: tuple[str, ...]
    """The env ids the zoo already had: their entries left as they are."""
    variants_left: tuple[str, ...] = ()
    """The translated variants the zoo's own entry lacks (``HalfCheetah-v5 variant ddpg``), not added:
    appending cannot put a key inside an entry."""


def plan(algo: str, entries: Sequence[Reviewed], have: Mapping[str, Any]) -> Merge:
    """What merging ``algo``'s translated ``entries`` into a zoo file holding ``have`` (its data) does,
    nothing written.

    Examples:
        >>> plan("td3", [], {"defaults": {}}).appended
        ()
    """
    envs = env_ids(entries)
    kept = tuple(env for env in envs if env in have)
    left = []
    for reviewed in entries:
        assert reviewed.outcome.env is not None  # the translations have their env
        env, variant = reviewed.outcome.env.gym, reviewed.outcome.variant
        own = have.get(env)
        if variant and env in kept and variant not in ((own or {}).get("variants") or {}):
            left.append(f"{env} variant {variant}")
    appended = tuple(env for env in envs if env not in have and env not in RESERVED)
    return Merge(algo, appended, kept, tuple(left))


def heading(version: str) -> str:
    """The comment above the entries the merge appends to a zoo file."""
    return "\n".join([
        "# " + "-" * 100,
        f"# RL Zoo's entries, translated (rl_zoo3 {version} hyperparams/*.yml, SB3 {SB3_VERSION}'s "
        "defaults where",
        f"# an entry is silent): appended by `{MARK}` for the env ids this file had",
        "# no entry for. Each comment cites its RL Zoo key and the conversions made; each entry is "
        "deep-merged",
        "# over `defaults` like any other. The entries above are the zoo's own; see docs/reference/zoo.md.",
        "",
    ])  # fmt: skip


def appendix(algo: str, entries: Sequence[Reviewed], version: str, text: str) -> tuple[Merge, str]:
    """What the merge does to the zoo file ``text`` of ``algo``, and the text it appends (empty: none).

    Raises:
        ConfigError: ``text`` is not a zoo file, or the file with the text appended would not read (a
            key twice, an alias): nothing is appended then.
    """
    have = parse_yaml(text, f"zoo {algo}.yaml")
    if not isinstance(have, dict):
        raise ConfigError(f"zoo {algo}.yaml: expected a mapping")
    merge = plan(algo, entries, have)
    if not merge.appended:
        return merge, ""
    blocks = [env_block(env, entries, version) for env in merge.appended]
    lead = "" if text.endswith("\n\n") or not text else "\n" if text.endswith("\n") else "\n\n"
    added = lead + ("" if MARK in text else heading(version) + "\n") + "\n".join(blocks)
    merged = parse_yaml(text + added, f"zoo {algo}.yaml with the translations appended")
    if list(merged) != [*have, *merge.appended]:
        raise ConfigError(f"zoo {algo}.yaml: the appended text would not read as {merge.appended}")
    return merge, added


def merge_into(run: Run, zoo_dir: Path = ZOO_DIR) -> list[Merge]:
    """Appends ``run``'s translated entries to the zoo files in ``zoo_dir`` where they lack the env id.

    Each file is read again right before its text is appended (opened for appending, never rewritten),
    so an edit made while the translator ran is neither lost nor duplicated.

    Raises:
        ConfigError: a zoo file that would not read with the entries appended (that file is untouched).
        FileNotFoundError: ``zoo_dir`` lacks an algorithm's file.
    """
    merges = []
    for algo, entries in by_algo(run.written).items():
        path = zoo_dir / f"{algo}.yaml"
        merge, added = appendix(algo, entries, run.version, path.read_text())
        if added:
            with path.open("a") as file:
                file.write(added)
        merges.append(merge)
    return merges


def summary(merges: Sequence[Merge], zoo_dir: Path) -> str:
    """What ``merges`` did, one line per zoo file and one per variant left for a maintainer."""
    lines = [f"\nMerged into {zoo_dir}:"]
    for merge in merges:
        lines.append(
            f"- {merge.algo}.yaml: {len(merge.appended)} appended ({', '.join(merge.appended) or 'none'}); "
            f"{len(merge.kept)} kept as the zoo has them"
        )
        lines += [f"  - not added (a variant inside a kept entry): {v}" for v in merge.variants_left]
    return "\n".join(lines) + "\n"
