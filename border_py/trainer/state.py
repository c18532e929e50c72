"""The trainer's checkpoint state (``trainer_state.json``) and the checks a resume makes.

``trainer_state.json`` holds the counters, the evaluations, the global RNG states and the regime's state
(the sampler's unfinished episode online). It is JSON, so reading it can never run code: a pickle can, and
earlier versions of border_py wrote ``trainer_state.pkl``, which this version refuses to read.

JSON has no arrays and no infinities, so two tagged objects carry them:

    {"__ndarray__": "<base64 of the raw bytes>", "dtype": "<f4", "shape": [4]}   # bool, int, uint, float
    {"__float__": "-inf"}                                                        # inf, -inf, nan

Decoding accepts only those dtypes (never ``object``), checks that the byte count matches the shape, and
copies the data into a fresh array.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import yaml

from border_py.checkpoint import (
    LEGACY_STATE_FILE,
    META_FILE,
    TRAINER_STATE_FILE,
    CheckpointError,
    load_meta,
    open_saved,
)
from border_py.config import to_dict

STATE_FORMAT = 2
"""The version of ``trainer_state.json``'s layout (1 was the pickle of border_py 0.1)."""

_ARRAY, _FLOAT = "__ndarray__", "__float__"
_ARRAY_KINDS = "biuf"  # bool, signed and unsigned integers, floats: plain bytes, nothing to execute
_STATE_KEYS = {"format", "regime", "books", "source", "rng"}
BOOK_KEYS = frozenset({"env_steps", "opt_steps", "warmup_end", "best_score", "evaluations"})
"""What a checkpoint's books hold (`border_py.trainer.bookkeeper.Bookkeeper.state_dict`)."""


def encode(value: Any, where: str = "state") -> Any:
    """``value`` as JSON data: dicts with string keys, lists, strings, finite numbers, booleans, ``None``,
    numpy arrays and non-finite floats as tagged objects.

    Raises:
        TypeError: ``value`` holds something else (the message names where).

    Examples:
        >>> encode({"n": 1, "best": float("-inf"), "obs": np.zeros(2, np.float32)})["best"]
        {'__float__': '-inf'}
    """
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {_FLOAT: repr(value)}
    if isinstance(value, np.ndarray | np.generic):
        array = np.asarray(value)
        if array.dtype.kind not in _ARRAY_KINDS:
            raise TypeError(f"{where}: arrays of dtype {array.dtype} cannot be stored in a checkpoint")
        data = base64.b64encode(array.tobytes()).decode("ascii")
        return {_ARRAY: data, "dtype": array.dtype.str, "shape": list(array.shape)}
    if isinstance(value, Mapping):
        if not all(isinstance(k, str) for k in value):
            raise TypeError(f"{where}: only string keys can be stored in a checkpoint")
        return {k: encode(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
    raise TypeError(
        f"{where}: a {type(value).__name__} cannot be stored in a checkpoint "
        "(plain data and numpy arrays of numbers only)"
    )


def decode(data: Any, where: str = "state") -> Any:
    """The inverse of `encode`.

    Raises:
        CheckpointError: a tagged object is malformed, or an array has a dtype that is not a plain number.

    Examples:
        >>> decode(encode({"obs": np.arange(3)}))["obs"].tolist()
        [0, 1, 2]
    """
    if isinstance(data, dict):
        if _ARRAY in data:
            return _decode_array(data, where)
        if _FLOAT in data:
            text = data[_FLOAT]
            if data.keys() != {_FLOAT} or text not in ("inf", "-inf", "nan"):
                raise CheckpointError(f"{where}: malformed non-finite float {data!r}")
            return float(text)
        return {k: decode(v, f"{where}.{k}") for k, v in data.items()}
    if isinstance(data, list):
        return [decode(v, f"{where}[{i}]") for i, v in enumerate(data)]
    return data


def _decode_array(data: dict[str, Any], where: str) -> np.ndarray[Any, Any]:
    if data.keys() != {_ARRAY, "dtype", "shape"}:
        raise CheckpointError(f"{where}: malformed array, keys {sorted(data)}")
    try:
        dtype = np.dtype(data["dtype"])
    except (TypeError, ValueError) as exc:  # ValueError: a mapping numpy reads as the fields of a record
        raise CheckpointError(f"{where}: not a dtype: {data['dtype']!r:.80}") from exc
    shape = data["shape"]
    if dtype.kind not in _ARRAY_KINDS or dtype.hasobject:
        raise CheckpointError(f"{where}: arrays of dtype {dtype} are refused (plain numbers only)")
    if not (isinstance(shape, list) and all(type(n) is int and n >= 0 for n in shape)):  # not True
        raise CheckpointError(f"{where}: malformed array shape {shape!r}")
    try:
        raw = base64.b64decode(data[_ARRAY], validate=True)
    except (ValueError, TypeError) as exc:  # binascii.Error, or a text that is not ASCII
        raise CheckpointError(f"{where}: array data is not base64") from exc
    if len(raw) != dtype.itemsize * math.prod(shape):
        raise CheckpointError(f"{where}: {len(raw)} bytes do not make an array of {dtype} and shape {shape}")
    try:
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    except (TypeError, ValueError) as exc:  # an empty array's other sizes beyond numpy's, too many axes
        raise CheckpointError(f"{where}: shape {shape!r:.80} is not a numpy array's") from exc


def write_trainer_state(path: Path, state: Mapping[str, Any]) -> Path:
    """Writes ``state`` (the keys ``regime``, ``books``, ``source``, ``rng``) with the format version to
    ``path/trainer_state.json``; returns the file."""
    file = path / TRAINER_STATE_FILE
    file.write_text(json.dumps(encode({"format": STATE_FORMAT, **state}), allow_nan=False))
    return file


def read_trainer_state(
    path: Path, regime: str | None = None, meta: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Reads ``path/trainer_state.json`` written by a run of ``regime`` (``online``, ``offline``, ...;
    ``None``: any regime, to read its counters); its counters are checked against ``meta`` (the
    checkpoint's ``meta.yaml`` as the caller read it; ``None``: read here).

    Raises:
        FileNotFoundError: the file is missing.
        CheckpointError: the file is corrupt, of another format version or of another regime; or ``path``
            holds only the pickle of an older border_py, which is never loaded (it could run code).
    """
    file = path / TRAINER_STATE_FILE
    if not file.is_file():
        if (path / LEGACY_STATE_FILE).is_file():
            raise CheckpointError(legacy_state_message(path))
        raise FileNotFoundError(f"{file} not found: {path} is not a complete training checkpoint")
    try:
        with open_saved(file) as f:
            state = decode(json.loads(f.read()), str(file))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise CheckpointError(f"{file} is not a readable training state: {exc}") from exc
    if not isinstance(state, dict) or state.keys() != _STATE_KEYS:
        raise CheckpointError(f"{file} is not a training state: expected the keys {sorted(_STATE_KEYS)}")
    if state["format"] != STATE_FORMAT:
        raise CheckpointError(
            f"{file} has format {state['format']!r}; this border_py reads format {STATE_FORMAT}"
        )
    if regime is not None and state["regime"] != regime:
        raise CheckpointError(f"{file} is a checkpoint of {state['regime']!r} training, not of {regime!r}")
    check_books(state["books"], path, file, meta)
    if regime is not None:  # a resume: its RNG states are set last, so they are checked first
        from border_py.seeding import check_rng_states  # torch's; reading the counters needs none

        try:
            check_rng_states(state["rng"])
        except ValueError as exc:
            raise CheckpointError(f"{file}: rng: {exc}") from exc
    return state


_MAX_COUNT = 2**63 - 1


def _count(books: Mapping[str, Any], key: str, file: Path) -> int:
    value = books.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _MAX_COUNT:
        raise CheckpointError(f"{file}: books.{key} must be a whole number in [0, 2**63 - 1], got {value!r}")
    return value


def check_books(books: Any, path: Path, file: Path, meta: Mapping[str, Any] | None = None) -> None:
    """Checks the counters and scores of a checkpoint's trainer state, each field named: counters are
    whole numbers in range, scores finite (``best_score`` is ``-inf`` before any evaluation and the best
    evaluation's score after), evaluations never ahead of the counters, and the counters equal to those
    of the checkpoint's own ``meta.yaml`` (and its directory name).

    Raises:
        CheckpointError: the first field that is wrong, with the file and the value.
    """
    if not isinstance(books, Mapping):
        raise CheckpointError(f"{file}: books must be a mapping, got {type(books).__name__}")
    unknown = sorted(set(books) - BOOK_KEYS)
    if unknown:
        raise CheckpointError(
            f"{file}: books holds keys no border_py writes: {unknown} (known: {sorted(BOOK_KEYS)})"
        )
    opt_steps, env_steps = _count(books, "opt_steps", file), _count(books, "env_steps", file)
    _count(books, "warmup_end", file)
    rows = books.get("evaluations")
    if not isinstance(rows, list):
        raise CheckpointError(f"{file}: books.evaluations must be a list, got {rows!r}")
    scores = []
    for i, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != 3:
            raise CheckpointError(
                f"{file}: books.evaluations[{i}] must be [opt_steps, env_steps, score], got {row!r}"
            )
        at = {"opt_steps": row[0], "env_steps": row[1]}
        if _count(at, "opt_steps", file) > opt_steps or _count(at, "env_steps", file) > env_steps:
            raise CheckpointError(
                f"{file}: books.evaluations[{i}] = {row!r} lies after the checkpoint's counters"
            )
        if isinstance(row[2], bool) or not isinstance(row[2], (int, float)) or not math.isfinite(row[2]):
            raise CheckpointError(
                f"{file}: books.evaluations[{i}] has a score that is not a finite number: {row[2]!r}"
            )
        scores.append(float(row[2]))
    best = books.get("best_score")
    expected = max(scores, default=-math.inf)
    if isinstance(best, bool) or not isinstance(best, (int, float)) or float(best) != expected:
        raise CheckpointError(
            f"{file}: books.best_score is {best!r}, but the best evaluation scored {expected!r}"
        )
    _check_against_meta(path, opt_steps, env_steps, file, meta)


def _check_against_meta(
    path: Path, opt_steps: int, env_steps: int, file: Path, meta: Mapping[str, Any] | None
) -> None:
    if path.name.isdigit() and int(path.name) != opt_steps:
        raise CheckpointError(f"{file}: books.opt_steps is {opt_steps}, but the checkpoint is {path.name}/")
    meta_file = path / META_FILE
    if meta is None:
        if not meta_file.is_file():
            return  # an incomplete checkpoint is refused for that, by the caller
        meta = load_meta(path)
    saved = (meta["opt_steps"], meta["env_steps"])
    if saved != (opt_steps, env_steps):
        raise CheckpointError(
            f"{file}: the counters (opt_steps {opt_steps}, env_steps {env_steps}) differ from {meta_file}'s "
            f"{saved}: one of the two files was changed"
        )


def legacy_state_message(path: Path) -> str:
    """Why a checkpoint with the pickled trainer state of border_py 0.1 is refused."""
    return (
        f"{path / LEGACY_STATE_FILE} is a checkpoint of an older border_py: its trainer state is a pickle, "
        "which can run arbitrary code when loaded, so it is not read. Start a new run (the agent files in "
        f"{path} still load with Agent.load_params)"
    )


def describe_config(config: object, field: str) -> Any:
    """A stable description of a component's config as plain data, for ``meta.yaml`` and the resume check.

    An attrs class is described by its fields (`to_dict`), a dataclass likewise,
    an object with a ``to_dict()`` method by what it returns, and any other object by its type's name and
    its attributes (``vars``). Never by ``repr``: that holds a memory address, different in every process.

    Raises:
        TypeError: the description holds something other than plain data (the message names ``field``).

    Examples:
        >>> class Chain:
        ...     def __init__(self) -> None:
        ...         self.length = 5
        >>> describe_config(Chain(), "env")
        {'type': 'border_py.trainer.state.Chain', 'length': 5}
    """
    if attrs.has(type(config)):
        return to_dict(config)
    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        data: Any = dataclasses.asdict(config)
    elif callable(getattr(config, "to_dict", None)):
        data = config.to_dict()  # type: ignore[attr-defined]  # checked just above
    elif hasattr(config, "__dict__"):
        data = {"type": f"{type(config).__module__}.{type(config).__qualname__}", **vars(config)}
    else:
        data = None
    try:
        return _plain(data)
    except TypeError as exc:
        raise TypeError(
            f"the {field} config ({type(config).__name__}) cannot be described as plain data ({exc}): "
            "make it an attrs class or a dataclass, or give it a to_dict() returning dicts, lists, "
            "strings, numbers and booleans"
        ) from exc


def _plain(data: Any) -> Any:
    if data is None or isinstance(data, bool | int | float | str):
        return data
    if isinstance(data, Mapping) and all(isinstance(k, str) for k in data):
        return {k: _plain(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [_plain(v) for v in data]
    raise TypeError(f"{type(data).__name__} is not plain data")


def check_same_setup(path: Path, saved: object, setup: Mapping[str, Any], keys: tuple[str, ...]) -> None:
    """Refuses to resume from ``path`` when a dotted key of ``keys`` (``env``, ``trainer.seed``, ...) differs
    between the saved setup and this run's.

    Raises:
        ValueError: ``meta.yaml`` records no setup, or a key differs (the message names the first field that
            does).
    """
    if not isinstance(saved, dict):
        raise ValueError(f"{path / 'meta.yaml'} records no config to compare with")
    # Compare as YAML data: the saved side went through YAML (tuples became lists).
    now = yaml.safe_load(yaml.safe_dump(dict(setup)))
    for key in keys:
        a, b = _lookup(saved, key), _lookup(now, key)
        if a != b:
            raise ValueError(
                f"cannot resume from {path}: {_first_difference(key, a, b)} (saved vs this run's config)"
            )


def _lookup(data: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        data = data.get(part) if isinstance(data, dict) else None
    return data


def _first_difference(key: str, a: Any, b: Any) -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(a.keys() | b.keys(), key=str):
            if a.get(k) != b.get(k):
                return _first_difference(f"{key}.{k}", a.get(k), b.get(k))
    return f"{key} is {a!r} vs {b!r}"
