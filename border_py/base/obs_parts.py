"""``ObsParts``: a dict observation's named parts, laid out side by side in one flat float32 vector.

An env whose observations are a dict (Gymnasium's ``Dict`` space: a goal-conditioned robot's
``observation``, ``achieved_goal`` and ``desired_goal``) hands its agent one flat vector: the parts, each
flattened, in the space's key order. Every buffer, step processor and MLP agent then works on it as on any
flat observation, and each part is one slice of every stored row (no per-part copy, no dict per step on
the sampling path). The layout goes with the agent's exports, so a loaded policy takes the dict again.
Concatenating is what Stable-Baselines3's ``CombinedExtractor`` does with vector parts.

Examples:
    >>> parts = ObsParts.of({"pos": (2,), "goal": (2,)})
    >>> parts.flatten({"pos": [0.0, 1.0], "goal": [2.0, 3.0]})
    array([0., 1., 2., 3.], dtype=float32)
    >>> parts.part(np.arange(4, dtype=np.float32), "goal")
    array([2., 3.], dtype=float32)
    >>> parts.flatten({"pos": [0.0, 1.0]})
    Traceback (most recent call last):
    ...
    ValueError: the dict observation has no key 'goal' (it has 'pos'; the space declares 'pos', 'goal')
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]


def _shape(value: Iterable[int]) -> tuple[int, ...]:
    return tuple(value)


def _parts(value: Iterable[ObsPart]) -> tuple[ObsPart, ...]:
    return tuple(value)


@attrs.frozen
class ObsPart:
    """One named part of a dict observation: its key, its shape (``()`` for a scalar), and whether it is
    an image (a 3-d uint8 ``Box`` of 0-255: its pixel values lie in the flat vector as they are, and a
    multi-input encoder runs a CNN on it).

    Examples:
        >>> ObsPart("camera", (36, 36, 3), image=True).channels_first_shape
        (3, 36, 36)
    """

    key: str
    shape: tuple[int, ...] = attrs.field(converter=_shape)
    image: bool = False

    @property
    def size(self) -> int:
        """The number of components the part takes in the flat vector."""
        return math.prod(self.shape)

    @property
    def channels_first(self) -> bool:
        """Whether an image's shape is ``(channels, height, width)``: its smallest dimension comes first
        (Stable-Baselines3's rule); otherwise it is ``(height, width, channels)``, as Gymnasium's envs
        render."""
        return self.image and min(self.shape) == self.shape[0] and self.shape[0] < self.shape[-1]

    @property
    def channels_first_shape(self) -> tuple[int, ...]:
        """An image's shape as a CNN takes it, ``(channels, height, width)``."""
        if not self.image:
            raise ValueError(f"dict observation part {self.key!r} is not an image")
        if self.channels_first:
            return self.shape
        height, width, channels = self.shape
        return (channels, height, width)


@attrs.frozen
class ObsParts:
    """The parts of a dict observation, in the order their slices follow each other in the flat vector.

    Raises:
        ValueError: no parts, a key that is not a non-empty string or is repeated, or a size of 0.
    """

    parts: tuple[ObsPart, ...] = attrs.field(converter=_parts)
    _slices: dict[str, tuple[slice, tuple[int, ...]]] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        keys = [p.key for p in self.parts]
        if not keys:
            raise ValueError("a dict observation needs at least one part")
        if not all(isinstance(k, str) and k for k in keys) or len(set(keys)) != len(keys):
            raise ValueError(f"a dict observation's keys must be distinct non-empty strings, got {keys}")
        for p in self.parts:
            if not all(isinstance(n, int) and n > 0 for n in p.shape):
                raise ValueError(f"dict observation part {p.key!r}: shape must be sizes > 0, got {p.shape}")
            if p.image and len(p.shape) != 3:
                raise ValueError(f"dict observation part {p.key!r}: an image is 3-d, got shape {p.shape}")
        start, slices = 0, {}
        for p in self.parts:
            slices[p.key] = (slice(start, start + p.size), p.shape)
            start += p.size
        object.__setattr__(self, "_slices", slices)

    @classmethod
    def of(cls, shapes: Mapping[str, Iterable[int]], images: Iterable[str] = ()) -> ObsParts:
        """The parts of ``{key: shape}``, in the mapping's order; the keys in ``images`` are images."""
        marked = set(images)
        return cls(tuple(ObsPart(k, tuple(s), k in marked) for k, s in shapes.items()))

    @property
    def images(self) -> tuple[ObsPart, ...]:
        """The image parts, in order."""
        return tuple(p for p in self.parts if p.image)

    @property
    def keys(self) -> tuple[str, ...]:
        """The parts' keys, in order."""
        return tuple(p.key for p in self.parts)

    @property
    def dim(self) -> int:
        """The length of the flat vector."""
        return sum(p.size for p in self.parts)

    def span(self, key: str) -> slice:
        """Where part ``key`` lies in the flat vector.

        Raises:
            KeyError: no such part (the message lists the parts).
        """
        return self._where(key)[0]

    def _where(self, key: str) -> tuple[slice, tuple[int, ...]]:
        try:
            return self._slices[key]
        except KeyError:
            raise KeyError(f"no dict observation part {key!r}; the parts are {list(self.keys)}") from None

    def part(self, flat: npt.NDArray[Any], key: str) -> npt.NDArray[Any]:
        """Part ``key`` of flat observations ``(..., dim)``, in its own shape (a view, not a copy).

        Raises:
            KeyError: no such part.
        """
        where, shape = self._where(key)
        return flat[..., where].reshape(*flat.shape[:-1], *shape)

    def flatten(self, obs: Any, lead: tuple[int, ...] = ()) -> F32:
        """The dict ``obs`` as one float32 vector (``lead``: leading batch dimensions every part has, a
        vector env's ``(n,)``).

        Raises:
            ValueError: ``obs`` is not a mapping, lacks a key or has one the space does not declare, or a
                part is not numeric or not of its shape (the message names the key).
        """
        if not isinstance(obs, Mapping):
            raise ValueError(
                f"a dict observation must be a mapping of {list(self.keys)}, got {type(obs).__name__}"
            )
        if len(obs) != len(self.parts) or any(k not in obs for k in self.keys):
            self._refuse_keys(obs)
        flat = [self._checked(p, obs[p.key], lead).reshape(*lead, p.size) for p in self.parts]
        out = np.concatenate(flat, axis=-1)
        return out if out.dtype == np.float32 else out.astype(np.float32)

    def flatten_one_or_batch(self, obs: Any) -> F32:
        """The dict ``obs`` as ``(dim,)`` for one observation or ``(n, dim)`` for a batch (each part with one
        leading dimension): the first part's rank tells which, and `flatten` then holds every part to it.

        Raises:
            ValueError: as `flatten`.
        """
        first = self.parts[0]
        shape = np.shape(obs.get(first.key, ())) if isinstance(obs, Mapping) else ()
        return self.flatten(obs, shape[:1] if len(shape) == len(first.shape) + 1 else ())

    def _refuse_keys(self, obs: Mapping[Any, Any]) -> None:
        have, declared = ", ".join(map(repr, obs)), ", ".join(map(repr, self.keys))
        missing = [k for k in self.keys if k not in obs]
        if missing:
            raise ValueError(
                f"the dict observation has no key {missing[0]!r} (it has {have}; the space declares "
                f"{declared})"
            )
        extra = next(k for k in obs if k not in self._slices)
        raise ValueError(f"the dict observation has a key {extra!r} the space does not declare ({declared})")

    @staticmethod
    def _checked(part: ObsPart, value: Any, lead: tuple[int, ...]) -> npt.NDArray[Any]:
        x = np.asarray(value)
        if x.dtype.kind not in "biuf":
            raise ValueError(f"dict observation part {part.key!r} is not numeric (dtype {x.dtype})")
        if x.shape != (*lead, *part.shape):
            raise ValueError(
                f"dict observation part {part.key!r} has shape {x.shape}, but the space declares "
                f"{(*lead, *part.shape)}"
            )
        return x
