"""Gymnasium env ids across processes: a Ray actor starts with Gymnasium's own ids only, so the ids the
driver registered (a user's ``gym.register`` with a class of theirs) are handed to each actor and
registered there."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import gymnasium as gym


def registrations_of(env_config: object) -> list[Any]:
    """The Gymnasium registration (``EnvSpec``) of the env id ``env_config.name`` when this process made
    it: another process (a Ray actor) starts with Gymnasium's own ids only, so it registers what it is
    handed (`register_missing`). Empty for ``module:EnvId`` names (Gymnasium imports the module there)
    and for configs without a name."""
    name = getattr(env_config, "name", None)
    if not isinstance(name, str) or ":" in name or name not in gym.registry:
        return []
    return [gym.registry[name]]


def register_missing(specs: Iterable[Any]) -> None:
    """Registers each ``EnvSpec`` of `registrations_of` whose id this process does not know."""
    for spec in specs:
        if spec.id not in gym.registry:
            gym.registry[spec.id] = spec  # what gym.register stores: the spec, entry point and all
