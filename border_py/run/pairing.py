"""The pairing checks of an experiment read from YAML, where mypy cannot see the types.

mypy checks an experiment built in Python: the step processor's items must be what the buffer stores, the
buffer's batches what the agent learns from. A YAML file names its components by tag, so the same rule is
checked when the experiment is made, from the annotations of the classes the configs build (``build``'s
return type, ``process``'s items, ``push``'s item, ``batch``'s return, ``opt``'s buffer), and in the same
way as mypy, by variance: the push side consumes items, so a step processor may emit a subclass of what
the buffer stores; ``ReplayBuffer`` is covariant in its batches, so an agent may learn from a base class of
the sampled batch, or from a ``Protocol`` (`border_py.base.TransitionBatchLike`) whose every member the
sampled batch has. The reverse is refused, naming the types (and a missing member). A component whose
annotations cannot be read (a user's class without them) is not checked; neither is what this check does
not read (a ``Literal``, a ``Callable``), so it never refuses what mypy accepts.

Examples:
    >>> from border_py import TransitionBatch, TransitionBatchLike
    >>> refusal(TransitionBatch, TransitionBatchLike) is None
    True
    >>> refusal(TransitionBatchLike, TransitionBatch)
    'TransitionBatchLike is not a subclass of TransitionBatch'
"""

from __future__ import annotations

import inspect
import sys
import types
import typing
from typing import Any

import attrs
import typing_extensions


def _hints(annotated: Any) -> dict[str, Any]:
    """The resolved annotations of a function or class; ``{}`` where they cannot be read (not checked).

    A name imported for type checking only (``torch`` in `border_py.base`) is looked up among the modules
    imported already (nothing is imported here).
    """
    try:
        return typing.get_type_hints(annotated)
    except NameError:
        pass
    except Exception:  # a malformed annotation: the component is not checked
        return {}
    module = sys.modules.get(getattr(annotated, "__module__", None) or "")
    known = getattr(annotated, "__globals__", None) or (vars(module) if module else {})
    modules = {name: m for name, m in list(sys.modules.items()) if "." not in name and name not in known}
    try:
        return typing.get_type_hints(annotated, localns=modules)
    except Exception:  # a name no module gives: the component is not checked
        return {}


def _class_of(annotation: Any) -> type | None:
    """The class of an annotation: itself, or the origin of a parametrised generic (``Buffer[T]``)."""
    cls = typing.get_origin(annotation) or annotation
    return cls if isinstance(cls, type) else None


def built_class(config: object) -> type | None:
    """The class ``config.build`` returns, from its annotation; ``None`` when unknown."""
    return _class_of(_hints(getattr(type(config), "build", None)).get("return"))


def _bindings(cls: type, instance: object = None) -> dict[Any, Any]:
    """What each type variable of ``cls``'s generic bases stands for in ``cls``: ``class Mine(Base[Batch])``
    binds ``Base``'s ``B`` to ``Batch`` (an instance made as ``Generic[X]()`` binds its own too)."""
    bound: dict[Any, Any] = {}
    own = getattr(instance, "__orig_class__", None)
    layers = [(own,)] if own is not None else []
    # Most derived first, so a base's own type variables are bound before its bases are read.
    layers += [klass.__dict__.get("__orig_bases__", ()) for klass in cls.__mro__]
    for bases in layers:
        for base in bases:
            params = getattr(typing.get_origin(base), "__parameters__", ())
            for param, arg in zip(params, typing.get_args(base), strict=False):
                bound.setdefault(param, bound.get(arg, arg) if isinstance(arg, typing.TypeVar) else arg)
    return bound


def _resolve(annotation: Any, bound: dict[Any, Any]) -> Any:
    """``annotation`` with a type variable replaced by what it is bound to (its bound when unbound;
    ``None``, not checked, when it has neither)."""
    for _ in range(len(bound) + 1):  # a chain of variables (``Base[B]`` of ``Mine[T]``), never a loop
        if not isinstance(annotation, typing.TypeVar):
            return annotation
        annotation = bound.pop(annotation, None) or annotation.__bound__
    return None


def _first_arg(annotation: Any) -> Any:
    args = typing.get_args(annotation)
    return args[0] if args else None


def _name(t: Any) -> str:
    args = typing.get_args(t)
    if _is_union(t):
        return " | ".join(_name(arg) for arg in args)
    if args and typing.get_origin(t) is not None:
        return f"{_name(typing.get_origin(t))}[{', '.join(_name(arg) for arg in args)}]"
    return "None" if t is types.NoneType else getattr(t, "__name__", repr(t))


def _method_type(cls: type | None, method: str, parameter: str, inner: bool, instance: object = None) -> Any:
    """The annotation of ``parameter`` (``"return"``) of ``cls.method`` (``inner``: its first argument,
    ``list[Item]``'s ``Item``), type variables resolved."""
    if cls is None:
        return None
    annotation = _hints(getattr(cls, method, None)).get(parameter)
    return _resolve(_first_arg(annotation) if inner else annotation, _bindings(cls, instance))


def item_of_step_processor(config: object) -> Any:
    """The item type the step processor emits (``process`` returns a list of them); ``None``: unknown."""
    return _method_type(built_class(config), "process", "return", inner=True)


def buffer_types(config: object) -> tuple[Any, Any]:
    """The item type the buffer stores and the batch type it samples; ``None`` where unknown."""
    cls = built_class(config)
    return _method_type(cls, "push", "item", inner=False), _method_type(cls, "batch", "return", inner=False)


def batch_of_agent(agent: object) -> Any:
    """The batch type the agent learns from (``opt(buffer: ReplayBuffer[B])``); ``None``: unknown."""
    return _method_type(type(agent), "opt", "buffer", inner=True, instance=agent)


def _is_union(t: Any) -> bool:
    return typing.get_origin(t) in (typing.Union, types.UnionType)


def refusal(value: Any, expected: Any, depth: int = 0) -> str | None:
    """Why mypy would refuse a ``value`` where an ``expected`` is wanted; ``None`` when it would accept it
    or this check cannot tell (either unknown, ``Any``, a form it does not read).

    A class is accepted where a base class of it is wanted, and where a ``Protocol`` is wanted whose
    members it all has (`protocol_refusal`); a union where each of its members is accepted, and a value
    where one member of a wanted union accepts it. The arguments of a generic are compared by the variance
    of its type variables (`_arguments_refusal`).
    """
    if value is None or expected is None or value == expected or typing.Any in (value, expected):
        return None
    if _is_union(value):
        return next(filter(None, (refusal(v, expected, depth) for v in typing.get_args(value))), None)
    if _is_union(expected):
        accepted = any(refusal(value, e, depth) is None for e in typing.get_args(expected))
        return None if accepted else f"{_name(value)} is none of {_name(expected)}"
    value_cls, expected_cls = _class_of(value), _class_of(expected)
    if value_cls is None or expected_cls is None:
        return None
    if expected_cls in value_cls.__mro__:
        return _arguments_refusal(value, expected, depth)
    if typing_extensions.is_protocol(expected_cls):
        return protocol_refusal(value_cls, expected_cls, depth)
    return f"{_name(value)} is not a subclass of {_name(expected)}"


_INVARIANT = (list, dict, set)
"""Builtin generics whose type variables are invariant (others without declared variance: covariant)."""


def _arguments_refusal(value: Any, expected: Any, depth: int) -> str | None:
    """The arguments of two parametrisations of one generic, compared by the variance of each type variable.

    A bare generic is parametrised by ``Any``; a subclass's parameters are not mapped onto its base's: both
    pass unchecked.
    """
    origin, value_args, expected_args = (
        typing.get_origin(expected),
        typing.get_args(value),
        typing.get_args(expected),
    )
    if origin is None or typing.get_origin(value) is not origin or len(value_args) != len(expected_args):
        return None
    params = getattr(origin, "__parameters__", ())
    for i, (v, e) in enumerate(zip(value_args, expected_args, strict=True)):
        param = params[i] if i < len(params) else None
        covariant, contravariant = (getattr(param, f"__{kind}variant__", False) for kind in ("co", "contra"))
        invariant = origin in _INVARIANT if param is None else not (covariant or contravariant)
        reason = refusal(e, v, depth) if contravariant else refusal(v, e, depth)
        if reason is None and invariant:
            reason = refusal(e, v, depth)
        if reason is not None:
            return f"{_name(value)} is not {_name(expected)} ({reason})"
    return None


def _member_types(cls: type) -> dict[str, Any]:
    """The declared type of each data member of ``cls`` (annotations, attrs fields, properties' returns)."""
    declared = {name: None for klass in cls.__mro__ for name in inspect.get_annotations(klass)}
    declared.update(_hints(cls))
    if attrs.has(cls):
        declared.update({field.name: declared.get(field.name, field.type) for field in attrs.fields(cls)})
    for name in dir(cls):
        member = getattr(cls, name, None)
        if isinstance(member, property):
            declared[name] = _hints(member.fget).get("return")
    return declared


def protocol_refusal(cls: type, protocol: type, depth: int = 0) -> str | None:
    """Why ``cls`` does not satisfy ``protocol``: a member it lacks, or a data member of another type (at
    the top level; deeper, members are only looked for). ``None``: it satisfies it.

    Example:
        >>> from border_py import TransitionBatch, TransitionBatchLike
        >>> protocol_refusal(TransitionBatch, TransitionBatchLike) is None
        True
    """
    has, wants = _member_types(cls), _member_types(protocol)
    for member in sorted(typing_extensions.get_protocol_members(protocol)):
        if member not in has and not hasattr(cls, member):
            return f"{_name(cls)} lacks {member!r}, a member of {_name(protocol)}"
        if depth == 0 and member in wants:
            reason = refusal(has.get(member), wants[member], depth + 1)
            if reason is not None:
                return f"{_name(cls)}.{member} is not what {_name(protocol)} wants: {reason}"
    return None


def check_pairing(step_processor: object, replay_buffer: object) -> None:
    """Checks that the buffer stores the step processor's items (the same class, or a base class of it).

    Raises:
        ValueError: it does not (the message names both components and types, and why).
    """
    item = item_of_step_processor(step_processor)
    stored, _ = buffer_types(replay_buffer)
    reason = refusal(item, stored)
    if reason is not None:
        raise ValueError(
            f"step_processor {type(step_processor).__name__} emits {_name(item)} items, but replay_buffer "
            f"{type(replay_buffer).__name__} stores {_name(stored)}: {reason}"
        )


def check_agent_batches(agent: object, replay_buffer: object) -> None:
    """Checks that the built agent learns from the batches the buffer samples (their class, a base class,
    or a ``Protocol`` they satisfy).

    Raises:
        ValueError: it does not (the message names the agent, the buffer and both types, and why).
    """
    wanted = batch_of_agent(agent)
    _, sampled = buffer_types(replay_buffer)
    reason = refusal(sampled, wanted)
    if reason is not None:
        raise ValueError(
            f"agent {type(agent).__name__} learns from {_name(wanted)}, but replay_buffer "
            f"{type(replay_buffer).__name__} samples {_name(sampled)}: {reason}"
        )
