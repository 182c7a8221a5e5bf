""" "How many *tickets* did X sell" asks for an amount a tool sums, not for a count of items.

"How many" asks for a count ("how many screenings"), but before a noun that no counting tool
counts and that a summing tool totals ("Total number of tickets sold"), or beside a verb that
names such a tool ("how many seats were *sold*" for ``tickets_sold``), it asks for that total:
said as "total number", as ``word_classes.measured_amounts`` says it before a unit of measure.
Judged by the tools' names and descriptions only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from forethought.plan._schema import types_of
from forethought.planning.bm25 import STOP_WORDS, stem, terms
from forethought.tools.base import ToolSpec

# "How many" and the noun it asks about, with the rest of its sentence.
_HOW_MANY_RE = re.compile(r"\bhow\s+many\s+([A-Za-z][A-Za-z-]*)([^.?!;:]*)", re.IGNORECASE)
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z-]*")
# A description or name saying a sum: "total", "sum", "altogether", "in all".
_SUM_TERMS = frozenset(stem(w) for w in ("total", "sum", "summed", "altogether"))
# What a counting tool's words become ("how many …" → "count number"; ``count_x``).
_COUNT_TERMS = frozenset(stem(w) for w in ("count", "counts", "counted"))


def _numeric(spec: ToolSpec) -> bool:
    schema = spec.output_schema or {}
    return bool((types_of(schema, schema) or set()) & {"integer", "number"})


def _words(spec: ToolSpec) -> set[str]:
    return set(terms(spec.name)) | set(terms(spec.description))


def summing_tools(tools: Mapping[str, ToolSpec]) -> dict[str, tuple[set[str], set[str]]]:
    """Tools returning a number whose name or description says a sum and that count nothing:
    name → (the terms of their name and description, the terms of their name)."""
    out: dict[str, tuple[set[str], set[str]]] = {}
    for name, spec in tools.items():
        words = _words(spec)
        if _numeric(spec) and words & _SUM_TERMS and not words & _COUNT_TERMS:
            out[name] = (words, set(terms(name)))
    return out


def counted_nouns(tools: Mapping[str, ToolSpec]) -> set[str]:
    """The terms of tools that count ("How many screenings there are", ``count_days``): the
    items they count are among them."""
    out: set[str] = set()
    for spec in tools.values():
        words = _words(spec)
        if words & _COUNT_TERMS and not words & _SUM_TERMS:
            out |= words
    return out


def summed_counts(goal: str, tools: Mapping[str, ToolSpec]) -> str:
    """``goal`` with "how many" said as "total number" where it asks for an amount a tool sums:
    the noun after it is counted by no counting tool, and a summing tool's name or description
    says that noun ("how many tickets did X sell" beside "Total number of tickets sold"), or its
    name says another word of the sentence ("how many seats were sold" beside
    ``tickets_sold``)."""
    summing = summing_tools(tools)
    if not summing:
        return goal
    counted = counted_nouns(tools)

    def said(m: re.Match[str]) -> str:
        noun = stem(m.group(1))
        if m.group(1).lower() in STOP_WORDS or noun in counted:
            return m.group(0)
        rest = {stem(w) for w in _WORD_RE.findall(m.group(2)) if w.lower() not in STOP_WORDS}
        rest -= counted
        for words, named in summing.values():
            if noun in words or rest & (named - _SUM_TERMS):
                return "total number " + m.group(1) + m.group(2)
        return m.group(0)

    return _HOW_MANY_RE.sub(said, goal)
