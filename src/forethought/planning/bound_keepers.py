"""A bound the goal puts on a number ("more than ten mites", "above five metres", "lower than a
metre") and the tool that keeps items by it.

A *bound keeper* is a read-only tool that keeps some of a list by one numeric parameter
(``higher_than(tides, metres)``, ``mites_above(inspections, threshold)``) and says which way it
keeps, by its name or else its description ("above", "more", "higher" keep what is over the
number; "below", "less", "lower" what is under it). A goal's bound is a comparative, a number
(digits, a number word, or "a"/"an" for one) and the noun counted. The keeper of the bound's way
that says the bound's noun (by its name, a parameter's name or its description) is the one that
keeps the goal's items: it goes into chains as a value's filter does, and a keeper the other way
does not (``bounded_keepers``). The number is written in digits first (``bounded_numbers``:
"more than ten mites" → "more than 10 mites", "lower than a metre" → "lower than 1 metre"), so
the numeric parameter takes it as it takes "more than 10".

General English and the tools' own names, schemas and descriptions; no tool set's words.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from typing import Literal

from forethought.plan._schema import fits, item_types, types_of
from forethought.plan.number_words import NUMBER_WORDS
from forethought.planning.bm25 import terms
from forethought.planning.tool_roles import param_types, properties, required_params
from forethought.tools.base import ToolSpec

Way = Literal["above", "below"]

_ABOVE = (
    r"more\s+than|over|above|higher\s+than|greater\s+than|larger\s+than|bigger\s+than|longer\s+than"
    r"|heavier\s+than|taller\s+than|exceeding|in\s+excess\s+of"
)
_BELOW = r"less\s+than|fewer\s+than|under|below|lower\s+than|smaller\s+than|shorter\s+than|lighter\s+than"
_WORD_NUMBERS = "|".join(sorted((w for w in NUMBER_WORDS if " " not in w), key=len, reverse=True))
# The comparative, the number (digits, a word, or "a"/"an" for one), the noun counted: every part
# a bounded run of letters or digits, so a long goal is read in linear time.
_BOUND_RE = re.compile(
    rf"\b(?P<way>{_ABOVE}|{_BELOW})\s+(?P<number>\d{{1,12}}(?:\.\d{{1,12}})?|{_WORD_NUMBERS}|an?)"
    r"(?:\s+(?P<noun>[A-Za-z]{1,40}))?\b",
    re.IGNORECASE,
)
_BELOW_RE = re.compile(rf"(?:{_BELOW})\Z", re.IGNORECASE)
# Quoted text is given, not a bound to read or rewrite ('write "more than ten" to a.txt').
_QUOTED_RE = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|`[^`\n]*`|(?<!\w)'[^'\n]*'(?!\w)")
# Words in a keeper's name or description saying which way it keeps.
_ABOVE_WORDS = frozenset(
    [
        "above",
        "over",
        "more",
        "higher",
        "greater",
        "larger",
        "bigger",
        "longer",
        "heavier",
        "taller",
        "exceed",
        "exceeds",
        "exceeding",
    ]
)
_BELOW_WORDS = frozenset(["below", "under", "less", "lower", "fewer", "smaller", "shorter", "lighter"])
_WORD_RE = re.compile(r"[a-z]+")


def _words(text: str) -> list[str]:
    return _WORD_RE.findall(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", text).lower())


def returns_list(spec: ToolSpec) -> bool:
    """Whether the tool returns a list (of items, not a number or a record)."""
    out = spec.output_schema
    return out is not None and types_of(out, out) == {"array"}


def numeric_keeper(spec: ToolSpec) -> str | None:
    """The one numeric parameter of a read-only tool that keeps some of a list (one list
    parameter, a list of the same items back), or None."""
    out = spec.output_schema
    lists = [p for p in required_params(spec) if param_types(spec, p) == {"array"}]
    if spec.effect != "read_only" or out is None or types_of(out, out) != {"array"} or len(lists) != 1:
        return None
    want_items = item_types(properties(spec)[lists[0]], spec.input_schema)
    if not fits({"array"}, item_types(out, out), {"array"}, want_items):
        return None
    numeric = [p for p in properties(spec) if (param_types(spec, p) or set()) & {"integer", "number"}]
    return numeric[0] if len(numeric) == 1 else None


def keeper_way(spec: ToolSpec) -> Way | None:
    """Which way a numeric keeper keeps: by the words of its name, else of its description;
    None when they say neither way or both."""
    for text in (spec.name, spec.description or ""):
        said = set(_words(text))
        above, below = bool(said & _ABOVE_WORDS), bool(said & _BELOW_WORDS)
        if above != below:
            return "above" if above else "below"
        if above:
            return None
    return None


def _said(spec: ToolSpec) -> frozenset[str]:
    """The BM25 terms a tool says a noun by: its name, its parameters' names, its description."""
    return frozenset(terms(" ".join([spec.name, *properties(spec), spec.description or ""])))


def _says(said: frozenset[str], noun: str) -> bool:
    """Whether a tool saying ``said`` (``_said``) says the noun counted ("mites" is
    ``mites_above``'s, "metre" ``metres``')."""
    noun_terms = set(terms(noun))
    return bool(noun_terms) and noun_terms <= said


def _unquoted(goal: str) -> list[re.Match[str]]:
    """The goal's bounds outside quoted text (a bisection per bound: linear in a long goal)."""
    spans = [m.span() for m in _QUOTED_RE.finditer(goal)]
    starts = [a for a, _ in spans]

    def quoted(at: int) -> bool:
        i = bisect.bisect_right(starts, at) - 1
        return i >= 0 and at < spans[i][1]

    return [m for m in _BOUND_RE.finditer(goal) if not quoted(m.start())]


def goal_bounds(goal: str) -> list[tuple[Way, str, str]]:
    """(way, number as said, noun or "") for each bound the goal states outside quoted text."""
    out: list[tuple[Way, str, str]] = []
    for m in _unquoted(goal):
        number, noun = m.group("number"), m.group("noun") or ""
        if number.lower() in ("a", "an") and not noun:
            continue
        way: Way = "below" if _BELOW_RE.search(m.group("way")) else "above"
        out.append((way, number, noun))
    return out


def bounded_keepers(goal: str, tools: Mapping[str, ToolSpec]) -> tuple[list[str], list[str]]:
    """(keepers the goal's bounds pick, keepers of the other way only): a numeric keeper picks a
    bound when it keeps the bound's way and says its noun (any keeper of the way, when the
    bound counts no noun)."""
    bounds = goal_bounds(goal)
    keepers = {n: w for n, s in tools.items() if numeric_keeper(s) is not None and (w := keeper_way(s))}
    if not bounds or not keepers:
        return [], []
    said = {n: _said(tools[n]) for n in keepers}
    picked: list[str] = []
    for way, _, noun in bounds:
        same = [n for n, w in keepers.items() if w == way]
        # "above 5", "more than 10 at …": no noun counted, any keeper of the way.
        picked += [n for n in same if _says(said[n], noun)] if terms(noun) else same
    picked = list(dict.fromkeys(picked))
    if not picked:
        return [], []
    ways = {keepers[n] for n in picked}
    return picked, [n for n, w in keepers.items() if w not in ways]


def bounded_numbers(goal: str, tools: Mapping[str, ToolSpec]) -> str:
    """``goal`` with the number of each bound a numeric keeper says the noun of written in
    digits: "more than ten mites" → "more than 10 mites", "lower than a metre" → "lower than 1
    metre". Unchanged where no keeper says the noun (no bound the tools keep by)."""
    keepers = [
        _said(s) for s in tools.values() if numeric_keeper(s) is not None and keeper_way(s) is not None
    ]
    if not keepers:
        return goal

    parts: list[str] = []
    known: dict[str, bool] = {}
    done = 0
    for m in _unquoted(goal):
        number, noun = m.group("number"), m.group("noun")
        if number[:1].isdigit() or not noun:
            continue
        if noun.lower() not in known:  # each noun's terms once: a goal may repeat a bound
            known[noun.lower()] = any(_says(s, noun) for s in keepers)
        if not known[noun.lower()]:
            continue
        value = 1 if number.lower() in ("a", "an") else NUMBER_WORDS[number.lower()]
        parts += [goal[done : m.start()], f"{m.group('way')} {value} {noun}"]
        done = m.end()
    return "".join([*parts, goal[done:]])
