"""What each provider accepts as an output schema: small checkers of the documented restrictions.

Each function returns the problems it finds (``"#/path: what is wrong"``), empty when the schema
is acceptable. They encode, as of November 2026:

- OpenAI Structured Outputs ("Supported schemas"): the root is an object, not ``anyOf``. With
  ``strict: true`` also: every object sets ``additionalProperties: false`` and lists every
  property in ``required``; only the supported keywords (strings: pattern, format; numbers:
  multipleOf, minimum, maximum, exclusive bounds; arrays: items, minItems, maxItems; anyOf, enum,
  const, $ref/$defs, titles and descriptions); every schema has a type; at most 10 levels of
  object nesting, 5000 properties and 1000 enum values.
- Anthropic tool use: ``input_schema`` is a JSON Schema whose root is ``type: object``, and its
  property keys match ``^[a-zA-Z0-9_.-]{1,64}$`` (its HTTP 400 "Property keys should match
  pattern"; checked here at every depth, the conservative reading: the compact plan shape makes
  tool names property keys).
- llama.cpp's server (``common/json-schema.cpp``, the subset its chat parser and grammar are built
  from): every subschema is a JSON object (no ``true``/``false`` schemas except as
  ``additionalProperties``); ``$ref`` only into the same document; non-empty ``anyOf``/``oneOf``/
  ``enum``; known type names; counts are non-negative integers; ``pattern``/``format`` strings.
  An array given ``prefixItems`` (or an ``items`` list) is read as a tuple of exactly that
  length, ignoring ``minItems``/``maxItems`` — accepted, but a different language, so it is
  reported too. (Number bounds are not enforced by it either; that only loosens a constraint
  the validator still checks, and is not reported.)

Every schema must also be a valid JSON Schema (draft 2020-12) for any of them.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

import jsonschema

_OPENAI_KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "enum",
        "const",
        "$ref",
        "$defs",
        "definitions",
        "title",
        "description",
        "pattern",
        "format",
        "multipleOf",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minItems",
        "maxItems",
    }
)
_LLAMA_TYPES = frozenset({"object", "array", "string", "integer", "number", "boolean", "null"})


@functools.lru_cache(maxsize=512)
def _metaschema_problem(schema_json: str) -> str | None:
    # Checking against the metaschema is slow (~0.3 s for a plan schema), and the same schema
    # is checked for every provider: once per distinct schema is enough.
    try:
        jsonschema.Draft202012Validator.check_schema(json.loads(schema_json))
    except jsonschema.SchemaError as exc:
        return f"#: not a valid JSON Schema: {exc.message}"
    return None


def _valid(schema: Mapping[str, Any]) -> list[str]:
    """Valid JSON Schema whose every ``$ref`` points into the document (all providers need both)."""
    problem = _metaschema_problem(json.dumps(schema, sort_keys=True))
    if problem is not None:
        return [problem]
    return [
        f"{path}: $ref {node['$ref']!r} must point into this document"
        for path, node in _walk(schema)
        if isinstance(node, Mapping)
        and "$ref" in node
        and not (
            isinstance(node["$ref"], str)
            and node["$ref"].startswith("#/")
            and _resolves(schema, node["$ref"])
        )
    ]


def _subschemas(node: Mapping[str, Any], path: str) -> Iterator[tuple[str, Any]]:
    """The immediate subschemas of ``node`` with their paths (``$defs`` included)."""
    for key in ("properties", "$defs", "definitions"):
        for name, sub in (node.get(key) or {}).items():
            yield f"{path}/{key}/{name}", sub
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        value = node.get(key)
        if isinstance(value, list):
            for i, sub in enumerate(value):
                yield f"{path}/{key}/{i}", sub
    items = node.get("items")
    if isinstance(items, list):
        for i, sub in enumerate(items):
            yield f"{path}/items/{i}", sub
    elif items is not None:
        yield f"{path}/items", items
    for key in ("additionalProperties", "not"):
        if key in node:
            yield f"{path}/{key}", node[key]


def _walk(node: Any, path: str = "#") -> Iterator[tuple[str, Any]]:
    yield path, node
    if isinstance(node, Mapping):
        for sub_path, sub in _subschemas(node, path):
            yield from _walk(sub, sub_path)


_ANTHROPIC_KEY = re.compile(r"[a-zA-Z0-9_.-]{1,64}")


def anthropic_problems(schema: Mapping[str, Any]) -> list[str]:
    problems = _valid(schema)
    if schema.get("type") != "object":
        problems.append("#: a tool's input_schema must have type object at the root")
    for path, node in _walk(schema):
        props = node.get("properties") if isinstance(node, Mapping) else None
        for key in props or ():
            if not _ANTHROPIC_KEY.fullmatch(str(key)):
                problems.append(f"{path}/properties: key {key!r} does not match ^[a-zA-Z0-9_.-]{{1,64}}$")
    return problems


def openai_problems(schema: Mapping[str, Any], *, strict: bool) -> list[str]:
    problems = _valid(schema)
    if schema.get("type") != "object" or "anyOf" in schema:
        problems.append("#: the root must be an object schema, not anyOf")
    if not strict:
        return problems
    properties = enums = 0
    for path, node in _walk(schema):
        if not isinstance(node, Mapping):
            if not path.endswith("/additionalProperties"):
                problems.append(f"{path}: boolean schemas are not supported")
            continue
        for key in sorted(set(node) - _OPENAI_KEYWORDS):
            problems.append(f"{path}: keyword {key!r} is not supported in strict mode")
        if not any(k in node for k in ("type", "anyOf", "enum", "const", "$ref")):
            problems.append(f"{path}: every schema needs a type in strict mode")
        props = node.get("properties")
        if node.get("type") == "object" or props is not None:
            if node.get("additionalProperties") is not False:
                problems.append(f"{path}: objects need additionalProperties: false")
            missing = sorted(set(props or {}) - set(node.get("required") or ()))
            if missing:
                problems.append(f"{path}: every property must be required (not: {', '.join(missing)})")
            properties += len(props or {})
            if path.count("/properties/") > 10:
                problems.append(f"{path}: more than 10 levels of nesting")
        enums += len(node.get("enum") or ())
    if properties > 5000:
        problems.append(f"#: {properties} object properties (at most 5000)")
    if enums > 1000:
        problems.append(f"#: {enums} enum values (at most 1000)")
    return problems


def _llama_count(node: Mapping[str, Any], path: str) -> list[str]:
    out = []
    for key in ("minItems", "maxItems", "minLength", "maxLength"):
        value = node.get(key)
        if key in node and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            out.append(f"{path}: {key} must be a non-negative integer")
    return out


def _resolves(root: Mapping[str, Any], ref: str) -> bool:
    target: Any = root
    for part in ref[2:].split("/"):
        if not isinstance(target, Mapping) or part not in target:
            return False
        target = target[part]
    return True


def llamacpp_problems(schema: Mapping[str, Any]) -> list[str]:
    problems = _valid(schema)
    for path, node in _walk(schema):
        if not isinstance(node, Mapping):
            if not path.endswith("/additionalProperties"):
                problems.append(f"{path}: schema must be an object (llama.cpp has no boolean schemas)")
            continue
        for key in ("anyOf", "oneOf", "allOf", "enum"):
            if key in node and (not isinstance(node[key], list) or not node[key]):
                problems.append(f"{path}: {key} must be a non-empty array")
        kind = node.get("type")
        kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
        if isinstance(kind, list) and not kind:
            problems.append(f"{path}: type must not be empty")
        for k in kinds:
            if k not in _LLAMA_TYPES:
                problems.append(f"{path}: unrecognized type {k!r}")
        problems += _llama_count(node, path)
        for key in ("pattern", "format"):
            if key in node and not isinstance(node[key], str):
                problems.append(f"{path}: {key} must be a string")
        add = node.get("additionalProperties")
        if add is not None and not isinstance(add, bool | Mapping):
            problems.append(f"{path}: additionalProperties must be a boolean or a schema")
        if "prefixItems" in node and "items" in node:
            problems.append(f"{path}: prefixItems is ignored when items is present")
        tuple_items = node.get("items") if "items" in node else node.get("prefixItems")
        if isinstance(tuple_items, list) and not ("anyOf" in node or "oneOf" in node or "$ref" in node):
            n = len(tuple_items)
            if node.get("minItems", n) != n or node.get("maxItems", n) != n:
                problems.append(
                    f"{path}: read as a tuple of exactly {n} items; minItems/maxItems "
                    f"({node.get('minItems')}, {node.get('maxItems')}) would be ignored"
                )
    return problems
