"""A small, safe expression language for step checks (``check.expr``) and the ``calculate`` tool.

Plans come from models and from files other people wrote, so a check expression is untrusted input.
We parse it with ``ast`` and walk a whitelist of node types; there is no ``eval``, no attribute
access on Python objects (``output.count`` is a *dict key* lookup, never ``getattr``), no calls
except a fixed table of pure functions, and every operation that could allocate without bound
(``**``, repetition of strings/lists, huge inputs) is capped. Anything outside the language is an
``ExprError`` naming what was not allowed — never a ``TypeError`` leaking out of the walk.
"""

from __future__ import annotations

import ast
import functools
import math
import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any

MAX_EXPRESSION_CHARS = 4000
MAX_NODES = 1000
MAX_DEPTH = 50
MAX_POW_BITS = 100_000  # 2**100000 is ~30k digits: fine; 9**9**9 is not.
MAX_REPEAT_LEN = 100_000  # result length cap for `"a" * n` and `[0] * n`
MAX_SEQUENCE_LEN = 1_000_000  # result length cap for `a + b`
MAX_STR_ITEMS = 100_000  # `str(container)` walks at most this many items


class ExprError(ValueError):
    """The expression is malformed, uses something outside the language, or failed to evaluate."""


def _length_checked(value: Any) -> Any:
    if isinstance(value, (str, list, tuple)) and len(value) > MAX_SEQUENCE_LEN:
        raise ExprError(f"result too long ({len(value)} > {MAX_SEQUENCE_LEN} items)")
    return value


def _mul(a: Any, b: Any) -> Any:
    # Check the size before multiplying: `"x" * 10**12` must fail fast, not allocate.
    for seq, n in ((a, b), (b, a)):
        if isinstance(seq, (str, list, tuple)) and isinstance(n, int) and not isinstance(n, bool):
            if len(seq) * max(n, 0) > MAX_REPEAT_LEN:
                raise ExprError(f"repetition too long (limit {MAX_REPEAT_LEN} items)")
            # `[[0]*k]*n` would alias one big list n times; str() of it would explode.
            if not isinstance(seq, str) and any(isinstance(x, (list, tuple, dict)) for x in seq):
                raise ExprError("only lists of scalars may be repeated with `*`")
    return operator.mul(a, b)


def _pow(base: Any, exp: Any) -> Any:
    if isinstance(base, int) and isinstance(exp, int) and exp > 0:
        bits = max(abs(base).bit_length(), 1) * exp
        if bits > MAX_POW_BITS:
            raise ExprError(f"exponentiation result too large (about {bits} bits; limit {MAX_POW_BITS})")
    if isinstance(exp, (int, float)) and abs(exp) > 10_000 and not isinstance(base, float):
        raise ExprError("exponent too large (limit 10000)")
    result = operator.pow(base, exp)
    if isinstance(result, complex):
        raise ExprError("complex results are not supported")
    return result


def _add(a: Any, b: Any) -> Any:
    return _length_checked(operator.add(a, b))


_BINOPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: _add,
    ast.Sub: operator.sub,
    ast.Mult: _mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: _pow,
}

_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: operator.not_,
}

_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
    ast.Is: lambda a, b: a is b,  # only meaningful with None/True/False, which are singletons
    ast.IsNot: lambda a, b: a is not b,
}


def _num(value: Any, fname: str) -> Any:
    if isinstance(value, str) and len(value) > 1000:
        raise ExprError(f"{fname}(): string argument too long")
    return value


def _round(value: Any, ndigits: Any = None) -> Any:
    if ndigits is not None and (not isinstance(ndigits, int) or abs(ndigits) > 100):
        raise ExprError("round(): ndigits must be an integer between -100 and 100")
    return round(value) if ndigits is None else round(value, ndigits)


def _count_items(value: Any, budget: int) -> int:
    """Items reachable from ``value`` (shared references counted each time), stopping at ``budget``."""
    seen = 0
    stack = [value]
    while stack:
        item = stack.pop()
        seen += 1
        if seen > budget:
            return seen
        if isinstance(item, Mapping):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return seen


def _str(value: Any) -> str:
    if isinstance(value, (Mapping, list, tuple)):
        import json

        if _count_items(value, MAX_STR_ITEMS) > MAX_STR_ITEMS:
            raise ExprError(f"str(): value too large (more than {MAX_STR_ITEMS} items)")
        return json.dumps(value, default=str, ensure_ascii=False)
    return str(value)


def _sum(values: Any, start: Any = 0) -> Any:
    items = list(values) if isinstance(values, (list, tuple)) else None
    if items is None or not all(isinstance(v, (int, float)) for v in [*items, start]):
        raise ExprError("sum() takes a list of numbers")
    return sum(items, start)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "len": len,
    "abs": abs,
    "min": min,
    "max": max,
    "round": _round,
    "sum": _sum,
    "int": lambda v=0: int(_num(v, "int")),
    "float": lambda v=0.0: float(_num(v, "float")),
    "str": _str,
    "bool": bool,
    "any": any,
    "all": all,
    "sqrt": math.sqrt,
    "lower": lambda s: _need_str(s, "lower").lower(),
    "upper": lambda s: _need_str(s, "upper").upper(),
}

# Methods callable on strings (`name.lower()`), all pure and non-allocating beyond the input size.
_STR_METHODS = frozenset({"lower", "upper", "strip", "startswith", "endswith", "split"})


def _need_str(value: Any, fname: str) -> str:
    if not isinstance(value, str):
        raise ExprError(f"{fname}() needs a string, got {type(value).__name__}")
    return value


class _Evaluator:
    def __init__(self, names: Mapping[str, Any]) -> None:
        self.names = names

    def eval(self, node: ast.AST) -> Any:
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            raise ExprError(f"{_describe(node)} is not allowed in expressions")
        return method(node)

    def _Expression(self, node: ast.Expression) -> Any:
        return self.eval(node.body)

    def _Constant(self, node: ast.Constant) -> Any:
        if node.value is None or isinstance(node.value, (bool, int, float, str)):
            return node.value
        raise ExprError(f"constant of type {type(node.value).__name__} is not allowed")

    def _Name(self, node: ast.Name) -> Any:
        if node.id in self.names:
            return self.names[node.id]
        available = ", ".join(sorted(self.names)) or "none"
        raise ExprError(f"unknown name {node.id!r} (available: {available})")

    def _List(self, node: ast.List) -> list[Any]:
        return [self.eval(e) for e in node.elts]

    def _Tuple(self, node: ast.Tuple) -> tuple[Any, ...]:
        return tuple(self.eval(e) for e in node.elts)

    def _Dict(self, node: ast.Dict) -> dict[Any, Any]:
        if any(k is None for k in node.keys):
            raise ExprError("`**` unpacking is not allowed in expressions")
        return {self.eval(k): self.eval(v) for k, v in zip(node.keys, node.values, strict=True)}  # type: ignore[arg-type]

    def _BinOp(self, node: ast.BinOp) -> Any:
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise ExprError(f"operator {type(node.op).__name__} is not allowed")
        return op(self.eval(node.left), self.eval(node.right))

    def _UnaryOp(self, node: ast.UnaryOp) -> Any:
        op = _UNARY.get(type(node.op))
        if op is None:
            raise ExprError(f"operator {type(node.op).__name__} is not allowed")
        return op(self.eval(node.operand))

    def _BoolOp(self, node: ast.BoolOp) -> Any:
        # Short-circuit like Python: `x and x.count > 0` must not evaluate the right side for {}.
        value: Any = None
        for sub in node.values:
            value = self.eval(sub)
            if isinstance(node.op, ast.And) and not value:
                return value
            if isinstance(node.op, ast.Or) and value:
                return value
        return value

    def _Compare(self, node: ast.Compare) -> bool:
        left = self.eval(node.left)
        for op_node, right_node in zip(node.ops, node.comparators, strict=True):
            right = self.eval(right_node)
            if not _COMPARE[type(op_node)](left, right):
                return False
            left = right
        return True

    def _IfExp(self, node: ast.IfExp) -> Any:
        return self.eval(node.body) if self.eval(node.test) else self.eval(node.orelse)

    def _Subscript(self, node: ast.Subscript) -> Any:
        container = self.eval(node.value)
        if isinstance(node.slice, ast.Slice):
            parts = [
                None if p is None else self.eval(p)
                for p in (node.slice.lower, node.slice.upper, node.slice.step)
            ]
            if not isinstance(container, (str, list, tuple)):
                raise ExprError(f"cannot slice a {type(container).__name__}")
            return container[slice(*parts)]
        key = self.eval(node.slice)
        return _index(container, key)

    def _Attribute(self, node: ast.Attribute) -> Any:
        # Dotted access is sugar for a dict key; it never reaches Python attributes.
        container = self.eval(node.value)
        if isinstance(container, Mapping):
            if node.attr in container:
                return container[node.attr]
            raise ExprError(f"no field {node.attr!r} (fields: {', '.join(map(str, container)) or 'none'})")
        raise ExprError(f"cannot read field {node.attr!r} of a {type(container).__name__}")

    def _Call(self, node: ast.Call) -> Any:
        if node.keywords:
            raise ExprError("keyword arguments are not allowed in expressions")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise ExprError("`*` unpacking is not allowed in expressions")
        if isinstance(node.func, ast.Attribute):
            target = self.eval(node.func.value)
            if isinstance(target, str) and node.func.attr in _STR_METHODS:
                args = [self.eval(a) for a in node.args]
                if not all(isinstance(a, (str, tuple)) or a is None for a in args):
                    raise ExprError(f"{node.func.attr}() takes string arguments")
                return getattr(target, node.func.attr)(*args)
            raise ExprError(
                f"method {node.func.attr!r} is not allowed (string methods: "
                f"{', '.join(sorted(_STR_METHODS))})"
            )
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            name = node.func.id if isinstance(node.func, ast.Name) else _describe(node.func)
            raise ExprError(f"function {name!r} is not allowed (allowed: {', '.join(sorted(FUNCTIONS))})")
        return FUNCTIONS[node.func.id](*[self.eval(a) for a in node.args])


def _index(container: Any, key: Any) -> Any:
    if isinstance(container, Mapping):
        if key in container:
            return container[key]
        raise ExprError(f"no key {key!r}")
    if isinstance(container, (str, Sequence)):
        if not isinstance(key, int) or isinstance(key, bool):
            raise ExprError(f"index must be an integer, got {type(key).__name__}")
        try:
            return container[key]
        except IndexError:
            raise ExprError(f"index {key} out of range (length {len(container)})") from None
    raise ExprError(f"cannot index a {type(container).__name__}")


def _describe(node: ast.AST) -> str:
    return {
        "Lambda": "lambda",
        "ListComp": "a comprehension",
        "GeneratorExp": "a generator",
        "DictComp": "a comprehension",
        "SetComp": "a comprehension",
        "NamedExpr": "`:=`",
        "Await": "await",
        "JoinedStr": "an f-string",
        "Starred": "`*` unpacking",
        "Set": "a set literal",
    }.get(type(node).__name__, type(node).__name__)


def _check_shape(tree: ast.AST) -> None:
    count = 0
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise ExprError(f"expression too large (more than {MAX_NODES} nodes)")
        if depth > MAX_DEPTH:
            raise ExprError(f"expression nested too deeply (limit {MAX_DEPTH})")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def parse_expression(expression: str) -> ast.Expression:
    """Parse and shape-check an expression without evaluating it (for static plan validation)."""
    if not isinstance(expression, str):
        raise ExprError(f"expression must be a string, got {type(expression).__name__}")
    return _parse_cached(expression)


@functools.lru_cache(maxsize=512)
def _parse_cached(expression: str) -> ast.Expression:
    # A check is evaluated once per step attempt, often with the same text; the walk never mutates
    # the tree, so sharing it is safe. Errors are not cached (lru_cache does not store exceptions).
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ExprError(f"expression too long ({len(expression)} > {MAX_EXPRESSION_CHARS} characters)")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExprError(f"syntax error at column {exc.offset or 0}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:  # NUL bytes, surrogates, deep nesting
        raise ExprError(f"cannot parse expression: {type(exc).__name__}") from None
    _check_shape(tree)
    return tree


def safe_eval(expression: str, names: Mapping[str, Any] | None = None) -> Any:
    """Evaluate ``expression`` with ``names`` as the only variables; raise ``ExprError`` on any failure."""
    tree = parse_expression(expression)
    try:
        return _Evaluator(names or {}).eval(tree)
    except ExprError:
        raise
    except (
        ArithmeticError,
        ValueError,
        TypeError,
        KeyError,
        IndexError,
        RecursionError,
        MemoryError,
        AttributeError,
    ) as exc:
        raise ExprError(f"{type(exc).__name__}: {exc}") from None
