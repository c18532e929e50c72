"""The checks of a saved episode start (what a Gymnasium adapter's ``restore_episode_start`` reads from a
checkpoint's ``trainer_state.json``): every field is refused with a `ValueError` naming it, before the
env changes, since numpy takes a bit generator state only after converting its numbers (``-1`` or
``2**200`` raise ``OverflowError`` there)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

MAX_COUNT = 2**63 - 1
"""The largest env step count or seed a checkpoint may hold (what an int64 counter holds)."""


def checked_start(state: Any, name: str, keys: tuple[str, ...]) -> tuple[int | None, int]:
    """The ``seed`` (``None``: the episode started from the env's RNG) and ``env_steps`` of ``state``,
    which must hold ``keys`` besides.

    Raises:
        ValueError: ``state`` is not a mapping holding those keys, or ``seed`` or ``env_steps`` is not a
            whole number in [0, 2**63 - 1]; the message names the env and the field.
    """
    expected = ("seed", "env_steps", *keys)
    if not isinstance(state, Mapping) or not set(expected) <= state.keys():
        raise ValueError(f"{name}: not a saved episode start: expected the keys {list(expected)}")
    seed = state["seed"]
    return (None if seed is None else _count(seed, "seed", name)), _count(
        state["env_steps"], "env_steps", name
    )


def _count(value: Any, field: str, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or not 0 <= value <= MAX_COUNT:
        raise ValueError(
            f"{name}: episode_start.{field} must be a whole number in [0, 2**63 - 1], got {value!r:.60}"
        )
    return int(value)


def checked_rng_state(bit_generator: np.random.BitGenerator, state: Any, field: str, name: str) -> Any:
    """``state`` once a fresh bit generator of ``bit_generator``'s kind took it (``bit_generator`` itself
    untouched).

    Raises:
        ValueError: it is not such a state, naming the env and ``episode_start.<field>``.
    """
    try:
        type(bit_generator)().state = state
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise ValueError(
            f"{name}: episode_start.{field} is not a {type(bit_generator).__name__} state: {exc!r:.200}"
        ) from exc
    return state
