"""The pairing checks of an experiment read from YAML, where mypy cannot see the types.

mypy checks an experiment built in Python: the step processor's items must be the buffer's, the buffer's
batches the agent's. A YAML file names its components by tag, so the same rule is checked when the
experiment is made, from the annotations of the classes the configs build (``build``'s return type,
``process``'s items, ``push``'s item, ``batch``'s return, ``opt``'s buffer). A component whose annotations
cannot be read (a user's class without them) is not checked.
"""

from __future__ import annotations

import typing
from typing import Any


def _hints(function: Any) -> dict[str, Any]:
    try:
        return typing.get_type_hints(function)
    except Exception:  # unresolvable or missing annotations: the component is not checked
        return {}


def built_class(config: object) -> type | None:
    """The class ``config.build`` returns, from its annotation; ``None`` when unknown."""
    built = _hints(getattr(type(config), "build", None)).get("return")
    return built if isinstance(built, type) else None


def _first_arg(annotation: Any) -> Any:
    args = typing.get_args(annotation)
    return args[0] if args else None


def _name(t: Any) -> str:
    return getattr(t, "__name__", repr(t))


def item_of_step_processor(config: object) -> Any:
    """The item type the step processor emits (``process`` returns a list of them); ``None``: unknown."""
    cls = built_class(config)
    return None if cls is None else _first_arg(_hints(getattr(cls, "process", None)).get("return"))


def buffer_types(config: object) -> tuple[Any, Any]:
    """The item type the buffer stores and the batch type it samples; ``None`` where unknown."""
    cls = built_class(config)
    if cls is None:
        return None, None
    return _hints(getattr(cls, "push", None)).get("item"), _hints(getattr(cls, "batch", None)).get("return")


def batch_of_agent(agent: object) -> Any:
    """The batch type the agent learns from (``opt(buffer: ReplayBuffer[B])``); ``None``: unknown."""
    return _first_arg(_hints(getattr(type(agent), "opt", None)).get("buffer"))


def check_pairing(step_processor: object, replay_buffer: object) -> None:
    """Checks that the step processor's items are what the buffer stores.

    Raises:
        ValueError: they differ (the message names both components and types).
    """
    item = item_of_step_processor(step_processor)
    stored, _ = buffer_types(replay_buffer)
    if item is not None and stored is not None and item is not stored:
        raise ValueError(
            f"step_processor {type(step_processor).__name__} emits {_name(item)} items, but replay_buffer "
            f"{type(replay_buffer).__name__} stores {_name(stored)}"
        )


def check_agent_batches(agent: object, replay_buffer: object) -> None:
    """Checks that the built agent learns from the batches the buffer samples.

    Raises:
        ValueError: they differ (the message names the agent, the buffer and both types).
    """
    wanted = batch_of_agent(agent)
    _, sampled = buffer_types(replay_buffer)
    if wanted is not None and sampled is not None and wanted is not sampled:
        raise ValueError(
            f"agent {type(agent).__name__} learns from {_name(wanted)}, but replay_buffer "
            f"{type(replay_buffer).__name__} samples {_name(sampled)}"
        )
