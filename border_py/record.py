"""Records: the one currency of metrics in border_py.

Agents, envs, samplers and evaluators never log. They return a `Record`, an immutable mapping from a
namespaced key (``train/loss``, ``env/episode_return``, ``eval/episode_return``, ``time/fps``) to a
`RecordValue`; the trainer decides when a record is stored and flushed to a recorder.

Examples:
    >>> r = Record({"train/loss": 0.5}).merge(Record({"train/loss": 0.25, "opt_steps": 3}))
    >>> r["train/loss"], r["opt_steps"]
    (0.25, 3.0)
"""

from __future__ import annotations

import datetime
import math
import statistics
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

#: What a record may hold: a scalar (stored as ``float``), a 1-3-d float array (a histogram or an image), a
#: text, or a time stamp.
RecordValue: TypeAlias = float | npt.NDArray[np.float32] | str | datetime.datetime


def _check_value(key: str, value: object) -> RecordValue:
    if isinstance(value, bool):
        raise TypeError(f"record key {key!r}: bool is not a record value; store 0.0/1.0")
    if isinstance(value, int | float | np.integer | np.floating):
        return float(value)
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return float(value)
        if not 1 <= value.ndim <= 3:
            raise ValueError(f"record key {key!r}: arrays must be 1-3-d, got shape {value.shape}")
        return value.astype(np.float32, copy=False)
    if isinstance(value, str | datetime.datetime):
        return value
    raise TypeError(f"record key {key!r}: unsupported value type {type(value).__name__}")


class Record(Mapping[str, RecordValue]):
    """An immutable mapping ``str -> RecordValue``.

    Scalars of any numeric type are stored as ``float``; 0-d arrays become scalars.

    Args:
        items: the key/value pairs; values are checked and normalised on construction.

    Raises:
        TypeError: a value is not a scalar, an array, a text or a datetime.
        ValueError: an array is not 1-3-d.
    """

    __slots__ = ("_data",)

    def __init__(self, items: Mapping[str, object] | Iterable[tuple[str, object]] = ()) -> None:
        pairs = items.items() if isinstance(items, Mapping) else items
        self._data: dict[str, RecordValue] = {k: _check_value(k, v) for k, v in pairs}

    def __getitem__(self, key: str) -> RecordValue:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"Record({self._data!r})"

    def merge(self, other: Mapping[str, RecordValue]) -> Record:
        """Returns a new record with the keys of both; on a shared key, ``other`` wins."""
        if not other:
            return self
        if not self._data:
            return other if isinstance(other, Record) else Record(other)
        merged = Record()
        merged._data = {**self._data, **Record(other)._data}
        return merged

    def get_scalar(self, key: str) -> float:
        """Returns the scalar at ``key``.

        Raises:
            KeyError: the key is missing.
            TypeError: the value is not a scalar.
        """
        value = self._data[key]
        if not isinstance(value, float):
            raise TypeError(f"record key {key!r} holds {type(value).__name__}, not a scalar")
        return value


def aggregate(records: Iterable[Record]) -> Record:
    """Aggregates records stored between two flushes into one.

    A scalar stored once is kept as is. A scalar stored several times is written as its mean under the key
    itself, with ``<key>_min``, ``<key>_max`` and ``<key>_median`` beside it, so no stored value is dropped
    silently. Arrays, texts and datetimes keep the last value stored (they have no meaningful mean).
    NaN scalars are kept (they propagate to the mean), so a diverging loss is visible rather than hidden.

    Args:
        records: the stored records, oldest first.

    Returns:
        One record with the aggregated values.
    """
    scalars: dict[str, list[float]] = {}
    others: dict[str, RecordValue] = {}
    for record in records:
        for key, value in record.items():
            if isinstance(value, float):
                scalars.setdefault(key, []).append(value)
            else:
                others[key] = value
    out: dict[str, Any] = dict(others)
    for key, values in scalars.items():
        if len(values) == 1:
            out[key] = values[0]
            continue
        lo, hi = min(values), max(values)
        # fsum / n can round just outside [min, max] (three equal values); the mean never is.
        out[key] = min(max(math.fsum(values) / len(values), lo), hi)
        out[f"{key}_min"] = lo
        out[f"{key}_max"] = hi
        out[f"{key}_median"] = statistics.median(values)
    return Record(out)
