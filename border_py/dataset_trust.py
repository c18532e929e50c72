"""A dataset is data: what a Minari dataset may make Minari run.

Minari reads a dataset's observation and action spaces from its ``data/metadata.json``. A dataset whose
metadata lacks either has Minari build the env its ``env_spec`` names (``gym.make``) to ask it, and that
imports and calls whatever entry point the file gives, with the keyword arguments it gives
(``"entry_point": "os:system", "kwargs": {"command": ...}`` runs a shell command). `refuse_code` lets
Minari build such an env only when it is one Gymnasium has registered, exactly as registered (its entry
point and keyword arguments, no extra wrappers), or under `trusting_code` (the CLI's ``--trust-code``).

Examples:
    >>> with trusting_code():
    ...     trusted()
    True
    >>> trusted()
    False
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import gymnasium as gym

_TRUSTED: ContextVar[bool] = ContextVar("border_py_trust_dataset_code", default=False)

MINARI_SPEC_FIXES = ('"order_enforce": true,', '"apply_api_compatibility": false,', '"autoreset": false, ')
"""What Minari 0.5 cuts out of an ``env_spec`` before it parses it (Gymnasium 1.0 compatibility): the
spec checked is the one Minari builds."""


@contextlib.contextmanager
def trusting_code(trust: bool = True) -> Iterator[None]:
    """While active (with ``trust``), a dataset may have Minari build the env its metadata names, whatever
    code that runs: for a dataset you made or trust."""
    token = _TRUSTED.set(trust)
    try:
        yield
    finally:
        _TRUSTED.reset(token)


def trusted() -> bool:
    """Whether a `trusting_code` block is active."""
    return _TRUSTED.get()


def refuse_code(metadata_file: Path) -> None:
    """Refuses a dataset whose ``metadata_file`` would have Minari build an env from code it names, unless
    `trusting_code` is active. A file Minari cannot read is left to Minari, which fails on it before it
    builds anything.

    Raises:
        ValueError: one line naming the file, the entry point and ``--trust-code``.
    """
    if trusted():
        return
    try:
        with open(metadata_file) as file:  # as Minari reads it
            metadata = json.load(file)
    except (OSError, ValueError):
        return
    if not isinstance(metadata, dict):
        raise ValueError(f"{metadata_file}: not a JSON object (a damaged or foreign dataset)")
    if "observation_space" in metadata and "action_space" in metadata:
        return  # Minari reads both from its own table of space types: no code
    spec = _parsed_spec(metadata.get("env_spec"))
    if _as_registered(spec):
        return
    entry = spec.get("entry_point") if spec is not None else None
    raise ValueError(
        f"{metadata_file}: it has no observation_space and action_space, so Minari would build the env its "
        f"env_spec names (entry point {entry!r}, not an env Gymnasium has registered, as registered), "
        "running that code: border_py runs no code a dataset names unless you trust it: --trust-code "
        "(Python: border_py.dataset_trust.trusting_code())"
    )


def _parsed_spec(text: object) -> dict[str, Any] | None:
    """The ``env_spec`` as Minari parses it; ``None`` for one it cannot parse."""
    if not isinstance(text, str):
        return None
    for fix in MINARI_SPEC_FIXES:
        text = text.replace(fix, "")
    try:
        spec = json.loads(text)
    except ValueError:
        return None
    return spec if isinstance(spec, dict) else None


def _as_registered(spec: dict[str, Any] | None) -> bool:
    """Whether ``spec`` builds an env exactly as Gymnasium has registered it: its id registered, with that
    entry point (a name, not a function of the registry's) and those keyword arguments, no wrappers."""
    if spec is None or not isinstance(spec.get("id"), str):
        return False
    registered = gym.registry.get(spec["id"])
    return (
        registered is not None
        and isinstance(registered.entry_point, str)
        and spec.get("entry_point") == registered.entry_point
        and spec.get("kwargs") == registered.kwargs
        and spec.get("additional_wrappers") == []
    )
