"""Numbers a goal spells for a range or a bound ("between two and five kilos", "at most one
kilogram", "at least 10"): the low and high bound, numbers as digits or English words ("one" to
"a hundred", "forty-five" or "forty five"). Used by the planner's ``number_ranges`` and by the
coverage check, which counts such a number as the goal's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from forethought.plan._schema import types_of
from forethought.plan.tool_spec import ToolSpec

_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]
_TENS = ["thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
NUMBER_WORDS = {w: i for i, w in enumerate(_WORDS)}
# The tens past twenty, and each with a unit after a hyphen or a space ("forty-five").
for _tens, _word in enumerate(["twenty", *_TENS], 2):
    NUMBER_WORDS[_word] = _tens * 10
    for _unit in range(1, 10):
        for _joint in ("-", " "):
            NUMBER_WORDS[f"{_word}{_joint}{_WORDS[_unit]}"] = _tens * 10 + _unit
NUMBER_WORDS["hundred"] = NUMBER_WORDS["a hundred"] = NUMBER_WORDS["one hundred"] = 100
_NUMBER = r"(\d+(?:\.\d+)?|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")"
_BOTH_RES = (
    re.compile(rf"\bbetween\s+{_NUMBER}\s+and\s+{_NUMBER}\b", re.IGNORECASE),
    re.compile(rf"\bfrom\s+{_NUMBER}\s+(?:to|until|through)\s+{_NUMBER}\b", re.IGNORECASE),
)
_HIGH_RE = re.compile(
    rf"\b(?:at\s+most|no\s+more\s+than|not\s+more\s+than|up\s+to|under|below|less\s+than)\s+{_NUMBER}\b",
    re.IGNORECASE,
)
_LOW_RE = re.compile(
    rf"\b(?:at\s+least|no\s+less\s+than|not\s+less\s+than|over|above|more\s+than)\s+{_NUMBER}\b",
    re.IGNORECASE,
)


def spelled_number(text: str) -> float | int:
    """A number as digits or an English word ("five" → 5, "2.5" → 2.5)."""
    word = text.lower()
    value = float(NUMBER_WORDS[word]) if word in NUMBER_WORDS else float(word)
    return int(value) if value.is_integer() else value


def range_bounds(goal: str) -> tuple[float | int | None, float | int | None]:
    """The low and high bound the goal says (None for one it leaves open)."""
    for pattern in _BOTH_RES:
        m = pattern.search(goal)
        if m:
            a, b = spelled_number(m.group(1)), spelled_number(m.group(2))
            return min(a, b), max(a, b)
    high = _HIGH_RE.search(goal)
    low = _LOW_RE.search(goal)
    return (spelled_number(low.group(1)) if low else None), (spelled_number(high.group(1)) if high else None)


def bound_words(goal: str) -> list[tuple[int, str]]:
    """(start, digits) for each number the goal spells as a word in a range or bound ("under
    *forty* litres" → 40): a bound the goal states, as a number written in digits would be."""
    found: list[tuple[int, str]] = []
    for pattern in (*_BOTH_RES, _HIGH_RE, _LOW_RE):
        for m in pattern.finditer(goal):
            for i, g in enumerate(m.groups(), 1):
                if g is not None and g.lower() in NUMBER_WORDS:
                    found.append((m.start(i), str(NUMBER_WORDS[g.lower()])))
    return sorted(set(found))


def spelled_numbers(goal: str) -> set[float]:
    """The numbers the goal spells as words in a range or bound ("between two and five")."""
    found: set[float] = set()
    for pattern in (*_BOTH_RES, _HIGH_RE, _LOW_RE):
        for m in pattern.finditer(goal):
            found |= {float(spelled_number(g)) for g in m.groups() if g is not None}
    return found


_COUNTED_RE = re.compile(
    r"\b(" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")(?:-|\s+)([A-Za-z]+)\b", re.IGNORECASE
)


def numbered_units(goal: str, units: set[str]) -> str:
    """``goal`` with a number word before one of ``units`` (lower-case singular nouns) written in
    digits, the noun after a space: "four stars or more" → "4 stars or more", "the five-star
    tracks" → "the 5 star tracks" -- a number of that unit, as "4 stars" is."""

    def digits(m: re.Match[str]) -> str:
        noun = m.group(2)
        lowered = noun.lower()
        single = lowered[:-1] if len(lowered) > 3 and lowered.endswith("s") else lowered
        if single not in units and lowered not in units:
            return m.group(0)
        return f"{NUMBER_WORDS[m.group(1).lower()]} {noun}"

    return _COUNTED_RE.sub(digits, goal)


def unit_nouns(tools: Mapping[str, ToolSpec]) -> set[str]:
    """The nouns numeric parameters are named by, singular ("stars" → "star", "min_hours" →
    "hour"): units a number of the goal's may be counted in."""
    out: set[str] = set()
    for spec in tools.values():
        props = spec.input_schema.get("properties") or {}
        for pname, schema in props.items():
            if not (types_of(schema, spec.input_schema) or set()) & {"integer", "number"}:
                continue
            for word in re.split(r"[^a-z]+", str(pname).lower()):
                if len(word) > 2 and word not in ("min", "max", "num"):
                    out.add(word[:-1] if len(word) > 3 and word.endswith("s") else word)
    return out


def counted_numbers(goal: str, units: set[str]) -> list[tuple[str, int]]:
    """(phrase, number) for each number word the goal puts before one of ``units`` ("four
    stars" → 4, "the five-star tracks" → 5); "one" mostly is no number and is left out."""
    found: list[tuple[str, int]] = []
    for m in _COUNTED_RE.finditer(goal):
        lowered = m.group(2).lower()
        single = lowered[:-1] if len(lowered) > 3 and lowered.endswith("s") else lowered
        if m.group(1).lower() != "one" and (single in units or lowered in units):
            found.append((m.group(0), NUMBER_WORDS[m.group(1).lower()]))
    return found


# Words that stand for a number in arithmetic said in words: "15% of 240" is 15 / 100 * 240,
# "7 squared" is 7 ** 2. The planner writes them so (``planning.goal_expressions``).
_IMPLIED = (
    (re.compile(r"\d\s*%|\bper\s*cent\b", re.IGNORECASE), 100.0),
    (re.compile(r"\bsquared\b", re.IGNORECASE), 2.0),
    (re.compile(r"\bcubed\b", re.IGNORECASE), 3.0),
)


def implied_numbers(goal: str) -> set[float]:
    """The numbers ``goal``'s arithmetic words stand for (100 for a percentage, 2 for
    "squared", 3 for "cubed")."""
    return {number for pattern, number in _IMPLIED if pattern.search(goal)}
