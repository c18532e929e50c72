"""A reader of RL Zoo's Python-literal strings, which evaluates nothing.

RL Zoo writes ``policy_kwargs`` (and a partial ``normalize``) as Python source that it passes to ``eval``:
``"dict(log_std_init=-2, ortho_init=False, activation_fn=nn.ReLU, net_arch=dict(pi=[256], vf=[256]))"``.
Here the text is parsed with `ast.parse` and only literal nodes are walked: constants, a minus sign on a
number, lists, tuples, ``{...}`` and ``dict(key=value, ...)``, and dotted names (``nn.ReLU``), which are
kept as their text (`Symbol`) and never looked up. Any other node (a call of anything but ``dict``, a
subscript, a lambda, an operator) is refused, naming it.
"""

from __future__ import annotations

import ast
from typing import Any

import attrs


@attrs.frozen
class Symbol:
    """A dotted name in the text (``nn.ReLU``), kept as text: never imported or looked up."""

    name: str
    """The name as written."""


class LiteralRefusedError(ValueError):
    """The text is not a literal this reader accepts (the message names the node)."""


def parse_literal(text: str) -> Any:
    """The value of the Python literal ``text``: ints, floats, strings, booleans and ``None``; lists and
    tuples (as lists); dicts from ``{...}`` or ``dict(k=v, ...)``; dotted names as `Symbol`.

    Raises:
        LiteralRefusedError: a syntax error, or a node that is not one of the above.

    Examples:
        >>> parse_literal("dict(net_arch=[64, 64], log_std_init=-2, activation_fn=nn.ReLU)")
        {'net_arch': [64, 64], 'log_std_init': -2, 'activation_fn': Symbol(name='nn.ReLU')}
        >>> try:
        ...     parse_literal("__import__('os').system('x')")
        ... except LiteralRefusedError as exc:
        ...     print(str(exc).split(";")[0])
        "__import__('os').system('x')": a call of something other than dict()
    """
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise LiteralRefusedError(f"{text!r} is not a Python expression: {exc.msg}") from exc
    try:
        return _value(tree.body)
    except RecursionError as exc:  # a pathologically nested text: refused like any other
        raise LiteralRefusedError(f"{text[:60]!r}...: nested too deeply") from exc


def _value(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant) and _plain(node.value):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = node.operand.value if isinstance(node.operand, ast.Constant) else None
        if isinstance(value, int | float) and not isinstance(value, bool):
            return -value
    if isinstance(node, ast.List | ast.Tuple):
        return [_value(item) for item in node.elts]
    if isinstance(node, ast.Dict):
        return _dict(node)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        return _dict_call(node)
    if isinstance(node, ast.Name | ast.Attribute):
        return Symbol(_dotted(node))
    raise LiteralRefusedError(_refusal(node))


def _plain(value: object) -> bool:
    return value is None or isinstance(value, bool | int | float | str)


def _dict(node: ast.Dict) -> dict[Any, Any]:
    result: dict[Any, Any] = {}
    for key, value in zip(node.keys, node.values, strict=True):
        if key is None:  # ``{**other}``
            raise LiteralRefusedError(f"{ast.unparse(node)!r}: '**' unpacking is not a literal")
        name = _value(key)
        if not isinstance(name, str | int):
            raise LiteralRefusedError(f"{ast.unparse(key)!r}: a key must be a string or an integer")
        result[name] = _value(value)
    return result


def _dict_call(node: ast.Call) -> dict[str, Any]:
    if node.args or any(k.arg is None for k in node.keywords):
        raise LiteralRefusedError(f"{ast.unparse(node)!r}: dict(...) is read with keyword arguments only")
    return {str(k.arg): _value(k.value) for k in node.keywords}


def _dotted(node: ast.expr) -> str:
    """``nn.ReLU`` from its Attribute/Name chain; anything else in the chain is refused."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    raise LiteralRefusedError(_refusal(node))


def _refusal(node: ast.expr) -> str:
    kind = {
        ast.Call: "a call of something other than dict()",
        ast.Lambda: "a lambda",
        ast.Subscript: "a subscript",
        ast.BinOp: "an operator",
    }.get(type(node), f"a {type(node).__name__} node")
    return f"{ast.unparse(node)!r}: {kind}; only literals, dict(...) and dotted names are read"
