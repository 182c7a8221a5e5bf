"""The roles of tools and of their parameters, read from schemas and effects alone.

A *reader* turns an input file into data, a *writer* puts a result into a file, a *formatter*
lays a list out as text; a *value parameter* is the one short text a read-only tool takes besides
its data (a filter's, a selector's), and its *kind* ("date", "time", "text") says what values it
may take. Nothing here reads a goal.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from forethought.plan._schema import fits, item_types, types_of
from forethought.planning.grammar import (
    _DIR_PARAM,
    _DIR_TOOL,
    RefCandidate,
    reference_candidates,
    takes_file_name,
)
from forethought.tools.base import ToolSpec


def properties(spec: ToolSpec) -> dict[str, Any]:
    props = spec.input_schema.get("properties")
    return dict(props) if isinstance(props, Mapping) else {}


def required_params(spec: ToolSpec) -> list[str]:
    return [str(r) for r in spec.input_schema.get("required") or ()]


def param_types(spec: ToolSpec, pname: str) -> set[str] | None:
    return types_of(properties(spec).get(pname, {}), spec.input_schema)


def is_path_param(spec: ToolSpec, pname: str, *, places: bool = False) -> bool:
    """A parameter that takes a file name (not a directory): ``grammar.takes_file_name``; with
    ``places``, not a parameter that names a place (``names_a_place``)."""
    return takes_file_name(spec, pname) and not (
        places and (names_a_place(spec, pname) or takes_prefix(spec, pname))
    )


_STARTS_WITH_RE = re.compile(r"\b(?:start|begin)s?\s+with\s+(\w+)", re.IGNORECASE)


def takes_prefix(spec: ToolSpec, pname: str) -> bool:
    """Whether text parameter ``pname`` of ``spec`` is the start items are kept by (named or
    described as a "prefix", or "the entries whose key *starts with* ``pname``"), not a file's
    name, though the tool speaks of paths: the tool only reads, and takes data (a list or a
    record) beside the parameter."""
    if spec.effect != "read_only" or param_types(spec, pname) != {"string"}:
        return False
    own = str((properties(spec).get(pname) or {}).get("description") or "")
    said = (
        "prefix" in pname.lower()
        or "prefix" in own.lower()
        or any(
            m.group(1).lower() == pname.lower()
            for t in (own, spec.description)
            for m in _STARTS_WITH_RE.finditer(t)
        )
    )
    if not said:
        return False
    return any(
        p != pname and (param_types(spec, p) or set()) & {"array", "object"} for p in required_params(spec)
    )


# Parameter names a file's as often as a place's or a thing's: "destination" is where a writer
# puts a file, or the town a train goes to. "path" and "file" are a file's only.
_PLACE_NAME_RE = re.compile(r"dest|source|src|target|origin", re.IGNORECASE)
_FILE_NAME_RE = re.compile(r"path|file|dir|folder", re.IGNORECASE)
_FILE_TEXT_RE = re.compile(r"\bfiles?\b|\bpaths?\b|\bfolders?\b|\bdirector(?:y|ies)\b", re.IGNORECASE)


def names_a_place(spec: ToolSpec, pname: str) -> bool:
    """Whether a parameter named like a file's ("destination", "source", "target") names a
    place or a thing instead: the tool only reads, it takes data (a list or a record) beside the
    parameter, and neither its description nor the parameter's speaks of files -- "the
    departures heading for a given destination" filters by a town, it opens no file."""
    props = properties(spec)
    if spec.effect != "read_only" or not _PLACE_NAME_RE.search(pname) or _FILE_NAME_RE.search(pname):
        return False
    described = " ".join((spec.description, str((props.get(pname) or {}).get("description") or "")))
    if _FILE_TEXT_RE.search(described):
        return False
    data = [
        p
        for p in required_params(spec)
        if p != pname and (param_types(spec, p) or set()) & {"array", "object"}
    ]
    return bool(data)


def is_dir_param(spec: ToolSpec, pname: str) -> bool:
    """A directory parameter: named so, or the ``path`` of a tool named for directories."""
    return param_types(spec, pname) == {"string"} and (
        bool(_DIR_PARAM.search(pname)) or (bool(_DIR_TOOL.search(spec.name)) and pname == "path")
    )


def is_writer(spec: ToolSpec) -> bool:
    """Side-effecting, with a path-like parameter: where a goal's output file goes."""
    return spec.effect != "read_only" and any(is_path_param(spec, p) for p in properties(spec))


def is_reader(spec: ToolSpec) -> bool:
    """Read-only, and its only required parameter is path-like: turns an input file into data."""
    req = required_params(spec)
    return spec.effect == "read_only" and len(req) == 1 and is_path_param(spec, req[0])


def reads_files(spec: ToolSpec) -> bool:
    return spec.effect == "read_only" and any(is_path_param(spec, p) for p in required_params(spec))


def output_fields(spec: ToolSpec | None) -> list[RefCandidate]:
    return reference_candidates("x", spec)


def record_fields(spec: ToolSpec) -> list[tuple[str, frozenset[str] | None]]:
    """The fields (name, JSON types) of the record a tool returns (none for a list or a value)."""
    return [(c.text[2:-1].split(".", 1)[1], c.types) for c in output_fields(spec) if "." in c.text]


def fits_first_need(reader: ToolSpec, consumer: ToolSpec | None) -> bool:
    """Can the reader's output (or a field of it) feed the consumer's first data parameter?"""
    if consumer is None:
        return True
    needs = [p for p in required_params(consumer) if not is_path_param(consumer, p)]
    if not needs:
        return True
    want = param_types(consumer, needs[0])
    want_items = item_types(properties(consumer).get(needs[0], {}), consumer.input_schema)
    return any(fits(c.types, c.items, want, want_items) for c in output_fields(reader))


# How a formatter describes itself: it lays items out (a list → text holding all of them), where
# a reducer that also turns a list into a string ("the longest of some words") picks one.
_LAYOUT_RE = re.compile(
    r"\b(?:lines?|format(?:s|ted)?|join(?:s|ed)?|columns?|separated|bullets?|commas?|semicolons?)\b",
    re.IGNORECASE,
)


def is_formatter(spec: ToolSpec) -> bool:
    """A read-only tool laying one list out as text: one required list parameter, a string
    result, and a description that speaks of layout (``_LAYOUT_RE``)."""
    req = required_params(spec)
    out = spec.output_schema
    return (
        spec.effect == "read_only"
        and len(req) == 1
        and not is_path_param(spec, req[0])
        and param_types(spec, req[0]) == {"array"}
        and out is not None
        and types_of(out, out) == {"string"}
        and bool(_LAYOUT_RE.search(spec.description))
    )


_KIND_PARAM = {
    "date": re.compile(r"(?<![a-z])(?:date|day|yyyy)(?![a-z])", re.IGNORECASE),
    "time": re.compile(r"(?<![a-z])(?:time|clock|hh)(?![a-z])", re.IGNORECASE),
}


# "a time of day", "hours of the day": the day there says which time, it names no date.
_TIME_OF_DAY_RE = re.compile(r"\b(?:times?|hours?)\s+of\s+(?:the\s+)?day\b", re.IGNORECASE)


def param_kind(spec: ToolSpec, pname: str, *, day_times: bool = False, formats: bool = False) -> str:
    """The kind of value a text parameter takes, by its name, else its description or the
    tool's ("date", "(YYYY-MM-DD)" → "date"); "text" otherwise. With ``day_times``, "a time
    of day" in a description is a time's phrase, not a date's. With ``formats``, a format the
    parameter's or the tool's description spells, of one kind only ("(HH:MM, 24-hour clock),
    on any date"), says the kind before the words do."""
    described = str((properties(spec).get(pname) or {}).get("description") or "")
    tool_text = spec.description
    if day_times:
        described = _TIME_OF_DAY_RE.sub("time", described)
        tool_text = _TIME_OF_DAY_RE.sub("time", tool_text)
    for kind, pattern in _KIND_PARAM.items():
        if pattern.search(pname):
            return kind
    if formats:
        for text in (described, tool_text):
            spelled = [kind for kind, fmt in _FORMATS.items() if fmt.search(text)]
            if len(spelled) == 1:
                return spelled[0]
    for kind, pattern in _KIND_PARAM.items():
        if pattern.search(described) or (
            pattern.search(tool_text) and not any(p.search(pname) for p in _KIND_PARAM.values())
        ):
            return kind
    return "text"


def taker_kind(spec: ToolSpec, *, places: bool = False, day_times: bool = False) -> str:
    pname = value_param(spec, places=places)
    return param_kind(spec, pname, day_times=day_times) if pname is not None else "text"


def value_param(spec: ToolSpec, *, places: bool = False) -> str | None:
    """The one short-text parameter of a read-only tool that also takes data: the value it
    selects, filters or looks up by (a column's name, a category). None for any other tool."""
    if spec.effect != "read_only":
        return None
    req = required_params(spec)
    texts = [
        p
        for p in req
        if param_types(spec, p) == {"string"}
        and not is_path_param(spec, p, places=places)
        and not any(k in (properties(spec).get(p) or {}) for k in ("enum", "const"))
    ]
    return texts[0] if len(texts) == 1 and len(req) >= 2 else None


def filter_param(spec: ToolSpec, *, places: bool = False) -> str | None:
    """The text parameter of a filtering tool, or None: a read-only tool taking one list and one
    short text (not a file name, not an enum) and returning a list of the same items -- some of
    the items, chosen by the text."""
    req = required_params(spec)
    out = spec.output_schema
    if spec.effect != "read_only" or len(req) != 2 or out is None or types_of(out, out) != {"array"}:
        return None
    lists = [p for p in req if param_types(spec, p) == {"array"}]
    texts = [
        p
        for p in req
        if param_types(spec, p) == {"string"}
        and not is_path_param(spec, p, places=places)
        and not any(k in (properties(spec).get(p) or {}) for k in ("enum", "const"))
    ]
    if len(lists) != 1 or len(texts) != 1:
        return None
    want_items = item_types(properties(spec)[lists[0]], spec.input_schema)
    have_items = item_types(out, out)
    return texts[0] if fits({"array"}, have_items, {"array"}, want_items) else None


def range_params(spec: ToolSpec, *, times: bool = False, formats: bool = False) -> tuple[str, str] | None:
    """The two date parameters of a tool picking items within a range of days (a read-only tool
    taking one list and two date texts, returning a list of the same items), first day first;
    with ``times``, the two time parameters of one picking items within a range of times of
    day ("from earliest to latest (HH:MM)") too; None for any other tool. With ``formats``, the
    kinds are read as ``param_kind(formats=True)`` reads them (a spelled format first)."""
    req = required_params(spec)
    out = spec.output_schema
    if spec.effect != "read_only" or len(req) != 3 or out is None or types_of(out, out) != {"array"}:
        return None
    lists = [p for p in req if param_types(spec, p) == {"array"}]
    dates: list[str] = []
    for kind in ("date", "time") if times else ("date",):
        dates = [
            p
            for p in req
            if param_types(spec, p) == {"string"} and param_kind(spec, p, formats=formats) == kind
        ]
        if len(dates) == 2:
            break
    if len(lists) != 1 or len(dates) != 2:
        return None
    want_items = item_types(properties(spec)[lists[0]], spec.input_schema)
    if not fits({"array"}, item_types(out, out), {"array"}, want_items):
        return None
    return dates[0], dates[1]


# A format a description spells out: a date's ("YYYY-MM-DD", "DD/MM/YYYY"), a time's ("HH:MM").
_FORMATS = {"date": re.compile(r"\bYYYY\b|\bYYYY[-/]|[-/]YYYY\b"), "time": re.compile(r"\bHH:MM\b")}


def formatted_kind(spec: ToolSpec, pname: str, *, places: bool = False) -> str:
    """The kind ("date", "time") of value a parameter takes when its own description spells
    the format out, or its tool's does and it is the value (or a bound of the range) the tool
    selects by; "" otherwise."""
    kind = param_kind(spec, pname)
    pattern = _FORMATS.get(kind)
    if pattern is None or is_path_param(spec, pname, places=places):
        return ""
    own = str((properties(spec).get(pname) or {}).get("description") or "")
    selects = pname == value_param(spec, places=places) or pname in (range_params(spec, times=True) or ())
    return kind if pattern.search(own) or (selects and pattern.search(spec.description)) else ""


def days_by_range_only(tools: Mapping[str, ToolSpec], *, places: bool = False) -> bool:
    """Whether the tool set keeps items by days only through a range (a tool with two date
    parameters) and has no filter by one date: one day is then the range from it to itself."""
    ranged = any(
        (pair := range_params(spec)) is not None and param_kind(spec, pair[0]) == "date"
        for spec in tools.values()
    )
    return ranged and not any(
        (pname := value_param(spec, places=places)) is not None and param_kind(spec, pname) == "date"
        for spec in tools.values()
    )
