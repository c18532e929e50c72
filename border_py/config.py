"""Loading and saving configs as YAML.

Every configurable component has a frozen, keyword-only attrs ``Config`` beside it, validated on
construction. This module turns any such config (nested ones included) into plain data and back, with
`cattrs <https://catt.rs>`_ doing the structuring: unknown keys are rejected, and every error names the file
and the field.

Examples:
    >>> import attrs
    >>> @attrs.frozen(kw_only=True)
    ... class C:
    ...     lr: float = attrs.field(default=1e-3, validator=attrs.validators.gt(0.0))
    >>> from_dict(C, {"lr": 0.1})
    C(lr=0.1)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import attrs
import cattrs
import yaml
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError, IterableValidationError

T = TypeVar("T")

MAX_YAML_DEPTH = 64
"""How deep a YAML document may nest: a config is a few levels; a hostile file of 100,000 would exhaust
the parser's recursion."""

MAX_YAML_CHARS = 2**20
"""The longest YAML text read, in characters: a config or a ``meta.yaml`` is a few kB. PyYAML reads about
200 kB a second, and a run writes its config again with every save: 8 MB of env kwargs took a tiny run
from seconds to nearly four minutes."""

MAX_INT = 2**63 - 1
"""The largest whole number a config field takes (int64, what numpy and torch count in): a larger one is
a typo or a stand-in for "never", which is ``None``."""

MAX_EPISODE_STEPS = 1_000_000
"""The longest episode limit an env config sets, in env steps (Atari's in frames). An evaluation plays
each of its episodes to the end between two opt steps, and a stop signal waits for it; in an env that
never ends an episode on its own (Pendulum; Breakout while the agent never fires) every one runs to the
limit. A million steps is seconds to minutes (classic control steps in about 10 us, MuJoCo in about 50)
and 500 times the longest limit Gymnasium registers (BipedalWalkerHardcore's 2,000); ``10**12``, which
int64 holds, ran for months."""


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing aliases (a few hundred bytes of them expand to gigabytes), nesting
    deeper than `MAX_YAML_DEPTH`, a key given twice in one mapping (the last would win silently) and a key
    that is not text."""

    _depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event: Any = self.peek_event()  # type: ignore[no-untyped-call]
        mark: Any = event.start_mark
        if isinstance(event, yaml.AliasEvent):
            raise yaml.composer.ComposerError(
                None, None, f"the alias *{event.anchor} is refused: write the value out", mark
            )
        if self._depth >= MAX_YAML_DEPTH:
            raise yaml.composer.ComposerError(None, None, f"nested deeper than {MAX_YAML_DEPTH} levels", mark)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _no_duplicates(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False) -> Any:
    seen: set[object] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if not isinstance(key, str):  # 1, null, [a]: no field has such a name, and sorting them fails
            raise yaml.constructor.ConstructorError(
                None, None, f"the key {key!r:.40} is not text: keys are names", key_node.start_mark
            )
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"the key {key!r} is given twice", key_node.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_BoundedLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _no_duplicates)


def _timestamp_as_text(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    # No field takes a date, and PyYAML's date constructor raises AttributeError (not a YAMLError) on a
    # `!!timestamp` it cannot read (found by tests/fuzz): a timestamp stays the text it was written as.
    return loader.construct_scalar(node)


_BoundedLoader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_as_text)


def parse_yaml(text: str, source: str) -> Any:
    """Parses YAML as data from anyone: safe types only, no aliases, no key twice, at most
    `MAX_YAML_DEPTH` levels deep and `MAX_YAML_CHARS` long.

    Raises:
        ConfigError: not valid YAML or one of the above (``source`` named, with the line).

    Examples:
        >>> parse_yaml("a: [1, 2]", "f.yaml")
        {'a': [1, 2]}
        >>> parse_yaml("a: !!timestamp 2001-01-01env", "f.yaml")
        {'a': '2001-01-01env'}
        >>> try:
        ...     parse_yaml("a: &x [1, 2]\\nb: *x", "f.yaml")
        ... except ConfigError as exc:
        ...     print(str(exc).split("   in ")[0])
        f.yaml: not valid YAML: the alias *x is refused: write the value out
    """
    if len(text) > MAX_YAML_CHARS:
        raise ConfigError(
            f"{source}: {len(text):,} characters of YAML, more than the {MAX_YAML_CHARS:,} a config or "
            "metadata file may hold (data belongs in a file the env or dataset reads)"
        )
    try:
        return yaml.load(text, Loader=_BoundedLoader)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{source}: not valid YAML: {exc}".replace("\n", " ")) from exc


_converter = cattrs.Converter(forbid_extra_keys=True)


def _structure_int(value: object, _: type[int]) -> int:
    # cattrs would call int(): 64.5 -> 64 and True -> 1 silently. A config value is taken as written or
    # refused.
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {value!r}")
    if not -MAX_INT - 1 <= value <= MAX_INT:
        raise ValueError(f"expected an integer in [-2**63, 2**63 - 1], got {value!r}")
    return value


def _structure_float(value: object, _: type[float]) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"expected a number, got {value!r}")
    if not math.isfinite(value):
        # No field of any config takes NaN or infinity: "never" and "no limit" are None.
        raise ValueError(f"expected a finite number, got {value!r}")
    return float(value)


def _structure_bool(value: object, _: type[bool]) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected true or false, got {value!r}")
    return value


_converter.register_structure_hook(int, _structure_int)
_converter.register_structure_hook(float, _structure_float)
_converter.register_structure_hook(bool, _structure_bool)


def finite(instance: object, attribute: attrs.Attribute[Any], value: float | None) -> None:
    """attrs validator: ``value`` is ``None`` or a finite number (no NaN, no infinity)."""
    if value is not None and not math.isfinite(value):
        raise ValueError(f"'{attribute.name}' must be a finite number: {value}")


positive_finite = [attrs.validators.gt(0.0), finite]
"""attrs validators: a finite number above 0 (a learning rate, a temperature)."""

unit_interval = [attrs.validators.ge(0.0), attrs.validators.le(1.0)]
"""attrs validators: a number in ``[0, 1]`` (GAE's lambda, a probability)."""


def episode_limit(instance: object, attribute: attrs.Attribute[Any], value: int | None) -> None:
    """attrs validator: ``value`` is ``None`` or an episode limit in [1, `MAX_EPISODE_STEPS`]."""
    if value is not None and not 0 < value <= MAX_EPISODE_STEPS:
        raise ValueError(
            f"'{attribute.name}' must be in [1, {MAX_EPISODE_STEPS:,}], got {value:,}: an evaluation plays "
            "each episode of an env that never ends one on its own to this limit"
        )


def layer_sizes(instance: object, attribute: attrs.Attribute[Any], value: tuple[int, ...]) -> None:
    """attrs validator: at least one hidden layer, each of at least one unit."""
    if len(value) == 0 or not all(isinstance(v, int) and v > 0 for v in value):
        raise ValueError(f"'{attribute.name}' must list at least one hidden layer, each > 0: {value}")


def unit_counts(instance: object, attribute: attrs.Attribute[Any], value: tuple[int, ...]) -> None:
    """attrs validator: layer widths of at least one unit each, possibly none (a single linear layer)."""
    if not all(isinstance(v, int) and v > 0 for v in value):
        raise ValueError(f"'{attribute.name}' must list layer widths > 0: {value}")


class ConfigError(ValueError):
    """A config could not be built from its data; the message names the source, the field and the value."""


def did_you_mean(key: str, known: Iterable[str], prefix: str = "") -> str:
    """``; did you mean 'actor_lr', 'critic_lr'?`` for a near miss: a close spelling, or a field that has
    ``key`` as one of its ``_``-separated words (``lr`` -> ``actor_lr``); each named under ``prefix``
    (``agent`` -> ``'agent.lr'``), as the user would write it.

    Examples:
        >>> did_you_mean("lrr", ["lr", "tau"], prefix="agent")
        "; did you mean 'agent.lr'?"
    """
    import difflib

    names = sorted(known)
    close = difflib.get_close_matches(key, names, n=3, cutoff=0.75)
    words = [k for k in names if key in k.split("_") and k not in close]
    found = [f"{prefix}.{k}" if prefix else k for k in [*close, *words][:4]]
    return f"; did you mean {', '.join(repr(k) for k in found)}?" if found else ""


def _format_exception(exc: BaseException, type_: type[Any] | None) -> str:
    if isinstance(exc, ForbiddenExtraKeysError):
        fields = [a.name for a in attrs.fields(exc.cl)] if attrs.has(exc.cl) else []
        hints = "".join(did_you_mean(k, fields) for k in sorted(exc.extra_fields))
        return f"unknown keys {sorted(exc.extra_fields)}{hints}"
    if isinstance(exc, KeyError):
        return f"missing required field {exc}"
    if isinstance(exc, ValueError | TypeError):
        # A validator's message names the field and the value; the scalar hooks' says what was expected.
        return str(exc)
    return f"invalid value for {getattr(type_, '__name__', repr(type_))}: {exc!r}"


def from_dict(cls: type[T], data: Mapping[str, Any], source: str = "config") -> T:
    """Builds a config of type ``cls`` from plain data.

    Args:
        cls: the attrs config class.
        data: the data, e.g. parsed YAML.
        source: a name for error messages (a file name).

    Returns:
        The validated config.

    Raises:
        ConfigError: an unknown key, a missing field, a value of the wrong type or a value a validator
            rejects; the message names ``source`` and the field path.
    """
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: expected a mapping of fields, got {type(data).__name__}")
    try:
        return _converter.structure(dict(data), cls)
    except (ClassValidationError, IterableValidationError) as exc:
        messages = cattrs.transform_error(exc, path=source, format_exception=_format_exception)
        raise ConfigError("; ".join(messages)) from exc
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"{source}: {exc}") from exc


def to_dict(config: object) -> dict[str, Any]:
    """Returns ``config`` as plain data (dicts, lists, scalars) that `from_dict` reads back."""
    data = _converter.unstructure(config)
    if not isinstance(data, dict):
        raise TypeError(f"{type(config).__name__} is not an attrs config")
    return data


def save_yaml(config: object, path: Path | str) -> None:
    """Writes ``config`` to ``path`` as YAML."""
    Path(path).write_text(yaml.safe_dump(to_dict(config), sort_keys=False))


def load_yaml(cls: type[T], path: Path | str) -> T:
    """Reads a config of type ``cls`` from the YAML file ``path``.

    Raises:
        ConfigError: the file is empty, is not valid YAML or does not describe a valid ``cls``; the message
            names the file and the field.
        FileNotFoundError: there is no such file.
    """
    data = parse_yaml(Path(path).read_text(), str(path))
    if data is None:
        # An empty file is a mistake (a truncated copy, the wrong file), not "all defaults": say so.
        raise ConfigError(f"{path}: the file is empty; give at least one field (or no --config)")
    return from_dict(cls, data, source=str(path))
