"""Experiments to and from YAML, and ``--set key=value`` overrides, with errors naming the file and field.

An experiment file names each component's config by a ``type`` tag and gives its fields:

    env: {type: gym, name: CartPole-v1}
    step_processor: {type: nstep, n_steps: 1, gamma: 0.99}
    replay_buffer: {type: simple, capacity: 100000}
    agent: {type: dqn, lr: 0.0023, hidden: [256, 256]}
    trainer: {max_opts: 25000, opt_interval: 2, warmup_period: 1000, eval_interval: 1000}
    evaluator: {n_episodes: 10}

A file with a ``dataset`` is an `OfflineExperiment`. ``type`` may be omitted for
``env`` (``gym``), ``step_processor`` (``nstep``), ``replay_buffer`` (``simple``) and ``dataset``
(``minari``); a user's own config class is named by its import path (``type: mypkg.envs:MyEnvConfig``),
which imports that module. Duplicate keys, unknown keys and values of the wrong type are refused.

A file is data, never code: a name that would import a module (a ``type`` that is an import path, an
``env.name`` in Gymnasium's ``module:EnvId-v0`` form) is refused in a file read with ``trust_code=False``
(`load_experiment`'s default; the CLI's unless ``--trust-code``), naming the module and the flag.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import yaml

from border_py.config import ConfigError, did_you_mean, from_dict, parse_yaml, to_dict
from border_py.run.experiment import AnyExperiment, Experiment, OfflineExperiment
from border_py.run.tags import DEFAULT_TAGS, PLAIN, TAGS


def _import(path: str) -> Any:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def resolve_tag(component: str, tag: object, source: str) -> type:
    """The config class a component's ``type`` names.

    Raises:
        ConfigError: the tag is unknown, or an import path that does not lead to an attrs config class.
    """
    known = TAGS[component]
    if isinstance(tag, str) and tag in known:
        cls: Any = _import(known[tag])
        return cls  # type: ignore[no-any-return]
    if not isinstance(tag, str) or ":" not in tag:
        raise ConfigError(
            f"{source}: {component}.type {tag!r} is unknown: give one of {sorted(known)} or the import path "
            "of your config class (package.module:Class)"
        )
    try:
        cls = _import(tag)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(f"{source}: {component}.type {tag!r} cannot be imported: {exc}") from exc
    if not (isinstance(cls, type) and attrs.has(cls) and callable(getattr(cls, "build", None))):
        raise ConfigError(f"{source}: {component}.type {tag!r} is not an attrs config class with build()")
    return cls


def tag_of(component: str, config: object) -> str:
    """The tag that names ``config``'s class in a file (its import path for a class of the user's; a class
    of the script being run is named by the script's module, so that other commands can import it)."""
    cls = type(config)
    for tag, known in TAGS[component].items():
        if _import(known) is cls:
            return tag
    return f"{_module_name(cls.__module__)}:{cls.__qualname__}"


def _module_name(module: str) -> str:
    """``module``, or for ``__main__`` the name it is imported by: ``python -m pkg.mod`` -> ``pkg.mod``,
    ``python mod.py`` -> ``mod``."""
    main = sys.modules.get("__main__") if module == "__main__" else None
    if main is None:
        return module
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name:
        return str(spec.name)
    file = getattr(main, "__file__", None)
    return Path(file).stem if file else module


def _component(component: str, data: object, source: str) -> Any:
    where = f"{source}: {component}"
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: expected a mapping of fields, got {type(data).__name__}")
    fields = dict(data)
    tag = fields.pop("type", DEFAULT_TAGS.get(component))
    if tag is None:
        raise ConfigError(f"{where}: give its type (one of {sorted(TAGS[component])})")
    return from_dict(resolve_tag(component, tag, source), fields, source=where)


TRUST_HINT = (
    "border_py imports no code a file names unless you trust it: --trust-code (Python: trust_code=True)"
)


def imported_modules(data: Mapping[str, Any]) -> dict[str, str]:
    """The modules that building the experiment ``data`` would import by name, by the field naming each
    (``{"env.name": "corridor"}``): import paths in ``type`` and Gymnasium's ``module:EnvId-v0`` ids.

    Examples:
        >>> imported_modules({"env": {"name": "corridor:Corridor-v0"}, "agent": {"type": "dqn"}})
        {'env.name': 'corridor'}
    """
    found: dict[str, str] = {}
    for component in TAGS:
        section = data.get(component)
        tag = section.get("type") if isinstance(section, Mapping) else None
        if isinstance(tag, str) and ":" in tag:
            found[f"{component}.type"] = tag.partition(":")[0]
    env = data.get("env")
    name = env.get("name") if isinstance(env, Mapping) else None
    if isinstance(name, str) and ":" in name:
        found["env.name"] = name.partition(":")[0]
    return found


Trust = bool | Collection[str]
"""Which modules a file may name: all (``True``), none (``False``), or these (the modules of a program's own
experiment, which the program has imported already)."""


def refuse_code(data: Mapping[str, Any], source: str, trusted: Collection[str] = ()) -> None:
    """Refuses experiment data that would import a module it names (see `imported_modules`), but
    the ``trusted`` ones.

    Raises:
        ConfigError: the first such field, the module it names and how to trust it.
    """
    for field, module in imported_modules(data).items():
        if module not in trusted:
            raise ConfigError(f"{source}: {field} would import the module {module!r}: {TRUST_HINT}")


def experiment_from_dict(
    data: object, source: str = "experiment", *, trust_code: Trust = True
) -> AnyExperiment:
    """Builds an experiment from plain data (parsed YAML): offline when it has a ``dataset``. A key set
    to ``null`` counts as not given.

    Args:
        data: the experiment as plain data.
        source: where it came from, for errors.
        trust_code: import the modules the data names (your own data); ``False`` for data from a file
            you did not write (a run directory, a download): such a name is refused (`refuse_code`);
            a collection of module names trusts those alone.

    Raises:
        ConfigError: a missing or unknown field, an unknown tag, a value a validator refuses, or
            components that do not pair; the message names ``source`` and the field.
    """
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: expected a mapping of fields, got {type(data).__name__}")
    if trust_code is not True:
        refuse_code(data, source, trust_code or ())
    data = {k: v for k, v in data.items() if v is not None}  # null: not set (a zoo entry drops a default)
    cls: type[Any] = OfflineExperiment if "dataset" in data else Experiment
    names = {a.name for a in attrs.fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        kind = "an offline experiment (it has a dataset)" if cls is OfflineExperiment else "an experiment"
        raise ConfigError(f"{source}: unknown keys {unknown} for {kind}; its keys are {sorted(names)}")
    required = [a.name for a in attrs.fields(cls) if a.default is attrs.NOTHING]
    missing = sorted(n for n in required if n not in data)
    if missing:
        raise ConfigError(f"{source}: missing required keys {missing}")
    fields: dict[str, Any] = {}
    for name, value in data.items():
        if name in TAGS:
            fields[name] = _component(name, value, source)
        elif name in PLAIN:
            fields[name] = (
                None if value is None else from_dict(_import(PLAIN[name]), value, f"{source}: {name}")
            )
        else:
            fields[name] = value
    try:
        experiment: AnyExperiment = cls(**fields)
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"{source}: {exc}") from exc
    return experiment


def experiment_to_dict(experiment: AnyExperiment) -> dict[str, Any]:
    """``experiment`` as plain data that `experiment_from_dict` reads back (each component tagged)."""
    data: dict[str, Any] = {}
    for field in attrs.fields(type(experiment)):
        value = getattr(experiment, field.name)
        if field.name in TAGS:
            data[field.name] = {"type": tag_of(field.name, value), **to_dict(value)}
        elif field.name in PLAIN:
            data[field.name] = None if value is None else to_dict(value)
        else:
            data[field.name] = value
    return data


def with_defaults(data: Any) -> Any:
    """``data`` (an experiment as plain data, ``config.yaml``'s) as this version writes it: a run written
    before a field existed (one without ``evaluator.envs``) then compares equal to a run written after,
    where the field holds its default. Data that does not load as an experiment (a module it names,
    never imported here; a field since removed) is returned as it is. `border_py.plot` groups runs by it.

    Examples:
        >>> with_defaults({"agent": {"type": "payload:Agent"}})
        {'agent': {'type': 'payload:Agent'}}
    """
    try:
        return experiment_to_dict(experiment_from_dict(data, "config.yaml", trust_code=False))
    except (ConfigError, ValueError, TypeError):
        return data


def load_experiment(path: Path | str, *, trust_code: Trust = False) -> AnyExperiment:
    """Reads an experiment from the YAML file ``path``; with ``trust_code`` the modules it names are
    imported, else a name that would import one is refused (`refuse_code`).

    Raises:
        FileNotFoundError: there is no such file.
        ConfigError: the file is empty, not valid YAML, or not a valid experiment (file and field named).
    """
    path = Path(path)
    try:
        text = path.read_text()
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not a text file: {exc}") from exc
    data = parse_yaml(text, str(path))
    if data is None:
        raise ConfigError(f"{path}: the file is empty")
    return experiment_from_dict(data, str(path), trust_code=trust_code)


def dump_experiment(experiment: AnyExperiment) -> str:
    """``experiment`` as YAML text."""
    return yaml.safe_dump(experiment_to_dict(experiment), sort_keys=False)


_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def parse_value(text: str) -> Any:
    """A ``--set`` value as YAML reads it, except that ``3e-4`` is a number (YAML 1.1 reads a string).

    Examples:
        >>> parse_value("3e-4"), parse_value("[64, 64]"), parse_value("null"), parse_value("huber")
        (0.0003, [64, 64], None, 'huber')
    """
    value = parse_yaml(text, f"value {text!r}")
    if isinstance(value, str) and _NUMBER.match(value):
        return float(value)
    return value


def apply_overrides(
    data: Mapping[str, Any], overrides: Sequence[str], source: str = "--set"
) -> dict[str, Any]:
    """``data`` (an experiment as plain data) with each ``dotted.key=value`` of ``overrides`` set.

    A key must name a field the data already has (``agent.lr``, ``trainer.max_env_steps``), or a field
    of a component's config (``agent.double_dqn``, set to its default when omitted): a typo is an error
    naming it, never a new key silently ignored. A component's ``type`` set to another tag keeps the fields
    its new config takes and drops the others; a field of free-form keys (``env.kwargs``) takes any key.

    Raises:
        ConfigError: an override without ``=``, an unknown key, or a value that is not valid YAML.
    """
    result: dict[str, Any] = _deep_copy(data)
    for override in overrides:
        key, sep, text = override.partition("=")
        if not sep or not key:
            raise ConfigError(
                f"{source} {override!r}: expected key=value (e.g. agent.lr=3e-4); --set takes every word "
                "up to the next flag, so give ALGO and other words before it"
            )
        parts = key.split(".")
        node: Any = result
        for i, part in enumerate(parts[:-1]):
            if i == 1 and part not in node and _free_form(result, parts[:2]):
                node[part] = {}  # left at its default: filled key by key
            if not isinstance(node.get(part), dict):
                here = ".".join(parts[: i + 1])
                elsewhere = [p for p in _section_paths(result) if p.endswith(f".{part}") and p != here]
                hint = (
                    f"; this experiment has it at {', '.join(repr(p) for p in elsewhere)}"
                    if elsewhere
                    else ""
                )
                raise ConfigError(f"{source} {override!r}: {here} is not a section{hint}")
            node = node[part]
        last = parts[-1]
        if len(parts) == 2 and last == "type" and parts[0] in TAGS:
            _retype(node, parts[0], parse_value(text))
            continue
        fields = _fields_of(result, parts[:-1])
        if last not in node and last not in fields and not _free_form(result, parts[:-1]):
            known = sorted(set(node) | fields)
            raise ConfigError(
                f"{source} {override!r}: unknown key {key!r}"
                f"{did_you_mean(last, known, prefix='.'.join(parts[:-1]))}; known here: {known}"
            )
        node[last] = parse_value(text)
    return result


def _free_form(data: Mapping[str, Any], section: list[str]) -> bool:
    """Whether ``section`` is a component's field of free-form keys, an empty dict by default (``env.kwargs``:
    the env's own keyword arguments, which the env checks)."""
    if len(section) != 2 or not isinstance(data.get(section[0]), Mapping):
        return False
    name, tag = section[0], data[section[0]].get("type", DEFAULT_TAGS.get(section[0]))
    if name not in TAGS or not isinstance(tag, str) or tag not in TAGS[name]:
        return False
    field = attrs.fields_dict(_import(TAGS[name][tag])).get(section[1])
    return field is not None and getattr(field.default, "factory", None) is dict


def _retype(node: dict[str, Any], component: str, tag: Any) -> None:
    """Sets a component's ``type``; for another known config class, the fields it does not take are
    dropped (``step_processor.type=her`` leaves ``n_steps`` behind and keeps ``gamma``)."""
    old = node.get("type", DEFAULT_TAGS.get(component))
    node["type"] = tag
    if tag != old and isinstance(tag, str) and tag in TAGS[component]:
        fields = {a.name for a in attrs.fields(_import(TAGS[component][tag]))}
        for key in [key for key in node if key != "type" and key not in fields]:
            del node[key]


def _section_paths(data: Mapping[str, Any], prefix: str = "") -> list[str]:
    """The dotted path of every section (a mapping) in ``data``, outermost first."""
    paths = []
    for key, value in data.items():
        if isinstance(value, Mapping):
            path = f"{prefix}{key}"
            paths += [path, *_section_paths(value, f"{path}.")]
    return paths


def _fields_of(data: Mapping[str, Any], section: list[str]) -> set[str]:
    """The fields the config at ``section`` takes, present in the data or not: the experiment's top-level
    ones (``init_from``, ``torch_threads``), or those of a top-level component's config class."""
    if not section:
        from border_py.run.experiment import Experiment, OfflineExperiment

        offline = data.get("dataset") is not None  # null: not set (as `experiment_from_dict` reads it)
        return {a.name for a in attrs.fields(OfflineExperiment if offline else Experiment)}
    if len(section) != 1 or not isinstance(data.get(section[0]), Mapping):
        return set()
    name, tag = section[0], data[section[0]].get("type", DEFAULT_TAGS.get(section[0]))
    if name in TAGS and isinstance(tag, str) and tag in TAGS[name]:
        return {a.name for a in attrs.fields(_import(TAGS[name][tag]))}
    if name in PLAIN:
        return {a.name for a in attrs.fields(_import(PLAIN[name]))}
    return set()


def _deep_copy(data: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _deep_copy(v) if isinstance(v, Mapping) else v for k, v in data.items()}
