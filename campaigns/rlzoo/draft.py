"""One RL Zoo entry being translated: its keys over SB3's defaults, the border_py data written so far, the
conversions made and the keys refused. Every key the entry gives must be taken by a translation or
refused: `Draft.finish` refuses whatever is left, so nothing is dropped silently."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from campaigns.rlzoo.literal import LiteralRefusedError, parse_literal

NO_COUNTERPART: dict[str, str] = {
    "env_wrapper": "wraps the env in code border_py does not run",
    "vec_env_wrapper": "wraps the vector env in code border_py does not run",
    "frame_stack": "frame stacks are for pixel envs (border_py's Atari entries)",
    "callback": "an SB3 callback",
    "replay_buffer_class": "another replay buffer class (HER's)",
    "replay_buffer_kwargs": "another replay buffer's arguments",
    "env_kwargs": "arguments of the env's constructor",
    "optimize_memory_usage": "SB3's memory-saving buffer layout",
    "normalize": "this agent has no observation or reward normalisation (SB3's VecNormalize)",
}
"""The reason a key with no border_py counterpart is refused (any other: 'no border_py counterpart')."""


@attrs.frozen
class Refusal:
    """A key of an RL Zoo entry that could not be translated, and why."""

    key: str
    """The key (``use_sde``; ``policy_kwargs.activation_fn`` for a key inside ``policy_kwargs``)."""
    why: str
    """Its value and what border_py lacks."""

    def __str__(self) -> str:
        return f"{self.key} ({self.why})"


@attrs.define
class Draft:
    """An entry of ``hyperparams/<algo>.yml`` under translation (``algo`` ``ddpg`` is TD3's variant)."""

    algo: str
    """RL Zoo's algorithm (the file's name)."""
    given: Mapping[str, Any]
    """The entry's keys as RL Zoo's YAML gives them."""
    defaults: Mapping[str, Any]
    """SB3's value of each key the entry may omit."""
    data: dict[str, dict[str, Any]] = attrs.field(factory=dict)
    """The border_py experiment so far, by section (complete where SB3 has a default)."""
    notes: list[str] = attrs.field(factory=list)
    """The conversions made, one line each, for the entry's comment."""
    refused: list[Refusal] = attrs.field(factory=list)
    """The keys that could not be translated."""
    taken: set[str] = attrs.field(factory=set)

    def take(self, key: str) -> Any:
        """The entry's value of ``key``, else SB3's default; marks the key translated (or refused)."""
        self.taken.add(key)
        return self.given[key] if key in self.given else self.defaults.get(key)

    def has(self, key: str) -> bool:
        """Whether the entry gives ``key`` itself."""
        return key in self.given

    def put(self, section: str, **fields: Any) -> None:
        """Sets ``fields`` of the experiment's ``section``."""
        self.data.setdefault(section, {}).update(fields)

    def note(self, text: str) -> None:
        """Records a conversion for the entry's comment."""
        self.notes.append(text)

    def refuse(self, key: str, why: str) -> None:
        """Records ``key`` as untranslatable."""
        self.taken.add(key.partition(".")[0])
        self.refused.append(Refusal(key, why))

    def literal(self, key: str) -> Any:
        """``key``'s value, read with `parse_literal` where RL Zoo writes Python source; ``None`` (and
        ``key`` refused) where that is refused."""
        value = self.take(key)
        if not isinstance(value, str):
            return value
        try:
            return parse_literal(value)
        except LiteralRefusedError as exc:
            self.refuse(key, str(exc))
            return None

    def finish(self) -> None:
        """Refuses every key the entry gives that no translation took."""
        for key in self.given:
            if key not in self.taken:
                self.refuse(key, NO_COUNTERPART.get(key, "no border_py counterpart"))


def typed(draft: Draft, key: str, kind: type[bool | int | float]) -> Any:
    """``key``'s value as ``kind`` (a whole number may be written ``!!float 1e6``); ``None`` and refused
    if it is not one.

    Examples:
        >>> typed(Draft("dqn", {"n_timesteps": 1e5}, {}), "n_timesteps", int)
        100000
    """
    value = draft.take(key)
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if kind is bool:
        fits = isinstance(value, bool)
    elif kind is int:
        fits = number and float(value).is_integer()
    else:
        fits = number
    if not fits:
        kind_name = "a whole number" if kind is int else f"a {kind.__name__}"
        draft.refuse(key, f"{value!r} is not {kind_name}" if value is not None else "missing")
        return None
    return kind(value)


def as_int(draft: Draft, key: str) -> int | None:
    """``key``'s value as a whole number; ``None`` and refused if it is not one."""
    found: int | None = typed(draft, key, int)
    return found


def schedule(draft: Draft, key: str) -> tuple[float, bool] | None:
    """``key`` as (initial value, linear?): a number, or RL Zoo's ``lin_X`` (X falling linearly to 0 over
    the run); ``None`` and refused for any other string.

    Examples:
        >>> schedule(Draft("ppo", {"clip_range": "lin_0.2"}, {}), "clip_range")
        (0.2, True)
    """
    value = draft.take(key)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value), False
    kind, _, start = str(value).partition("_")
    try:
        initial = float(start) if kind == "lin" else None
    except ValueError:
        initial = None
    if initial is None:
        draft.refuse(key, f"{value!r}: only numbers and lin_X schedules are read")
        return None
    return initial, True
