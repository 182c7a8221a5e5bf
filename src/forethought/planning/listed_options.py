"""Listed options: the values a tool lists for a text parameter ("units: mm, cm, m, km"), and
which of the goal's words each such parameter takes.

A tool that lists a parameter's options explains those words, so the goal words that name them
are not offered as values by the usual rules ("convert 5 km to m" had both units bound to "m",
the one listed word short enough to escape being "explained"). Here a listed option the goal
says is a value for the parameters the list belongs to, each taking a different one, in the
goal's order, and a parameter named with a preposition ("to_unit", "from_unit") takes the word
the goal puts after that preposition ("to m").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from forethought.planning.bm25 import terms
from forethought.tools.base import ToolSpec

# Words joined by commas, slashes, bars or "or" after a colon, "one of" or "(" and the word
# before it ("units: mm, cm, m, km", "format (csv or json)").
_LIST_RE = re.compile(
    r"([a-z][\w-]*)?\s*(?::|\bone of|\()\s*([a-z][\w-]*(?:(?:\s*[,/|]\s*|,?\s+or\s+)[a-z][\w-]*)+)",
    re.IGNORECASE,
)
_PREPOSITIONS = frozenset(("to", "from", "into", "in", "as"))
_WORD_RE = re.compile(r"[A-Za-z0-9]+(?:\.\d+)?")
_NUMBER_RE = re.compile(r"\d+(?:\.\d+)?")


def _words(text: str) -> frozenset[str]:
    return frozenset(w.lower() for w in re.split(r"[\s,/|]+", text) if w and w.lower() != "or")


def listed_options(spec: ToolSpec, pname: str) -> frozenset[str]:
    """The options listed for ``pname``: its own description's list, or a list in the tool's
    description after a word naming the parameter ("units: …" for ``unit`` and ``to_unit``).
    Enums are left to the schema (the grammar already restricts them)."""
    prop = (spec.input_schema.get("properties") or {}).get(pname)
    own = str(prop.get("description", "")) if isinstance(prop, Mapping) else ""
    for m in _LIST_RE.finditer(own):
        return _words(m.group(2))
    named = set(terms(pname))
    for m in _LIST_RE.finditer(spec.description):
        if m.group(1) and set(terms(m.group(1))) & named:
            return _words(m.group(2))
    return frozenset()


def _preposition(pname: str) -> str | None:
    """The preposition a parameter's name starts with ("to_unit" → "to"), if any."""
    first = re.split(r"[_\W]+|(?<=[a-z])(?=[A-Z])", pname)[0].lower()
    return first if first in _PREPOSITIONS else None


def option_words(spec: ToolSpec, pname: str, goal: str, taken: Sequence[str]) -> list[str]:
    """The goal's words among ``pname``'s listed options that it may take, best first: the word
    after the preposition its name starts with, else the first word not ``taken`` by an earlier
    parameter and not claimed by a sibling's preposition, the one after a number first unless
    the name starts with "to". [] when no option is listed or said."""
    options = listed_options(spec, pname)
    if not options:
        return []
    tokens = [t.lower() for t in _WORD_RE.findall(goal)]
    # An option that is also a preposition ("in" for inches) counts only as a number's unit or
    # a preposition's object ("12 in", "to in").
    said = [
        (i, t)
        for i, t in enumerate(tokens)
        if t in options
        and (
            t not in _PREPOSITIONS
            or (i and (_NUMBER_RE.fullmatch(tokens[i - 1]) or tokens[i - 1] in _PREPOSITIONS))
        )
    ]
    own = _preposition(pname)
    if own is not None:
        # "to m", "in m", "into m", "as m" all name a target; "from ft" names a source.
        heads = {own} if own == "from" else _PREPOSITIONS - {"from"}
        after = [t for i, t in said if i and tokens[i - 1] in heads and t not in taken]
        if after:
            return after[:1]
    siblings: set[str] = set()
    for p in spec.input_schema.get("properties") or {}:
        other = _preposition(p) if p != pname and listed_options(spec, p) == options else None
        if other is not None:
            siblings |= {other} if other == "from" else _PREPOSITIONS - {"from"}
    free = [(i, t) for i, t in said if t not in taken and not (i and tokens[i - 1] in siblings)]
    # The option right after a number is that quantity's own ("3 ft"): what a parameter with no
    # preposition (or "from") converts or measures from; one with "to" takes it last.
    measured = [t for i, t in free if i and _NUMBER_RE.fullmatch(tokens[i - 1])]
    rest = [t for _, t in free if t not in measured]
    ordered = rest + measured if own is not None and own != "from" else measured + rest
    return list(dict.fromkeys(ordered))
