"""The zoo: tuned settings per algorithm, keyed by env id, shipped as YAML in ``border_py/zoo/``.

One file per algorithm (``dqn.yaml``), as RL Zoo's ``hyperparams/``. Each file holds:

    defaults:          # the algorithm's experiment for an env without an entry (its id becomes env.name)
      ...
    CartPole-v1:       # an entry: deep-merged over defaults; a comment cites where the values come from
      ...
      variants:        # named variations, deep-merged over the entry (--variant async)
        async: {...}
    search:            # the Optuna search space of ``border-py tune`` (see border_py.run.tune)
      agent.lr: {float: [1.0e-5, 1.0e-2], log: true}

Offline algorithms key their entries by dataset id (``pendulum-medium-v0``). A component whose ``type``
differs between an entry and the defaults is replaced whole, not merged.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from typing import Any

import attrs

from border_py.config import ConfigError, parse_yaml
from border_py.run.codec import experiment_from_dict
from border_py.run.experiment import AnyExperiment
from border_py.run.tags import DEFAULT_TAGS

RESERVED = ("defaults", "search")
"""Keys of a zoo file that are not env ids."""


@attrs.frozen
class ZooEntry:
    """An experiment's plain data from the zoo, and where it came from."""

    data: dict[str, Any]
    """The experiment as plain data (``border_py.run.experiment_from_dict`` builds it)."""
    source: str
    """``zoo dqn.yaml CartPole-v1`` (or ``... defaults`` for an env without an entry)."""
    tuned: bool
    """Whether the env has an entry of its own (else: the algorithm's defaults)."""


def algorithms() -> list[str]:
    """The algorithms the zoo holds, by name."""
    return sorted(
        p.name.removesuffix(".yaml")
        for p in resources.files("border_py.zoo").iterdir()
        if p.name.endswith(".yaml")
    )


def zoo_file(algo: str) -> dict[str, Any]:
    """The zoo file of ``algo`` as plain data.

    Raises:
        ConfigError: there is no such algorithm (the known ones are listed).
    """
    if algo not in algorithms():
        raise ConfigError(f"no algorithm {algo!r} in the zoo: give one of {algorithms()}")
    text = resources.files("border_py.zoo").joinpath(f"{algo}.yaml").read_text()
    data = parse_yaml(text, f"zoo {algo}.yaml")
    if not isinstance(data, dict) or not isinstance(data.get("defaults"), dict):
        raise ConfigError(f"zoo {algo}.yaml: expected a mapping with 'defaults'")
    return data


def env_ids(algo: str) -> list[str]:
    """The env ids with tuned settings for ``algo``."""
    return [key for key in zoo_file(algo) if key not in RESERVED]


def variants(algo: str, env_id: str) -> list[str]:
    """The variants of ``algo``'s entry for ``env_id``."""
    return _variants(zoo_file(algo).get(env_id))


def _variants(entry: object) -> list[str]:
    return sorted(entry.get("variants", {})) if isinstance(entry, dict) else []


def listing(algo: str) -> dict[str, list[str]]:
    """Each env id with tuned settings for ``algo`` and the variants of its entry (``border-py zoo``; the
    file is read once)."""
    return {key: _variants(value) for key, value in zoo_file(algo).items() if key not in RESERVED}


def merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` deep-merged into ``base``; a component of another ``type`` replaces the base's whole.

    Examples:
        >>> merge({"agent": {"type": "dqn", "lr": 1.0, "hidden": [64]}}, {"agent": {"lr": 2.0}})
        {'agent': {'type': 'dqn', 'lr': 2.0, 'hidden': [64]}}
        >>> merge({"env": {"type": "gym", "name": "x"}}, {"env": {"type": "gym_vec", "num_envs": 4}})
        {'env': {'type': 'gym_vec', 'num_envs': 4}}
    """
    result = dict(base)
    for key, value in over.items():
        old = result.get(key)
        if isinstance(old, Mapping) and isinstance(value, Mapping) and _same_type(key, old, value):
            result[key] = merge(old, value)
        else:
            result[key] = value
    return result


def _same_type(key: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    default = DEFAULT_TAGS.get(key)
    return bool(old.get("type", default) == new.get("type", old.get("type", default)))


def _keyed(data: dict[str, Any], own: Mapping[str, Any], key: str) -> dict[str, Any]:
    """``data`` with the zoo key put where it belongs unless the entry says otherwise: the dataset id of
    an offline experiment, else the Gymnasium id of the env (an Atari entry names its game)."""
    if data.get("dataset") is not None:
        section, field = "dataset", "dataset_id"
    elif data.get("env", {}).get("type", DEFAULT_TAGS["env"]) in ("gym", "gym_vec"):
        section, field = "env", "name"
    else:
        return data
    if field in (own.get(section) or {}):
        return data
    return {**data, section: {**data.get(section, {}), field: key}}


def entry(algo: str, env_id: str, variant: str | None = None) -> ZooEntry:
    """The experiment data for ``algo`` on ``env_id`` (and ``variant``): the entry over the defaults, or
    the defaults alone when the zoo has no entry for it; either way ``env_id`` is the env's id (offline:
    the dataset's) unless the entry names another.

    Raises:
        ConfigError: an unknown algorithm, or a variant the entry does not have.
    """
    data = zoo_file(algo)
    defaults = dict(data["defaults"])
    own = data.get(env_id) if env_id not in RESERVED else None
    if own is None:
        if variant is not None:
            raise ConfigError(f"zoo {algo}.yaml has no entry for {env_id!r}, so no variant {variant!r}")
        return ZooEntry(_keyed(defaults, {}, env_id), f"zoo {algo}.yaml defaults", tuned=False)
    own = dict(own)
    own_variants = own.pop("variants", {})
    merged = _keyed(merge(defaults, own), own, env_id)
    source = f"zoo {algo}.yaml {env_id}"
    if variant is not None:
        if variant not in own_variants:
            raise ConfigError(f"{source} has no variant {variant!r}: give one of {sorted(own_variants)}")
        merged, source = merge(merged, own_variants[variant]), f"{source} variant {variant}"
    return ZooEntry(merged, source, tuned=True)


def search_space(algo: str) -> dict[str, Any]:
    """``algo``'s search space for ``border-py tune`` (dotted field -> distribution).

    Raises:
        ConfigError: the zoo file has no ``search`` section.
    """
    space = zoo_file(algo).get("search")
    if not isinstance(space, dict) or not space:
        raise ConfigError(f"zoo {algo}.yaml has no search space ('search:') to tune")
    return space


def experiment(
    algo: str, env_id: str, model_dir: str | None = None, *, variant: str | None = None, **changes: Any
) -> AnyExperiment:
    """The zoo's experiment for ``algo`` on ``env_id`` (and ``variant``), saving into ``model_dir``, with
    ``changes`` merged into its plain data by section (``trainer={"max_opts": 2500}``).

    Raises:
        ConfigError: an unknown algorithm or variant, or a change the configs refuse.

    Examples:
        >>> experiment("dqn", "CartPole-v1", "runs/x", trainer={"seed": 3}).trainer.seed
        3
    """
    found = entry(algo, env_id, variant)
    data = merge(merge(found.data, changes), {"trainer": {"model_dir": model_dir}})
    return experiment_from_dict(data, found.source)
