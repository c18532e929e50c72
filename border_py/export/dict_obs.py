"""An exported policy's dict observation: ``obs_parts`` in ``policy.json`` (and in an ONNX policy's
metadata), read and written, and a dict observation turned into the flat vector the policy computes on.

The agent learned on the flat vector of the parts laid side by side (`border_py.base.obs_parts`); the
export records that layout so a loaded policy takes the dict again. numpy alone, as
`border_py.export.numpy_policy`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

from border_py.base.obs_parts import ObsParts

Obs: TypeAlias = npt.ArrayLike | Mapping[str, Any]
"""What a loaded policy acts on: a flat array, or a dict observation of its ``obs_parts``."""
ONNX_META = "border_py.obs_parts"
"""The ONNX metadata key marking a dict policy: one part keyed ``obs`` reads otherwise as an array
policy's input."""


def obs_parts_field(parts: ObsParts) -> list[dict[str, Any]]:
    """``obs_parts`` as ``policy.json`` writes it: ``[{"key": ..., "shape": [...]}, ...]`` in order, an
    image part with ``"image": true`` (the other parts without it: their entries are as before)."""
    return [
        {"key": p.key, "shape": list(p.shape), **({"image": True} if p.image else {})} for p in parts.parts
    ]


def read_obs_parts(field: object, obs_dim: int, conv: bool) -> ObsParts | None:
    """``policy.json``'s ``obs_parts`` (absent or ``null``: an array observation), checked; a part with
    ``"image": true`` is an image (3-d).

    Raises:
        ValueError: a malformed field, parts that do not lay out ``obs_dim`` values, or parts on a pixel
            policy; the message names ``obs_parts``.
    """
    if field is None:
        return None
    if conv:
        raise ValueError("'obs_parts' must be absent with network.conv (a pixel policy takes frames)")
    if not isinstance(field, list) or not all(
        isinstance(p, dict)
        and isinstance(p.get("key"), str)
        and isinstance(p.get("shape"), list)
        and all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in p["shape"])
        and isinstance(p.get("image", False), bool)
        for p in field
    ):
        raise ValueError(
            "'obs_parts' must be a list of {key: string, shape: [positive integers], image: optional bool}"
        )
    seen: set[str] = set()
    for p in field:  # before the parts become a mapping, which would keep one of two
        if p["key"] in seen:
            raise ValueError(f"'obs_parts' holds key {p['key']!r} twice")
        seen.add(p["key"])
    try:
        images = [p["key"] for p in field if p.get("image", False)]
        parts = ObsParts.of({p["key"]: p["shape"] for p in field}, images=images)
    except ValueError as exc:
        raise ValueError(f"'obs_parts': {exc}") from None
    if parts.dim != obs_dim:
        raise ValueError(f"'obs_parts' lay out {parts.dim} values, obs_dim is {obs_dim}")
    return parts


def flat_obs(parts: ObsParts | None, obs: Mapping[str, Any]) -> npt.NDArray[np.float32]:
    """The dict observation ``obs`` (one: each part of its shape; a batch: each ``(n, *shape)``) as the
    flat float32 ``(dim,)`` or ``(n, dim)`` the policy computes on.

    Raises:
        ValueError: the policy takes no dict, or ``obs`` lacks a key, has an undeclared one, or a part of
            another shape (the message names the key).
    """
    if parts is None:
        raise ValueError("this policy was exported without obs_parts: it takes an array, not a mapping")
    return parts.flatten_one_or_batch(obs)
