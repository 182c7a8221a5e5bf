"""What a question word asks of a record, and which of the record's fields answers it.

"Who" asks for a person, "how much" and "how many" for an amount, "when" for a date
(``asked_kind``). Of a record's fields, the one of that kind is what is written
(``answering_fields``): a person by its name ("owner"), an "-ee" ending ("payee", "assignee"), or a
tool that describes it as people ("list_requesters: the people who raised …", "payee (the
shop, person or company …)"); an amount by its number type; a date by its name ("date",
"created_at") or a tool that says it is a date ("the opened date"). General English and the
tools' own schemas and descriptions, never the words of a particular tool set.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Mapping, Sequence
from typing import Literal

from forethought.plan.verbs import GENERIC_VERBS, SYNONYMS
from forethought.planning.bm25 import STOP_WORDS
from forethought.planning.tool_roles import properties
from forethought.planning.word_classes import (
    PERSON_FIELD_NOUNS,
    PERSON_NOUNS,
    WHO_WORDS,
    same_word,
    singular,
)
from forethought.tools.base import ToolSpec

# "person": "who" asks for the doer ("who *opened* it"); "patient": for the one acted on ("who
# did I pay", "whom", "who was assigned").
Asked = Literal["person", "patient", "amount", "date", ""]

_WORD_RE = re.compile(r"[A-Za-z]+")
_HOW_MUCH_RE = re.compile(r"\bhow\s+(?:much|many)\b", re.IGNORECASE)
# "When" opening a sentence asks for a date; inside one it joins clauses ("when done, …").
_WHEN_RE = re.compile(r"(?:\A|[.?!;:]\s+)when\b", re.IGNORECASE)
# Nouns ending in "-ee" that name no person (the suffix otherwise makes one: payee, employee).
_EE_NOT_PERSONS = frozenset(
    (
        "agree",
        "coffee",
        "decree",
        "degree",
        "filigree",
        "guarantee",
        "jamboree",
        "marquee",
        "matinee",
        "pedigree",
        "puree",
        "settee",
        "soiree",
        "spree",
        "three",
        "toffee",
    )
)
# Words that make a field a date or time ("date", "created_at", "the opened date").
_DATE_WORDS = frozenset(("date", "dates", "day", "time", "timestamp", "datetime", "when"))
_NUMBER_TYPES = frozenset(("number", "integer"))


# "Who" with a subject of its own ("who did *I* pay", "who was *the* ticket given to") or a
# passive ("who was *assigned*") asks for the one acted on, not the doer.
_WHO_PATIENT_RE = re.compile(
    r"\bwhom\b|\bwho\s+(?:did|do|does|will|would|should|can|could|have|has|had)\s+"
    r"(?:i|we|you|he|she|they|the|a|an|my|our|your|his|her|their)\b"
    r"|\bwho\s+(?:was|were|is|are|has\s+been|have\s+been|got|gets)\s+[a-z]+ed\b",
    re.IGNORECASE,
)


# "On which day …", "what date …": a day is asked for, not a time of day.
_DAY_QUESTION_RE = re.compile(r"\b(?:which|what)\s+(?:day|date)\b", re.IGNORECASE)
_DAY_WORDS = frozenset(("date", "dates", "day", "days"))


def asks_day(goal: str) -> bool:
    """Whether the goal asks which day ("on which day did …", "what date …")."""
    return bool(_DAY_QUESTION_RE.search(goal))


def day_fields(fields: set[str]) -> set[str]:
    """Of date fields, those naming a day ("date", "due_day"), not a time of day; all of them
    when none does."""
    return {f for f in fields if set(_words(f)) & _DAY_WORDS} or fields


def asked_kind(goal: str) -> Asked:
    """What the goal's question word asks for: "person" (who, whose: the doer), "patient"
    (whom, or "who" with a subject of its own or a passive: the one acted on), "amount" (how
    much, how many), "date" (a sentence opening with "when"), else ""."""
    if any(w.lower() in WHO_WORDS for w in _WORD_RE.findall(goal)):
        return "patient" if _WHO_PATIENT_RE.search(goal) else "person"
    if _HOW_MUCH_RE.search(goal):
        return "amount"
    if _WHEN_RE.search(goal):
        return "date"
    return ""


def _words(name: str) -> list[str]:
    """A field's or tool's name as lower-case words ("created_at" → created, at; "payeeName" →
    payee, name)."""
    return [w.lower() for w in _WORD_RE.findall(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name))]


def _plural(word: str) -> set[str]:
    return {word, word + "s", word + "es"}


def _described_as_people(head: str, tools: Mapping[str, ToolSpec]) -> bool:
    """Whether a tool named after the field, or with a parameter of its name, describes it
    with a person noun ("list_requesters: the people who raised …", a parameter ``payee``:
    "the shop, person or company …")."""
    persons = PERSON_NOUNS - {"who"}
    for spec in tools.values():
        named = set(_words(spec.name)) | {w for p in properties(spec) for w in _words(p)}
        if named & _plural(head) and set(_words(spec.description)) & persons:
            return True
    return False


def is_person_field(name: str, tools: Mapping[str, ToolSpec]) -> bool:
    """A field that names a person: a person noun or "name" ("owner", "full_name"), an "-ee"
    noun ("payee", "assignee"), or one a tool describes as people."""
    words = _words(name)
    if not words:
        return False
    head = words[-1]
    if any(w in PERSON_FIELD_NOUNS for w in words):
        return True
    if _is_ee_noun(head):
        return True
    return _described_as_people(head, tools)


def is_date_field(name: str, tools: Mapping[str, ToolSpec], *, derived: bool = False) -> bool:
    """A field that holds a date or time: by its name ("date", "due_day", "created_at") or a
    tool's description calling it one ("the opened date", "its start time"); with ``derived``,
    also by a word of the same stem ("collected": "the collection date", "sown": no)."""
    words = _words(name)
    if not words:
        return False
    if set(words) & _DATE_WORDS or (len(words) > 1 and words[-1] in ("at", "on")):
        return True
    head = words[-1]
    for spec in tools.values():
        said = _words(spec.description)
        if any(a in _plural(head) and b in _DATE_WORDS for a, b in itertools.pairwise(said)):
            return True
        if derived and any(
            len(head) >= 6 and a[:6] == head[:6] and b in _DATE_WORDS for a, b in itertools.pairwise(said)
        ):
            return True
    return False


def _is_ee_noun(head: str) -> bool:
    """An "-ee" noun: the one an action is done to ("payee", "assignee", "employee")."""
    return len(head) >= 5 and head.endswith("ee") and head not in _EE_NOT_PERSONS


def answering_fields(
    asked: Asked,
    fields: Mapping[str, frozenset[str] | None],
    tools: Mapping[str, ToolSpec],
    *,
    derived: bool = False,
) -> set[str]:
    """Of a record's fields (name → JSON types), those of the kind the question asks. Of
    several person fields, "who" as the doer prefers those that are no "-ee" noun ("who opened
    …" → requester, not assignee), "who" as the one acted on the "-ee" nouns ("who did I pay"
    → payee)."""
    if asked in ("person", "patient"):
        persons = {f for f in fields if is_person_field(f, tools)}
        patients = {f for f in persons if _words(f) and _is_ee_noun(_words(f)[-1])}
        preferred = patients if asked == "patient" else persons - patients
        return preferred or persons
    if asked == "amount":
        return {f for f, t in fields.items() if t and t <= _NUMBER_TYPES}
    if asked == "date":
        return {f for f in fields if is_date_field(f, tools, derived=derived)}
    return set()


# Verbs that put a result somewhere: their object is what is written ("write *the variety*
# to a.txt", "list *the titles* in b.txt").
_WRITING_VERBS = sorted({*SYNONYMS["write"], *GENERIC_VERBS}, key=len, reverse=True)
_WRITING_RE = re.compile(r"\b(?:" + "|".join(_WRITING_VERBS) + r")\b", re.IGNORECASE)
_PLACE_RE = r"\b(?:to|in|into|as|under|at)\s+(?:(?:a|an|the|new|file|named|called)\s+)*"
# "Which plant …", "what variety …": the noun the question asks about.
_WHICH_RE = re.compile(r"\b(?:which|what)\s+([A-Za-z]+)", re.IGNORECASE)
_NAME_WORDS = frozenset(("name", "names"))


def _said_by(word: str, field: str) -> bool:
    """Whether a goal word names a field ("sowing" the ``sown`` field, "variety" ``variety``):
    one of the field's words is the same word up to an inflection; short words must be equal."""
    w = singular(word.lower())
    for part in _words(field):
        p = singular(part)
        if w == p or (min(len(w), len(p)) >= 4 and same_word(w, p)):
            return True
    return False


# What ends the noun phrase after a label: a relative word, a preposition of place, a clause's end.
_SENTENCE_BREAK_RE = re.compile(r"[.?!;:]\s")
_PHRASE_END_RE = re.compile(r"\b(?:that|which|who|whom|whose|where|when|in|on|from|at|for)\b|[,.?!;:]")


def written_phrase(goal: str, outputs: Sequence[str], *, labels: bool = False) -> str:
    """The noun phrase a writing verb takes before the place an output goes ("Write *the
    plant's name* to first.txt", "put *the variety* in a.txt"), "" when the goal says none.
    With ``labels``, the noun phrase after an output labelling the goal ("a.txt: *the
    platform* that …", "a.txt - *the keeper* of …") too."""
    if labels:
        for out in outputs:
            label = re.match(rf"\s*{re.escape(out)}\s*(?::|-|–|—)\s+(.*)", goal, re.DOTALL)
            if label:
                return _PHRASE_END_RE.split(label.group(1), maxsplit=1)[0].strip()
    # Where sentences start and where writing verbs end, found once: a goal naming its output
    # thousands of times had been split and searched again before each mention (quadratic).
    starts = [m.end() for m in _SENTENCE_BREAK_RE.finditer(goal)]
    verbs = [(m.start(), m.end()) for m in _WRITING_RE.finditer(goal)]
    verb_starts = [start for start, _ in verbs]
    for out in outputs:
        place = re.compile(_PLACE_RE + re.escape(out) + r"(?![\w/-]|\.\w)", re.IGNORECASE)
        for end in place.finditer(goal):
            cut = end.start()
            opened = bisect.bisect_right(starts, cut)
            sentence_start = starts[opened - 1] if opened else 0
            # the sentence's last writing verb that ends before the place
            k = bisect.bisect_right(verb_starts, cut) - 1
            while k >= 0 and verbs[k][0] >= sentence_start and verbs[k][1] > cut:
                k -= 1
            if k >= 0 and verbs[k][0] >= sentence_start:
                return goal[verbs[k][1] : cut].strip()
    return ""


def _glossed_as_date(field: str, tools: Mapping[str, ToolSpec]) -> bool:
    """Whether a tool's description glosses the field as a date in parentheses right after its
    name ("sown (the sowing date)", "added (when it was stocked)")."""
    pattern = re.compile(rf"\b{re.escape(field)}\s*\(([^)]*)\)", re.IGNORECASE)
    for spec in tools.values():
        for m in pattern.finditer(spec.description):
            if {w.lower() for w in _WORD_RE.findall(m.group(1))} & _DATE_WORDS:
                return True
    return False


def written_fields(
    goal: str,
    outputs: Sequence[str],
    fields: Mapping[str, object],
    tools: Mapping[str, ToolSpec],
    *,
    labels: bool = False,
    derived: bool = False,
) -> set[str]:
    """Of a record's fields, those the phrase a writing verb takes names ("write the plant's
    name" → ``plant``, "the variety" → ``variety``); for a date with no field of that name
    ("write its stocking date"), the fields that hold a date, by name or by a tool's gloss; for a
    name ("write its name"), the field the goal's "which"/"what" noun names ("Which plant …").
    Empty when the phrase names none (the question word decides then)."""
    phrase = written_phrase(goal, outputs, labels=labels)
    words = [w for w in _WORD_RE.findall(re.sub(r"\S*[./]\w\S*", " ", phrase)) if w.lower() not in STOP_WORDS]
    named = {f for f in fields if any(_said_by(w, f.rsplit(".", 1)[-1]) for w in words)}
    if named:
        return named
    if {w.lower() for w in words} & _DATE_WORDS:
        last = {f: f.rsplit(".", 1)[-1] for f in fields}
        return {
            f
            for f in fields
            if is_date_field(last[f], tools, derived=derived) or _glossed_as_date(last[f], tools)
        }
    if not any(w.lower() in _NAME_WORDS for w in words):
        return set()
    asked = [m.group(1) for m in _WHICH_RE.finditer(goal)]
    return {f for f in fields if any(_said_by(w, f.rsplit(".", 1)[-1]) for w in asked)}
