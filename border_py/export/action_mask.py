"""An exported discrete policy's legal-action mask: ``action.mask`` in ``policy.json``, read and checked, and
the greedy action restricted to the actions each observation allows.

An env gives its mask as the dict observation part ``action_mask`` (one flag per action, 1 = legal), so the
mask is a slice ``[start, stop)`` of every flat observation (`border_py.base.spaces`). A policy reads it
from the observation as given, before any normalisation: a normalised flag is no longer 0 or 1. numpy alone,
as `border_py.export.numpy_policy`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from border_py.base.spaces import legal_flags
from border_py.export.policy_files import require_version

MASK_VERSION = 4
"""The ``policy.json`` version that added ``action.mask``, written only with a mask: a version 3 reader then
refuses the file instead of choosing the actions the mask forbids."""
UNMASKED_VERSION = 3
"""The version a policy without a mask is written as, which version 3 readers read as before."""


def checked_mask(mask: object, n: int | None, obs_dim: int, conv: bool, name: str) -> tuple[int, int]:
    """``mask`` as ``(start, stop)``, checked against the policy's ``n`` actions (``None``: a box) and its
    ``obs_dim``-value observation.

    Raises:
        ValueError: one line naming ``name``: not two integers, outside the observation, not ``n`` flags
            long, on a box action or on a pixel policy (whose frames hold no mask).
    """
    if n is None:
        raise ValueError(f"{name} needs a discrete action: a box policy has no actions to mask")
    if conv:
        raise ValueError(f"{name} must be absent with convolutions: a pixel policy's frames hold no mask")
    if not (
        isinstance(mask, list | tuple) and len(mask) == 2 and all(type(i) is int for i in mask)
    ):  # type(i) is int: neither bool nor float
        raise ValueError(f"{name} must be [start, stop] (two integers), got {mask!r}")
    start, stop = mask
    if not 0 <= start < stop <= obs_dim or stop - start != n:
        raise ValueError(
            f"{name} must be [start, stop] with 0 <= start < stop <= {obs_dim} (obs_dim) and {n} flags "
            f"(the actions), got {list(mask)}"
        )
    return start, stop


def read_action_mask(spec: Mapping[str, Any], obs_dim: int, conv: bool) -> tuple[int, int] | None:
    """``policy.json``'s ``action.mask`` (absent: no mask), checked.

    Raises:
        ValueError: one line naming ``action.mask``: a file of a version before `MASK_VERSION` (whose
            writer never wrote a mask; a `PolicyFileError`), or as `checked_mask`.
    """
    action = spec.get("action")
    if not isinstance(action, Mapping) or "mask" not in action:
        return None
    require_version(spec, "action.mask", MASK_VERSION)
    n = action.get("n") if action.get("type") == "discrete" else None
    return checked_mask(action["mask"], n, obs_dim, conv, "'action.mask'")


def refuse_no_legal(has_legal: npt.ArrayLike) -> None:
    """Refuses a batch in which an observation's mask allows no action (``has_legal``: one flag per row).

    Raises:
        ValueError: one line naming the first such row.
    """
    lacking = np.flatnonzero(np.logical_not(has_legal))
    if lacking.size:
        row = int(lacking[0])
        raise ValueError(f"observation {row}'s action_mask allows no action (every flag is 0)")


def greedy_actions(
    values: npt.NDArray[np.float32], obs: npt.NDArray[np.float32], mask: tuple[int, int] | None
) -> npt.NDArray[np.int64]:
    """The argmax of each row of ``values`` (the first on a tie) over the actions its observation (a row of
    ``obs``, as given) allows, a flag above 0.5 being legal; without ``mask``, over every action.

    Raises:
        ValueError: an observation's mask allows no action.
    """
    if mask is None:
        act: npt.NDArray[np.intp] = values.argmax(axis=1)
        return act.astype(np.int64)
    legal = legal_flags(obs, slice(*mask))
    refuse_no_legal(legal.any(axis=1))
    act = np.where(legal, values, -np.inf).argmax(axis=1)
    # A legal value of -inf (float32 overflow) ties with the masked ones: take the first legal instead.
    act = np.where(legal[np.arange(len(act)), act], act, legal.argmax(axis=1))
    return act.astype(np.int64)
