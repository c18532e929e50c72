"""Lazy package faces: a package names its public names and the modules that define them, and each module is
imported on the first use of one of its names (so ``import border_py.run`` imports no torch until a name
that needs it is used)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_face"]


def lazy_face(
    package: str, exports: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's module ``__getattr__`` and ``__dir__`` over ``exports`` (each public name and the module
    that defines it); a name once imported is kept in ``namespace`` (the package's ``globals()``).

    Examples:
        >>> getattr_, dir_ = lazy_face("pkg", {"sqrt": "math"}, {})
        >>> getattr_("sqrt")(4.0), "sqrt" in dir_()
        (2.0, True)
    """

    def __getattr__(name: str) -> Any:  # noqa: N807 (the module hook's own name)
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:  # noqa: N807
        return sorted({*namespace, *exports})

    return __getattr__, __dir__
