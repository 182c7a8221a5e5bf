"""References between steps: ``${s1}``, ``${s1.items[0].path}``, ``${s1["a key"]}``.

An argument whose entire value is one reference receives the referenced value *typed*; a
reference inside a longer string is interpolated as text (strings verbatim, anything else as
compact JSON). Substitution is a single pass over the *plan's* text: a tool's output is data and
is never scanned for references again, so an output containing ``${...}`` stays literal.
``$${`` escapes a literal ``${``.

``env`` is a reserved root, not a step: ``${env.NAME}`` is the environment variable ``NAME``,
read when the call is made and never written into the plan (so never stored, hashed or shown).
Only names the operator lists in ``$FORETHOUGHT_SECRETS`` may be referenced (see
``secret_shapes.allowed_env_names``); the executor registers each value with redaction.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from forethought.plan.secret_shapes import ENV_NAME_RE, SECRETS_ENV, allowed_env_names

PathPart = str | int

# ${id} followed by .field, [0] or ["key"] segments. Step ids: letters, digits, _ and -.
_REF_BODY = (
    r"""([A-Za-z0-9_][A-Za-z0-9_-]*)"""
    r"""((?:\.[A-Za-z_][A-Za-z0-9_-]*|\[-?\d+\]|\["(?:[^"\\]|\\.)*"\])*)"""
)
_REF_RE = re.compile(r"(?<!\$)\$\{" + _REF_BODY + r"\}")
# \Z, not $: "${s1}\\n" is text with a reference in it, not a whole-value reference.
_WHOLE_RE = re.compile(r"^\$\{" + _REF_BODY + r"\}\Z")
# One pass that handles both escapes and references, so substituted output is never rescanned.
_SUB_RE = re.compile(r"(\$\$\{)|(?<!\$)\$\{" + _REF_BODY + r"\}")
_FIELD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")  # a path segment written as .field
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


ENV_ROOT = "env"
EnvLookup = Callable[[str], str]


@dataclass(frozen=True, slots=True)
class EnvReference:
    """A ``${env...}`` reference; ``name`` is None when it is not exactly ``${env.NAME}``."""

    text: str
    name: str | None
    location: tuple[PathPart, ...] = ()


def env_problem(name: str, env: Mapping[str, str] | None = None) -> str | None:
    """Why ``${env.NAME}`` may not be used here, or None if it may."""
    if name not in allowed_env_names(env):
        return (
            f"${{env.{name}}} is not allowed; list it in {SECRETS_ENV} (e.g. "
            f"{SECRETS_ENV}={name}) to let plans use that environment variable"
        )
    return None


def env_value(name: str) -> str:
    """The value of ``${env.NAME}`` from this process's environment, or ReferenceResolutionError."""
    problem = env_problem(name)
    if problem is not None:
        raise ReferenceResolutionError(problem)
    value = os.environ.get(name)
    if value is None:
        raise ReferenceResolutionError(f"${{env.{name}}}: environment variable {name} is not set")
    return value


def format_path(path: tuple[PathPart, ...]) -> str:
    out = []
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif _FIELD_RE.fullmatch(part):
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


_SCALARS = (int, float, bool, type(None))


def _may_hold(value: Any) -> bool:
    """False only if no string in ``value`` contains ``${`` (so no reference, escape or env).

    The common arguments — a flat mapping of literals — are settled here without starting the
    walker (a generator and a stack per call); each fresh step asks three times (its references,
    escapes and ``${env...}``), which cost ~10 µs a step before.
    """
    if type(value) is str:
        return "${" in value
    if type(value) is dict:
        for item in value.values():
            kind = type(item)
            if kind is str:
                if "${" in item:
                    return True
            elif kind not in _SCALARS:
                return True  # nested (or unusual): the walker decides
        return False
    return type(value) not in _SCALARS


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
    """Every well-formed reference to a step in a (nested) argument value, with its location.

    ``${env...}`` references are not step references (see ``find_env_references``).
    """
    found: list[Reference] = []
    if not _may_hold(value):
        return found
    for text, loc in _walk_strings(value, location):
        if "${" not in text:
            continue
        whole = _WHOLE_RE.match(text) is not None
        for m in _REF_RE.finditer(text):
            if m.group(1) != ENV_ROOT:
                found.append(Reference(m.group(1), _parse_path(m.group(2)), loc, whole))
    return found


def escape(text: str) -> str:
    """``text`` as a literal in an argument: every ``${`` written ``$${`` (``resolve`` undoes it).

    A literal ``$`` right before a reference (``$${s1}`` is the escape) cannot be written.
    """
    return text.replace("${", "$${")


def has_escapes(value: Any) -> bool:
    """True if a string in ``value`` holds an escaped ``$${``, which resolving turns into ``${``."""
    return _may_hold(value) and any("$${" in text for text, _ in _walk_strings(value, ()))


def find_env_references(value: Any, location: tuple[PathPart, ...] = ()) -> list[EnvReference]:
    """Every ``${env...}`` reference in a (nested) argument value, with its location."""
    found: list[EnvReference] = []
    if not _may_hold(value):
        return found
    for text, loc in _walk_strings(value, location):
        for m in _REF_RE.finditer(text):
            if m.group(1) == ENV_ROOT:
                found.append(EnvReference(m.group(0), _env_name(_parse_path(m.group(2))), loc))
    return found


class ArgScan(NamedTuple):
    """What validation and the executor read from a step's arguments, found in one walk.

    ``references``, ``env`` and ``malformed`` equal ``find_references``, ``find_env_references``
    and ``find_malformed`` of the same value and location (same order); ``escapes`` equals
    ``has_escapes``.
    """

    references: tuple[Reference, ...] = ()
    env: tuple[EnvReference, ...] = ()
    malformed: tuple[tuple[str, tuple[PathPart, ...]], ...] = ()
    escapes: bool = False


NO_REFERENCES = ArgScan()


def _simple_whole(text: str) -> re.Match[str] | None:
    """The match of ``text`` if it is one reference and nothing else, with one ``${`` and one ``}``.

    Then the reference regex finds exactly this match, the malformed-attempt regex finds this
    whole text (well formed), and there is no ``$${``: the usual argument (``${s1}``,
    ``${s1.items[0]}``) needs none of the other regexes.
    """
    whole = _WHOLE_RE.match(text)
    if whole is not None and text.count("${") == 1 and text.find("}") == len(text) - 1:
        return whole
    return None


class _Found:
    """What ``scan`` collects while it walks (lists made only when something is found)."""

    __slots__ = ("bad", "env", "escapes", "refs")

    def __init__(self) -> None:
        self.refs: list[Reference] = []
        self.env: list[EnvReference] = []
        self.bad: list[tuple[str, tuple[PathPart, ...]]] = []
        self.escapes = False

    def add(self, text: str, loc: tuple[PathPart, ...]) -> None:
        """Everything in one string that holds ``${`` (the same regexes as the ``find_*``)."""
        whole = _simple_whole(text)
        if whole is not None:
            path = _parse_path(whole.group(2))
            if whole.group(1) == ENV_ROOT:
                self.env.append(EnvReference(text, _env_name(path), loc))
            else:
                self.refs.append(Reference(whole.group(1), path, loc, True))
            return
        is_whole = _WHOLE_RE.match(text) is not None
        for m in _REF_RE.finditer(text):
            path = _parse_path(m.group(2))
            if m.group(1) == ENV_ROOT:
                self.env.append(EnvReference(m.group(0), _env_name(path), loc))
            else:
                self.refs.append(Reference(m.group(1), path, loc, is_whole))
        for m in _ATTEMPT_RE.finditer(text):
            if not _WHOLE_RE.match(m.group(0)):
                self.bad.append((m.group(0), loc))
        if "$${" in text:
            self.escapes = True

    def result(self) -> ArgScan:
        if not (self.refs or self.env or self.bad or self.escapes):
            return NO_REFERENCES
        return ArgScan(tuple(self.refs), tuple(self.env), tuple(self.bad), self.escapes)


def scan(value: Any, location: tuple[PathPart, ...] = ()) -> ArgScan:
    """``find_references``, ``find_env_references``, ``find_malformed`` and ``has_escapes`` of
    ``value`` in one walk (see ``ArgScan``). Each fresh step used to walk its arguments once
    per question, and the executor and validation each asked."""
    if type(value) is dict:
        # A mapping of literals whose references are each a whole argument (most arguments):
        # its strings in order, as ``_walk_strings`` yields them, with no generator, stack or
        # lists beyond the one of references (a fresh plan allocates this per step, and each
        # allocation brings the next garbage collection closer). Anything else → the general walk.
        simple: list[Reference] | None = None
        for key, item in value.items():
            kind = type(item)
            if kind is str:
                if "${" in item:
                    whole = _simple_whole(item)
                    if whole is None or whole.group(1) == ENV_ROOT:
                        break
                    ref = Reference(whole.group(1), _parse_path(whole.group(2)), (*location, str(key)), True)
                    if simple is None:
                        simple = [ref]
                    else:
                        simple.append(ref)
            elif kind not in _SCALARS:
                break
        else:
            return NO_REFERENCES if simple is None else ArgScan(tuple(simple))
    elif not _may_hold(value):
        return NO_REFERENCES
    found = _Found()
    for text, loc in _walk_strings(value, location):
        found.add(text, loc)
    return found.result()


def _env_name(path: tuple[PathPart, ...]) -> str | None:
    if len(path) == 1 and isinstance(path[0], str) and ENV_NAME_RE.fullmatch(path[0]):
        return path[0]
    return None


def _env(path: tuple[PathPart, ...], text: str, env: EnvLookup | None) -> str:
    name = _env_name(path)
    if name is None:
        raise ReferenceResolutionError(f"{text}: write ${{env.NAME}} with one variable name")
    return (env or env_value)(name)


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


def lookup(value: Any, path: tuple[PathPart, ...], ref_text: str = "", *, step_id: str | None = None) -> Any:
    """Follow ``path`` into ``value``; raise ReferenceResolutionError naming the failing segment.

    The reference named in a message is ``ref_text``, else ``${step_id...}`` when ``step_id`` is
    given, else the path up to the failing segment. It is spelled out only on failure: this runs
    once per reference of every step, and formatting it cost more than following the path.
    """
    current = value
    for i, part in enumerate(path):
        if isinstance(part, int):
            if not isinstance(current, (list, tuple)):
                where = _where(path, i, ref_text, step_id)
                raise ReferenceResolutionError(f"{where}: index [{part}] into a {type(current).__name__}")
            if not -len(current) <= part < len(current):
                where = _where(path, i, ref_text, step_id)
                raise ReferenceResolutionError(
                    f"{where}: index [{part}] out of range (length {len(current)})"
                )
            current = current[part]
        else:
            if not isinstance(current, Mapping):
                where = _where(path, i, ref_text, step_id)
                raise ReferenceResolutionError(f"{where}: field {part!r} of a {type(current).__name__}")
            if part not in current:
                where = _where(path, i, ref_text, step_id)
                has = ", ".join(map(str, list(current)[:10]))
                raise ReferenceResolutionError(f"{where}: no field {part!r} (has: {has})")
            current = current[part]
    return current


def _where(path: tuple[PathPart, ...], i: int, ref_text: str, step_id: str | None) -> str:
    if ref_text:
        return ref_text
    if step_id is not None:
        return "${" + step_id + format_path(path) + "}"
    return format_path(path[: i + 1])


def as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _resolve_string(text: str, outputs: Mapping[str, Any], env: EnvLookup | None = None) -> Any:
    if "${" not in text:
        return text
    whole = _WHOLE_RE.match(text)
    if whole:
        ref = Reference(whole.group(1), _parse_path(whole.group(2)))
        if ref.step_id == ENV_ROOT:
            return _env(ref.path, text, env)
        return lookup(_output(outputs, ref.step_id), ref.path, step_id=ref.step_id)

    def replace(m: re.Match[str]) -> str:
        if m.group(1):
            return "${"
        ref = Reference(m.group(2), _parse_path(m.group(3)))
        if ref.step_id == ENV_ROOT:
            return _env(ref.path, m.group(0), env)
        return as_text(lookup(_output(outputs, ref.step_id), ref.path, step_id=ref.step_id))

    return _SUB_RE.sub(replace, text)


def _output(outputs: Mapping[str, Any], step_id: str) -> Any:
    if step_id not in outputs:
        raise ReferenceResolutionError(f"${{{step_id}}}: step {step_id!r} has no recorded output")
    return outputs[step_id]


def resolve(value: Any, outputs: Mapping[str, Any], env: EnvLookup | None = None) -> Any:
    """Substitute references in ``value`` with step outputs (one pass; outputs are not rescanned).

    ``${env.NAME}`` is looked up with ``env`` (default ``env_value``: the allowed environment).
    """
    if isinstance(value, str):
        return _resolve_string(value, outputs, env)
    if isinstance(value, Mapping):
        return {k: resolve(v, outputs, env) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [resolve(v, outputs, env) for v in value]
    return value


def has_env_references(value: Any) -> bool:
    """True if ``value`` holds any ``${env...}`` reference (cheap: walks only ``${`` strings)."""
    return _may_hold(value) and any(
        m.group(1) == ENV_ROOT for text, _ in _walk_strings(value, ()) for m in _REF_RE.finditer(text)
    )


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
