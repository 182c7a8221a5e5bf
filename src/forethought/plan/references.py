"""References between steps: ``${s1}``, ``${s1.items[0].path}``, ``${s1["a key"]}``.

An argument whose entire value is one reference receives the referenced value *typed*; a
reference inside a longer string is interpolated as text (strings verbatim, anything else as
compact JSON). Substitution is a single pass over the *plan's* text: a tool's output is data and
is never scanned for references again, so an output containing ``${...}`` stays literal.
``$${`` escapes a literal ``${``.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

PathPart = str | int

# ${id} followed by .field, [0] or ["key"] segments. Step ids: letters, digits, _ and -.
_REF_BODY = (
    r"""([A-Za-z0-9_][A-Za-z0-9_-]*)"""
    r"""((?:\.[A-Za-z_][A-Za-z0-9_-]*|\[-?\d+\]|\["(?:[^"\\]|\\.)*"\])*)"""
)
_REF_RE = re.compile(r"(?<!\$)\$\{" + _REF_BODY + r"\}")
_WHOLE_RE = re.compile(r"^\$\{" + _REF_BODY + r"\}$")
# One pass that handles both escapes and references, so substituted output is never rescanned.
_SUB_RE = re.compile(r"(\$\$\{)|(?<!\$)\$\{" + _REF_BODY + r"\}")
_SEGMENT_RE = re.compile(r"""\.([A-Za-z_][A-Za-z0-9_-]*)|\[(-?\d+)\]|\["((?:[^"\\]|\\.)*)"\]""")
# Anything that looks like an attempted reference, to report malformed ones.
_ATTEMPT_RE = re.compile(r"(?<!\$)\$\{([^}]*)\}?")


@dataclass(frozen=True, slots=True)
class Reference:
    """A parsed reference; ``location`` is the argument path it was found at."""

    step_id: str
    path: tuple[PathPart, ...]
    location: tuple[PathPart, ...] = ()
    whole: bool = False

    def text(self) -> str:
        return "${" + self.step_id + format_path(self.path) + "}"


class ReferenceResolutionError(Exception):
    """A reference that cannot be resolved at run time (missing key, index out of range)."""


def format_path(path: tuple[PathPart, ...]) -> str:
    out = []
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", part):
            out.append(f".{part}")
        else:
            out.append("[" + json.dumps(part) + "]")
    return "".join(out)


@functools.lru_cache(maxsize=4096)
def _parse_path(text: str) -> tuple[PathPart, ...]:
    parts: list[PathPart] = []
    for m in _SEGMENT_RE.finditer(text):
        if m.group(1) is not None:
            parts.append(m.group(1))
        elif m.group(2) is not None:
            parts.append(int(m.group(2)))
        else:
            parts.append(json.loads('"' + m.group(3) + '"'))
    return tuple(parts)


def _walk_strings(value: Any, location: tuple[PathPart, ...]) -> Iterator[tuple[str, tuple[PathPart, ...]]]:
    """Strings containing ``${`` anywhere in a nested value, with their locations.

    Iterative (arguments may nest deeper than the recursion limit) and allocation-light: a
    location tuple is built only for containers and for strings that may hold a reference.
    """
    if isinstance(value, str):
        if "${" in value:
            yield value, location
        return
    stack: list[tuple[Any, tuple[PathPart, ...]]] = [(value, location)]
    while stack:
        container, loc = stack.pop()
        items: Iterable[tuple[PathPart, Any]]
        if isinstance(container, Mapping):
            items = ((str(k), v) for k, v in container.items())
        elif isinstance(container, (list, tuple)):
            items = enumerate(container)
        else:
            continue
        nested: list[tuple[Any, tuple[PathPart, ...]]] = []
        for key, item in items:
            if isinstance(item, str):
                if "${" in item:
                    yield item, (*loc, key)
            elif isinstance(item, (Mapping, list, tuple)):
                nested.append((item, (*loc, key)))
        stack.extend(reversed(nested))


def find_references(value: Any, location: tuple[PathPart, ...] = ()) -> list[Reference]:
    """Every well-formed reference in a (nested) argument value, with where it was found."""
    found: list[Reference] = []
    for text, loc in _walk_strings(value, location):
        if "${" not in text:
            continue
        whole = _WHOLE_RE.match(text) is not None
        for m in _REF_RE.finditer(text):
            found.append(Reference(m.group(1), _parse_path(m.group(2)), loc, whole))
    return found


def find_malformed(value: Any, location: tuple[PathPart, ...] = ()) -> list[tuple[str, tuple[PathPart, ...]]]:
    """Strings that look like references but do not parse, e.g. ``${s1.}`` or ``${}``."""
    bad: list[tuple[str, tuple[PathPart, ...]]] = []
    for text, loc in _walk_strings(value, location):
        if "${" not in text:
            continue
        for m in _ATTEMPT_RE.finditer(text):
            if not _WHOLE_RE.match(m.group(0)):
                bad.append((m.group(0), loc))
    return bad


def lookup(value: Any, path: tuple[PathPart, ...], ref_text: str = "") -> Any:
    """Follow ``path`` into ``value``; raise ReferenceResolutionError naming the failing segment."""
    current = value
    for i, part in enumerate(path):
        where = ref_text or format_path(path[: i + 1])
        if isinstance(part, int):
            if not isinstance(current, (list, tuple)):
                raise ReferenceResolutionError(f"{where}: index [{part}] into a {type(current).__name__}")
            if not -len(current) <= part < len(current):
                raise ReferenceResolutionError(
                    f"{where}: index [{part}] out of range (length {len(current)})"
                )
            current = current[part]
        else:
            if not isinstance(current, Mapping):
                raise ReferenceResolutionError(f"{where}: field {part!r} of a {type(current).__name__}")
            if part not in current:
                has = ", ".join(map(str, list(current)[:10]))
                raise ReferenceResolutionError(f"{where}: no field {part!r} (has: {has})")
            current = current[part]
    return current


def as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _resolve_string(text: str, outputs: Mapping[str, Any]) -> Any:
    if "${" not in text:
        return text
    whole = _WHOLE_RE.match(text)
    if whole:
        ref = Reference(whole.group(1), _parse_path(whole.group(2)))
        return lookup(_output(outputs, ref.step_id), ref.path, ref.text())

    def replace(m: re.Match[str]) -> str:
        if m.group(1):
            return "${"
        ref = Reference(m.group(2), _parse_path(m.group(3)))
        return as_text(lookup(_output(outputs, ref.step_id), ref.path, ref.text()))

    return _SUB_RE.sub(replace, text)


def _output(outputs: Mapping[str, Any], step_id: str) -> Any:
    if step_id not in outputs:
        raise ReferenceResolutionError(f"${{{step_id}}}: step {step_id!r} has no recorded output")
    return outputs[step_id]


def resolve(value: Any, outputs: Mapping[str, Any]) -> Any:
    """Substitute references in ``value`` with step outputs (one pass; outputs are not rescanned)."""
    if isinstance(value, str):
        return _resolve_string(value, outputs)
    if isinstance(value, Mapping):
        return {k: resolve(v, outputs) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [resolve(v, outputs) for v in value]
    return value


# ---------------------------------------------------------------- importers of foreign syntaxes

_SEED_RE = re.compile(r"\{step_([A-Za-z0-9_-]+?)_result\}")
_COMPILER_RE = re.compile(r"(?<![\w$])\$(\d+)(?![\w{])")


def import_foreign(value: Any) -> Any:
    """Rewrite seed-style ``{step_3_result}`` and LLMCompiler-style ``$3`` into ``${3}``."""
    if isinstance(value, str):
        value = _SEED_RE.sub(lambda m: "${" + m.group(1) + "}", value)
        return _COMPILER_RE.sub(lambda m: "${" + m.group(1) + "}", value)
    if isinstance(value, Mapping):
        return {k: import_foreign(v) for k, v in value.items()}
    if isinstance(value, list):
        return [import_foreign(v) for v in value]
    return value
