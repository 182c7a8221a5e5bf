"""Quantities a goal says in one unit for a parameter counted in another ("longer than a
second" for ``ms``, "more than a quarter of a second", "half a minute", "two and a half hours"):
the unit a numeric parameter's name or description gives, the goal's quantities of the same
dimension, and the goal with each such quantity written as the parameter's number ("longer than
1000 milliseconds"). Used by the planner's ``converted_units`` and by the coverage check, which
counts a converted number as the goal's, as it counts a spelled one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from forethought.plan._schema import types_of
from forethought.plan.number_words import NUMBER_WORDS
from forethought.plan.tool_spec import ToolSpec


@dataclass(frozen=True)
class Unit:
    """A unit: its dimension, its size in the dimension's base unit, the name a rewritten goal
    uses, and every spelling a goal or a parameter may use."""

    dimension: str
    size: float
    name: str
    spellings: tuple[str, ...]
    # Spellings too short or too common to trust in a goal's prose ("m" for metres or minutes):
    # recognised in a parameter's name only.
    name_only: tuple[str, ...] = ()


UNITS = (
    Unit("time", 0.001, "milliseconds", ("millisecond", "milliseconds", "ms", "msec", "msecs")),
    Unit("time", 1.0, "seconds", ("second", "seconds", "sec", "secs"), ("s",)),
    Unit("time", 60.0, "minutes", ("minute", "minutes", "min", "mins")),
    Unit("time", 3600.0, "hours", ("hour", "hours", "hr", "hrs"), ("h",)),
    Unit("size", 1.0, "bytes", ("byte", "bytes")),
    Unit("size", 1024.0, "kilobytes", ("kilobyte", "kilobytes", "kb", "kib")),
    Unit("size", 1024.0**2, "megabytes", ("megabyte", "megabytes", "mb", "mib")),
    Unit("size", 1024.0**3, "gigabytes", ("gigabyte", "gigabytes", "gb", "gib")),
    Unit("mass", 0.001, "milligrams", ("milligram", "milligrams", "mg")),
    Unit("mass", 1.0, "grams", ("gram", "grams", "gramme", "grammes"), ("g",)),
    Unit("mass", 1000.0, "kilograms", ("kilogram", "kilograms", "kilo", "kilos", "kg", "kgs")),
    Unit("mass", 1_000_000.0, "tonnes", ("tonne", "tonnes")),
    Unit("length", 0.001, "millimetres", ("millimetre", "millimetres", "millimeter", "millimeters", "mm")),
    Unit("length", 0.01, "centimetres", ("centimetre", "centimetres", "centimeter", "centimeters", "cm")),
    Unit("length", 1.0, "metres", ("metre", "metres", "meter", "meters"), ("m",)),
    Unit("length", 1000.0, "kilometres", ("kilometre", "kilometres", "kilometer", "kilometers", "km")),
    Unit("volume", 0.001, "millilitres", ("millilitre", "millilitres", "milliliter", "milliliters", "ml")),
    Unit("volume", 1.0, "litres", ("litre", "litres", "liter", "liters"), ("l",)),
)
_IN_PROSE = {s: u for u in UNITS for s in u.spellings}
_IN_NAMES = {**_IN_PROSE, **{s: u for u in UNITS for s in u.name_only}}

# Fractions said in words, before "of a"/"of an" or after "and a" ("a quarter of a second",
# "two and a half hours", "an hour and a half").
_FRACTIONS = {"half": 0.5, "quarter": 0.25, "third": 1 / 3, "tenth": 0.1}
_COUNT = r"(\d+(?:\.\d+)?|an?|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")"
_UNIT = r"(" + "|".join(sorted(_IN_PROSE, key=len, reverse=True)) + r")"
# Words that may follow "a second" said as a length of time; any other word after it ("a
# second file") makes "second" an ordinal.
_AFTER_SECOND = {"and", "or", "to", "in", "on", "of", "per", "long", "each", "but", "than"}
_QUANTITY_RES = (
    # "three quarters of an hour", "a quarter of a second", "half a minute", "half an hour"
    re.compile(
        rf"\b(?:(an?|one|two|three)\s+)?(half|quarter|third|tenth)s?\s+(?:of\s+)?(?:an?|one)\s+{_UNIT}\b",
        re.IGNORECASE,
    ),
    # "two and a half hours", "1 and a half minutes"
    re.compile(rf"\b{_COUNT}\s+and\s+an?\s+(half|quarter)\s+{_UNIT}\b", re.IGNORECASE),
    # "an hour and a half"
    re.compile(rf"\b{_COUNT}(?:\s+|-)?{_UNIT}\s+and\s+an?\s+(half|quarter)\b", re.IGNORECASE),
    # "a second", "2.5 minutes", "ten seconds", "90s" is left out (no unit word)
    re.compile(rf"(?<![\w.]){_COUNT}(?:\s+|-)?{_UNIT}\b", re.IGNORECASE),
)


# Quoted text and file names: never read as quantities. A name starts where a word does (the
# look-behind): tried from inside a long word, it re-read the word to its end (quadratic).
_GIVEN_RE = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|`[^`\n]*`|(?<![\w./-])[\w./-]+\.[A-Za-z][A-Za-z0-9]{0,7}\b")


@dataclass(frozen=True)
class Quantity:
    """A quantity the goal says: where (start, end), how much, in which unit, and whether it
    was said in digits and its own unit's plain number (nothing to convert but the unit)."""

    start: int
    end: int
    amount: float
    unit: Unit
    in_digits: bool


def _count(word: str) -> float | None:
    lowered = word.lower()
    if lowered in ("a", "an"):
        return 1.0
    if lowered in NUMBER_WORDS:
        return float(NUMBER_WORDS[lowered])
    try:
        return float(lowered)
    except ValueError:
        return None


def _ordinal_second(goal: str, end: int, unit: Unit, count: str) -> bool:
    """Whether "a second" ending at ``end`` is the ordinal ("a second file"), not a time."""
    if unit.name != "seconds" or count.lower() not in ("a", "an", "one"):
        return False
    rest = re.match(r"\s*([A-Za-z]+)", goal[end:])
    return rest is not None and rest.group(1).lower() not in _AFTER_SECOND


def goal_quantities(goal: str) -> list[Quantity]:
    """Every quantity ``goal`` says with a unit word, fractions and words included, in order;
    one that overlaps an earlier (longer) pattern's is left out."""
    found: list[Quantity] = []
    # Quoted text is given, not a quantity to convert ("write "done in a second" to a.txt"), and
    # a file's name is a name ("5kg.txt"): both are taken before any quantity.
    taken: list[tuple[int, int]] = [m.span() for m in _GIVEN_RE.finditer(goal)]

    def add(m: re.Match[str], amount: float, unit: Unit, in_digits: bool) -> None:
        if any(m.start() < e and s < m.end() for s, e in taken):
            return
        taken.append((m.start(), m.end()))
        found.append(Quantity(m.start(), m.end(), amount, unit, in_digits))

    fractions, and_a_fraction, unit_and_fraction, plain = _QUANTITY_RES
    for m in fractions.finditer(goal):
        times = 1.0 if m.group(1) is None or m.group(1).lower() in ("a", "an") else _count(m.group(1)) or 1.0
        add(m, times * _FRACTIONS[m.group(2).lower()], _IN_PROSE[m.group(3).lower()], False)
    for m in and_a_fraction.finditer(goal):
        count = _count(m.group(1))
        if count is not None:
            add(m, count + _FRACTIONS[m.group(2).lower()], _IN_PROSE[m.group(3).lower()], False)
    for m in unit_and_fraction.finditer(goal):
        count = _count(m.group(1))
        if count is not None:
            add(m, count + _FRACTIONS[m.group(3).lower()], _IN_PROSE[m.group(2).lower()], False)
    for m in plain.finditer(goal):
        count = _count(m.group(1))
        unit = _IN_PROSE[m.group(2).lower()]
        if count is None or _ordinal_second(goal, m.end(), unit, m.group(1)):
            continue
        add(m, count, unit, m.group(1)[0].isdigit())
    return sorted(found, key=lambda q: q.start)


def param_unit(spec: ToolSpec, pname: str) -> Unit | None:
    """The unit numeric parameter ``pname`` of ``spec`` is counted in, from its name ("dur_ms",
    "max_seconds", "weight_kg") or, failing that, its description or the tool's ("… than ms
    *milliseconds*", "(in grams)"); None when it says none or more than one."""
    props = spec.input_schema.get("properties") or {}
    schema = props.get(pname)
    if not isinstance(schema, dict) or not (types_of(schema, spec.input_schema) or set()) & {
        "integer",
        "number",
    }:
        return None
    named = {_IN_NAMES[w] for w in re.split(r"[^a-z]+", pname.lower()) if w in _IN_NAMES}
    if len(named) == 1:
        return named.pop()
    if named:
        return None
    said: set[Unit] = set()
    own = str(schema.get("description") or "")
    for text in (own, spec.description or ""):
        for m in re.finditer(rf"\b(?:in|{re.escape(pname)})\s+{_UNIT}\b", text, re.IGNORECASE):
            said.add(_IN_PROSE[m.group(1).lower()])
        if said:
            break
    return said.pop() if len(said) == 1 else None


def param_units(tools: Mapping[str, ToolSpec]) -> set[Unit]:
    """The units the tools' numeric parameters are counted in."""
    out: set[Unit] = set()
    for spec in tools.values():
        for pname in spec.input_schema.get("properties") or {}:
            unit = param_unit(spec, str(pname))
            if unit is not None:
                out.add(unit)
    return out


def _digits(value: float) -> str:
    rounded = round(value, 6)
    return str(int(rounded)) if float(rounded).is_integer() else f"{rounded:g}"


def converted_units(goal: str, tools: Mapping[str, ToolSpec]) -> str:
    """``goal`` with each quantity said in another unit than the one the tools' parameters of
    its dimension are counted in (all in one unit) written as that unit's number: "longer than a
    second" → "longer than 1000 milliseconds" for ``ms``, "half a minute" → "30 seconds" for
    ``seconds``; one in the parameters' own unit only when said as a fraction ("half a second" →
    "0.5 seconds"). A goal whose dimension has no such parameter, or parameters in two units, is left
    as it is."""
    by_dimension: dict[str, set[Unit]] = {}
    for unit in param_units(tools):
        by_dimension.setdefault(unit.dimension, set()).add(unit)
    out = goal
    for q in reversed(goal_quantities(goal)):
        targets = by_dimension.get(q.unit.dimension, set())
        if len(targets) != 1:
            continue
        target = next(iter(targets))
        if target == q.unit and (q.in_digits or q.amount.is_integer()):
            continue  # "seven kg" for kilograms: a number word, no conversion (``unit_numbers``)
        out = f"{out[: q.start]}{_digits(q.amount * q.unit.size / target.size)} {target.name}{out[q.end :]}"
    return out


def converted_numbers(goal: str) -> set[float]:
    """Every number a quantity of ``goal`` comes to in each unit of its dimension ("a quarter of
    a second": 0.25, 250, …): the goal's numbers, said in another unit."""
    found: set[float] = set()
    for q in goal_quantities(goal):
        for unit in UNITS:
            if unit.dimension == q.unit.dimension:
                found.add(round(q.amount * q.unit.size / unit.size, 6))
    return found
