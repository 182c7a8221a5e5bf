"""Walking JSON Schemas statically: what lies at a path, and which types a schema admits.

Used for typed data flow between steps. The rule is conservative: report a problem only when the
schema *definitely* lacks a field or *definitely* produces an incompatible type; anything the
schema leaves open (no `type`, `additionalProperties: true`, unresolvable `$ref`) passes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

_MAX_REF_DEPTH = 32
_BRANCH_KEYS = ("anyOf", "oneOf", "allOf")


def _resolve(schema: Any, root: Mapping[str, Any]) -> Any:
    for _ in range(_MAX_REF_DEPTH):
        if not isinstance(schema, Mapping) or "$ref" not in schema:
            return schema
        ref = schema["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#"):
            return None  # remote refs: unknown, never fetched
        target: Any = root
        for part in ref.lstrip("#").strip("/").split("/") if ref != "#" else []:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(target, Mapping) and part in target:
                target = target[part]
            else:
                return None
        schema = target
    return None


def _declared_types(schema: Mapping[str, Any]) -> set[str] | None:
    t = schema.get("type")
    if isinstance(t, str):
        return {t}
    if isinstance(t, list) and all(isinstance(x, str) for x in t):
        return set(t)
    return None


def schema_at(
    schema: Any, path: tuple[str | int, ...], root: Mapping[str, Any] | None = None
) -> tuple[Any, int | None]:
    """Sub-schema at ``path``: ``(sub, None)``, ``(None, None)`` if unknown, or
    ``(None, i)`` when part ``i`` of the path definitely does not exist."""
    if root is None:
        root = schema if isinstance(schema, Mapping) else {}
    return _walk(schema, path, 0, root)


def _walk(
    schema: Any, path: tuple[str | int, ...], offset: int, root: Mapping[str, Any]
) -> tuple[Any, int | None]:
    current = _resolve(schema, root)
    for i, part in enumerate(path):
        if not isinstance(current, Mapping):
            return None, None
        for key in _BRANCH_KEYS:
            branches = current.get(key)
            if isinstance(branches, list) and branches:
                return _walk_branches(current, key, branches, path[i:], offset + i, root)
        current, ok = _step(current, part, root)
        if not ok:
            return None, offset + i
        if current is None:
            return None, None
    return current, None


def _walk_branches(
    current: Mapping[str, Any],
    key: str,
    branches: list[Any],
    rest: tuple[str | int, ...],
    offset: int,
    root: Mapping[str, Any],
) -> tuple[Any, int | None]:
    # Sibling keywords next to anyOf (e.g. `properties`) form one more branch.
    own = {k: v for k, v in current.items() if k not in _BRANCH_KEYS}
    candidates = [*branches, own] if any(k in own for k in ("properties", "items", "type")) else branches
    failures: list[int] = []
    for branch in candidates:
        resolved = _resolve(branch, root)
        if isinstance(resolved, Mapping) and _declared_types(resolved) == {"null"}:
            failures.append(offset)
            continue
        sub, failed = _walk(resolved, rest, offset, root)
        if failed is None:
            return sub, None
        failures.append(failed)
    return None, max(failures) if failures else None


def _step(current: Mapping[str, Any], part: str | int, root: Mapping[str, Any]) -> tuple[Any, bool]:
    """One path part into a resolved schema: (sub-schema or None if unknown, exists?)."""
    types = _declared_types(current)
    if isinstance(part, int):
        prefix = current.get("prefixItems")
        if isinstance(prefix, list) and 0 <= part < len(prefix):
            return _resolve(prefix[part], root), True
        items = current.get("items")
        if isinstance(items, Mapping):
            return _resolve(items, root), True
        if types is not None and "array" not in types:
            return None, False
        return None, True
    props = current.get("properties")
    if isinstance(props, Mapping) and part in props:
        return _resolve(props[part], root), True
    additional = current.get("additionalProperties")
    if isinstance(additional, Mapping):
        return _resolve(additional, root), True
    if current.get("patternProperties") or additional is True:
        return None, True
    if types is not None and "object" not in types:
        return None, False
    if isinstance(props, Mapping) or additional is False:
        return None, False
    return None, True


def types_of(schema: Any, root: Mapping[str, Any]) -> set[str] | None:
    """The JSON types a schema admits, or None when it does not say."""
    schema = _resolve(schema, root)
    if not isinstance(schema, Mapping):
        return None
    declared = _declared_types(schema)
    if declared is not None:
        return declared
    if "const" in schema:
        return {_json_type(schema["const"])}
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return {_json_type(v) for v in schema["enum"]}
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            out: set[str] = set()
            for b in branches:
                t = types_of(b, root)
                if t is None:
                    return None
                out |= t
            return out
    return None


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def compatible(have: set[str] | None, want: set[str] | None) -> bool:
    """Could a value of one of ``have`` satisfy ``want``? Unknown on either side → yes."""
    if have is None or want is None:
        return True
    if have & want:
        return True
    return "integer" in have and "number" in want


def item_types(schema: Any, root: Mapping[str, Any]) -> set[str] | None:
    """The JSON types an array schema's items admit; None when it is no array or does not say."""
    schema = _resolve(schema, root)
    if not isinstance(schema, Mapping):
        return None
    items = schema.get("items")
    return types_of(items, root) if isinstance(items, Mapping) else None


def fits(
    have: set[str] | frozenset[str] | None,
    have_items: set[str] | frozenset[str] | None,
    want: set[str] | None,
    want_items: set[str] | None,
) -> bool:
    """``compatible``, and for an array fed to an array, its items too: a list of records is no
    list of strings (both are JSON arrays; only their items tell them apart)."""
    if not compatible(set(have) if have is not None else None, want):
        return False
    if have is not None and have <= {"array"} and want is not None and "array" in want:
        return compatible(set(have_items) if have_items is not None else None, want_items)
    return True


# ------------------------------------------------------------------ fast validity pre-check

_ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "format",
        "$schema",
        "$id",
        "$comment",
        "$defs",
        "definitions",
        "deprecated",
        "readOnly",
        "writeOnly",
    }
)
_TYPE_CHECKS: dict[str, Any] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


class Unsupported(Exception):
    """The schema uses a keyword the fast path does not implement: use the full validator."""


Check = Callable[[Any], bool]


def compile_quick(schema: Any, root: Mapping[str, Any], wildcard: type) -> Check:
    """Compile the common subset of JSON Schema into a predicate; raise Unsupported otherwise.

    Lint validates thousands of steps against a handful of tool schemas; the general validator
    costs tens of µs per call, a compiled predicate about one. The predicate only answers "valid?";
    when it says no (or the schema is unsupported) the full validator runs and words the errors.
    Values of type ``wildcard`` (unresolved references) are accepted anywhere.
    """
    return _compile(schema, root, wildcard, 0)


def _compile(schema: Any, root: Mapping[str, Any], wildcard: type, depth: int) -> Check:
    if depth > _MAX_REF_DEPTH:
        raise Unsupported
    if schema is True or schema == {}:
        return _always
    if schema is False:
        return lambda v: isinstance(v, wildcard)
    if isinstance(schema, Mapping) and "$ref" in schema:
        if len(schema) > 1:
            raise Unsupported
        schema = _resolve(schema, root)
    if not isinstance(schema, Mapping):
        raise Unsupported
    compiled = [
        _compile_keyword(key, arg, schema, root, wildcard, depth)
        for key, arg in schema.items()
        if key not in _ANNOTATIONS
    ]
    # Validation runs the predicate once per step: keywords that accept anything (``properties:
    # {}``) are dropped, and the rest run in a plain loop rather than ``all()`` of a generator.
    checks = tuple(c for c in compiled if c is not _always)
    if not checks:
        return _always

    def check(value: Any) -> bool:
        if isinstance(value, wildcard):
            return True
        for c in checks:  # noqa: SIM110 - a plain loop: ``all()`` of a generator costs more here
            if not c(value):
                return False
        return True

    return check


def _always(value: Any) -> bool:
    return True


def _compile_keyword(
    key: str, arg: Any, schema: Mapping[str, Any], root: Mapping[str, Any], wildcard: type, depth: int
) -> Check:
    if key == "type":
        names = [arg] if isinstance(arg, str) else arg
        if not isinstance(names, list) or any(n not in _TYPE_CHECKS for n in names):
            raise Unsupported
        preds: list[Check] = [_TYPE_CHECKS[n] for n in names]
        if len(preds) == 1:
            single: Check = preds[0]
            return single
        return lambda v: any(p(v) for p in preds)
    if key == "properties":
        props = {name: _compile(sub, root, wildcard, depth + 1) for name, sub in arg.items()}
        if not props:
            return _always  # no property to check: any value passes this keyword
        return lambda v: (
            not isinstance(v, dict) or all(name not in v or c(v[name]) for name, c in props.items())
        )
    if key == "required":
        required = list(arg)
        return lambda v: not isinstance(v, dict) or all(r in v for r in required)
    if key == "additionalProperties":
        if "patternProperties" in schema:
            raise Unsupported
        known = frozenset(schema.get("properties") or {})
        extra = _compile(arg, root, wildcard, depth + 1)
        return lambda v: not isinstance(v, dict) or all(k in known or extra(x) for k, x in v.items())
    if key == "items":
        if not isinstance(arg, (Mapping, bool)) or "prefixItems" in schema:
            raise Unsupported
        item = _compile(arg, root, wildcard, depth + 1)
        return lambda v: not isinstance(v, list) or all(map(item, v))
    if key == "anyOf":
        options = [_compile(sub, root, wildcard, depth + 1) for sub in arg]
        return lambda v: any(o(v) for o in options)
    raise Unsupported  # enum/const/pattern/bounds…: the full validator decides
