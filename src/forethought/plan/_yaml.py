"""Reading YAML the one way forethought reads it: plans, tool files and config alike.

YAML 1.2 core-schema semantics (``yes``/``no`` stay strings, ``012`` is 12, duplicate keys are
errors) through a compiled parser that builds plain data only. Tags are refused outright — a
``!!python/object`` can never become an object — and the result is JSON-compatible (dates become
ISO strings, non-finite numbers are refused), so everything read has a canonical JSON form.
PyYAML only locates tags (yaml-rs refuses ``!!python/...`` without a position and accepts other
tags) — no single YAML 1.2 parser measured within 20 % of this one; see docs/architecture.md.
"""

from __future__ import annotations

import datetime
import functools
import json
import math
import re
import sys
from typing import TYPE_CHECKING, Any

from forethought.errors import UserError

if TYPE_CHECKING:
    import yaml


# PyYAML only scans for tags and maps problems to lines; it never constructs objects here.
# Imported with the first YAML read, not with the package: a JSON plan never needs it.
@functools.cache
def safe_loader() -> type[yaml.SafeLoader]:
    import yaml

    loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return loader


def __getattr__(name: str) -> Any:
    if name == "SafeLoader":  # ``from forethought.plan._yaml import SafeLoader``, loaded on use
        return safe_loader()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load_yaml(text: str, source: str, *, error: type[UserError] = UserError) -> Any:
    """Parse ``text`` (from ``source``, for messages); failures raise ``error`` with one line."""
    import yaml_rs

    _refuse_tags(text, source, error)
    _check_aliases(text, source, error)
    try:
        data = yaml_rs.loads(text)
    except yaml_rs.YAMLDecodeError as exc:
        raise error(
            f"{source}{_yaml_rs_location(str(exc))}: invalid YAML: {_yaml_rs_reason(str(exc))}"
        ) from None
    except RecursionError:
        raise error(f"{source}: YAML nested too deeply") from None
    except ValueError as exc:
        if _DIGITS_MESSAGE in str(exc):
            raise error(too_many_digits(source)) from None
        raise
    except TypeError as exc:  # yaml-rs builds a dict with a list/mapping key: "unhashable type"
        if "unhashable" not in str(exc):
            raise
        raise error(
            f"{source}: invalid YAML: a mapping key is a list or a mapping (`? [a]: ...`); "
            "keys must be strings"
        ) from None
    return _json_compatible(data, source, (), error)


# Deeper data is refused: nothing a plan needs, and later stages (validation, hashing, JSON
# output) recurse over it.
MAX_NESTING = 200


def too_deep(source: str, where: str) -> str:
    return (
        f"{source}: {where}: data nested more than {MAX_NESTING} levels deep; "
        "flatten it (plans never need this)"
    )


def check_nesting(data: Any, source: str, error: type[UserError] = UserError) -> None:
    """Refuse ``data`` (parsed JSON) nested deeper than ``MAX_NESTING``, without recursing."""
    if not isinstance(data, (dict, list)):
        return
    # Only containers are stacked: scalars (most of a plan) cost a type test, not a push and pop.
    stack: list[tuple[dict[Any, Any] | list[Any], int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value
        if depth > MAX_NESTING:
            raise error(too_deep(source, f"level {depth}"))
        if depth == MAX_NESTING and children:  # a child, container or not, one level too deep
            raise error(too_deep(source, f"level {depth + 1}"))
        stack.extend((v, depth + 1) for v in children if isinstance(v, (dict, list)))


_DIGITS_MESSAGE = "integer string conversion"


def _max_digits() -> int:
    return int(getattr(sys, "get_int_max_str_digits", lambda: 4300)())


def too_many_digits(source: str) -> str:
    """The one-line message for an integer longer than Python converts (``sys.get_int_max_str_digits``)."""
    return (
        f"{source}: a number has more than {_max_digits()} digits, more than plans accept; "
        "write it as a string (in quotes) if you need it verbatim"
    )


@functools.lru_cache(maxsize=4)
def _int_bound(digits: int) -> int:
    return int(10**digits)


def _too_long(value: int) -> bool:
    # Such an int parses (yaml-rs builds it directly) but cannot be printed or hashed as JSON.
    digits = _max_digits()
    return digits > 0 and value.bit_length() > 3 * digits and abs(value) >= _int_bound(digits)


# Aliases may expand to at most this many nodes in all (the document's own nodes are not counted):
# generous for sharing a few blocks, far below what a "billion laughs" file would build.
MAX_ALIAS_NODES = 100_000

# An alias can only start a token: at line start or after whitespace or a flow indicator.
_ALIAS_CANDIDATE = re.compile(r"(?:^|[\s,\[{])\*", re.MULTILINE)


def _check_aliases(text: str, source: str, error: type[UserError]) -> None:
    """Refuse recursive aliases and aliases that expand beyond ``MAX_ALIAS_NODES`` nodes.

    yaml-rs turns a recursive alias into ``null`` silently, and anything that walks the composed
    nodes (line numbers) would follow the cycle forever; expansion is counted without building it.
    """
    if not _ALIAS_CANDIDATE.search(text):
        return
    import yaml

    sizes: dict[str, int] = {}  # anchor -> nodes it stands for, once its node is complete
    open_nodes: list[tuple[str | None, int]] = []  # (anchor, nodes so far) per open collection
    expanded = 0
    try:
        for event in yaml.parse(text, Loader=safe_loader()):
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                if event.anchor is not None:
                    sizes.pop(event.anchor, None)  # a reused name now means this open node
                open_nodes.append((event.anchor, 1))
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                anchor, count = open_nodes.pop()
                if anchor is not None:
                    sizes[anchor] = count
                if open_nodes:
                    parent, total = open_nodes[-1]
                    open_nodes[-1] = (parent, total + count)
            elif isinstance(event, yaml.ScalarEvent):
                if event.anchor is not None:
                    sizes[event.anchor] = 1
                if open_nodes:
                    parent, total = open_nodes[-1]
                    open_nodes[-1] = (parent, total + 1)
            elif isinstance(event, yaml.AliasEvent):
                mark = event.start_mark
                where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark is not None else source
                name = event.anchor
                if name not in sizes:
                    if any(anchor == name for anchor, _ in open_nodes):
                        raise error(
                            f"{where}: invalid YAML: recursive alias *{name} refers to the node "
                            f"that contains it (&{name}); a plan must be a tree: copy the "
                            "values instead"
                        )
                    raise error(f"{where}: invalid YAML: alias *{name} has no anchor &{name} before it")
                expanded += sizes[name]
                if expanded > MAX_ALIAS_NODES:
                    raise error(
                        f"{where}: invalid YAML: aliases expand to more than {MAX_ALIAS_NODES:,} "
                        "values (nested anchors multiply); write the values out or use fewer "
                        "nested anchors"
                    )
                if open_nodes:
                    parent, total = open_nodes[-1]
                    open_nodes[-1] = (parent, total + sizes[name])
    except yaml.YAMLError as exc:
        # The text has what may be an alias and PyYAML cannot read it: refuse rather than let
        # a second parser decide what the aliases mean.
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark is not None else source
        problem = getattr(exc, "problem", None) or "syntax error"
        raise error(f"{where}: invalid YAML: {problem}") from None
    except RecursionError:
        raise error(f"{source}: YAML nested too deeply") from None


# A tag can only start a token: at line start or after whitespace or a flow indicator.
_TAG_CANDIDATE = re.compile(r"(?:^|[\s,\[{])!", re.MULTILINE)


def _refuse_tags(text: str, source: str, error: type[UserError]) -> None:
    if not _TAG_CANDIDATE.search(text):
        return
    # Rare: a `!` that might be a tag. Let PyYAML's scanner say for sure (it builds no objects).
    import yaml

    try:
        for token in yaml.scan(text, Loader=safe_loader()):
            if isinstance(token, yaml.TagToken):
                handle, suffix = token.value
                mark = token.start_mark
                raise error(
                    f"{source}:{mark.line + 1}:{mark.column + 1}: invalid YAML: tag "
                    f"{(handle or '') + suffix!r} is not allowed in plan files (tags such as "
                    "!!python/... could construct objects); write plain values"
                )
    except yaml.YAMLError:
        return  # a syntax error: the parser below reports it with its position


_LOC_RE = re.compile(r"line (\d+), column (\d+)")


def _yaml_rs_location(message: str) -> str:
    m = _LOC_RE.search(message)
    return f":{m.group(1)}:{m.group(2)}" if m else ""


def _yaml_rs_reason(message: str) -> str:
    lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
    reason = lines[-1] if lines else "syntax error"
    if len(lines) == 1:
        reason = _LOC_RE.sub("", reason).replace("YAML parse error at", "").strip(" ,:") or reason
    return " ".join(reason.split())[:300]


def _json_compatible(value: Any, source: str, path: tuple[Any, ...], error: type[UserError]) -> Any:
    """Dates become ISO strings; non-finite floats, non-string keys and deep nesting are refused."""
    if len(path) > MAX_NESTING:
        raise error(too_deep(source, _where(path[:3]) + "..."))
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                if isinstance(k, (int, float, bool)) or k is None:
                    k = json.dumps(k)
                else:
                    raise error(
                        f"{source}: {_where(path)}: mapping keys must be strings "
                        f"(found {type(k).__name__} key)"
                    )
            out[k] = _json_compatible(v, source, (*path, k), error)
        return out
    if isinstance(value, list):
        return [_json_compatible(v, source, (*path, i), error) for i, v in enumerate(value)]
    if isinstance(value, int) and _too_long(value):
        raise error(f"{too_many_digits(source)} (at {_where(path)})")
    if isinstance(value, float) and not math.isfinite(value):
        raise error(
            f"{source}: {_where(path)}: {value} is not a finite number; use a finite number or a string"
        )
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, bytes):
        raise error(f"{source}: {_where(path)}: binary values are not allowed; use text")
    return value


def _where(path: tuple[Any, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".") or "top level"
