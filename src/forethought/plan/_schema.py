"""Walking JSON Schemas statically: what lies at a path, and which types a schema admits.

Used for typed data flow between steps. The rule is conservative: report a problem only when the
schema *definitely* lacks a field or *definitely* produces an incompatible type; anything the
schema leaves open (no `type`, `additionalProperties: true`, unresolvable `$ref`) passes.
Checking argument *values* against a schema is ``jsonschema``'s job (``input_validator``).
"""

from __future__ import annotations

import functools
import json
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


def schema_at(schema: Any, path: tuple[str | int, ...],
              root: Mapping[str, Any] | None = None) -> tuple[Any, int | None]:
    """Sub-schema at ``path``: ``(sub, None)``, ``(None, None)`` if unknown, or
    ``(None, i)`` when part ``i`` of the path definitely does not exist."""
    if root is None:
        root = schema if isinstance(schema, Mapping) else {}
    return _walk(schema, path, 0, root)


def _walk(schema: Any, path: tuple[str | int, ...], offset: int,
          root: Mapping[str, Any]) -> tuple[Any, int | None]:
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


def _walk_branches(current: Mapping[str, Any], key: str, branches: list[Any],
                   rest: tuple[str | int, ...], offset: int,
                   root: Mapping[str, Any]) -> tuple[Any, int | None]:
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


def _step(current: Mapping[str, Any], part: str | int,
          root: Mapping[str, Any]) -> tuple[Any, bool]:
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


# ------------------------------------------------------------------ argument validation

def input_validator(schema: Any, wildcard: type) -> Any:
    """A ``jsonschema`` validator for ``schema``, or None if it is not a valid JSON Schema.

    One validator checks and words every argument error. It is built once per distinct schema
    (cached by the schema's canonical JSON, so a tool set reloaded for every lint reuses it) and
    treats values of type ``wildcard`` (unresolved references) as matching any sub-schema:
    every keyword passes them, so neither a `type` nor an enclosing `anyOf` fails on a value
    that is only known at run time.
    """
    try:
        key = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError):  # not JSON data (a hand-built ToolSpec): build, don't cache
        return _build(schema, wildcard)
    return _compiled(key, wildcard)


@functools.lru_cache(maxsize=256)
def _compiled(schema_json: str, wildcard: type) -> Any:
    return _build(json.loads(schema_json), wildcard)


def _build(schema: Any, wildcard: type) -> Any:
    import jsonschema

    try:
        base = jsonschema.validators.validator_for(schema)
        base.check_schema(schema)
    except jsonschema.SchemaError:
        return None
    return _with_wildcard(base, wildcard)(schema)


@functools.lru_cache(maxsize=16)
def _with_wildcard(base: Any, wildcard: type) -> Any:
    import jsonschema

    def passing(keyword: Callable[..., Any]) -> Callable[..., Any]:
        def check(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
            return None if isinstance(instance, wildcard) else keyword(validator, value, instance,
                                                                      schema)
        return check

    return jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        base, validators={name: passing(fn) for name, fn in base.VALIDATORS.items()})
