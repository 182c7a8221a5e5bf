"""A filter's required boolean, decided from the goal (``Refinements.boolean_polarity``).

A tool keeping the items a flag says ("the bookings where the member came (showed_up true) or,
with showed_up false, the no-shows") is chosen for what the goal says of its subject: the goal
asks for the flag false when it negates that ("who *didn't* turn up", "were *no-shows*",
"*never* paid") or says the word the description gives the false value ("the no-shows",
"absentees"), else true. English negation and the description's own words, nothing of a tool
set's.
"""

from __future__ import annotations

import re

from forethought.plan._schema import fits, item_types, types_of
from forethought.planning.bm25 import STOP_WORDS, terms
from forethought.planning.tool_roles import param_types, properties, required_params
from forethought.tools.base import ToolSpec

# Negation: "not", "never", "no", "none", "without", "-n't", and "no-"/"non-" compounds
# ("no-shows", "non-members").
_NEGATION_RE = re.compile(r"\b(?:not|never|no|none|nobody|without)\b|n't\b|\bno-\w+|\bnon-\w+", re.IGNORECASE)
_SENTENCE_RE = re.compile(r"[^.?!;]+")


def _side_words(description: str, pname: str, side: str) -> set[str]:
    """Words a description gives one value of the flag ("with showed_up false, *the no-shows*",
    "showed_up false: absentees"): the words after "<pname> <side>" to the next punctuation."""
    words: set[str] = set()
    name = re.escape(pname).replace("_", "[_ ]")
    for m in re.finditer(rf"\b{name}\s+(?:is\s+|=\s*)?{side}\b[\s,:]*([^.;()]*)", description, re.IGNORECASE):
        words |= {w.lower() for w in re.findall(r"[A-Za-z][\w-]*", m.group(1)) if w.lower() not in STOP_WORDS}
    return words


def _says(goal: str, words: set[str]) -> bool:
    """Whether the goal says one of ``words`` (a plural "s" either side alike)."""
    said = {w.lower().rstrip("s") for w in re.findall(r"[A-Za-z][\w-]*", goal)}
    return any(w.rstrip("s") in said for w in words)


def boolean_options(spec: ToolSpec, pname: str, goal: str) -> list[bool]:
    """The flag's values, preferred first: false when the goal says the description's word for
    false or negates, in a sentence sharing a word with the tool, what the tool keeps; else true."""
    false_words = _side_words(spec.description, pname, "false")
    true_words = _side_words(spec.description, pname, "true")
    if false_words and _says(goal, false_words - true_words):
        return [False]
    own = set(terms(" ".join((spec.name, pname, spec.description))))
    for sentence in _SENTENCE_RE.findall(goal):
        if _NEGATION_RE.search(sentence) and set(terms(sentence)) & own:
            return [False]
    return [True]


# A negating prefix on a word: "unpaid", "non-members", "inactive" say the flag is false.
_PREFIX_RE = re.compile(r"\b(?:un|non-?|in)([a-z][\w-]*)", re.IGNORECASE)


def _flag_words(pname: str) -> set[str]:
    """The words of a flag's name that say it ("paid", "showed", "active"): three letters or
    more, no stop word."""
    return {w for w in pname.lower().split("_") if len(w) >= 3 and w not in STOP_WORDS}


def flag_param(spec: ToolSpec) -> str | None:
    """The required boolean of a filter keeping items by a flag (a read-only tool taking one list
    and one boolean, returning a list of the same items), or None for any other tool."""
    req = required_params(spec)
    out = spec.output_schema
    if spec.effect != "read_only" or len(req) != 2 or out is None or types_of(out, out) != {"array"}:
        return None
    lists = [p for p in req if param_types(spec, p) == {"array"}]
    flags = [p for p in req if param_types(spec, p) == {"boolean"}]
    if len(lists) != 1 or len(flags) != 1:
        return None
    want_items = item_types(properties(spec)[lists[0]], spec.input_schema)
    return flags[0] if fits({"array"}, item_types(out, out), {"array"}, want_items) else None


def prefixed_flag(goal: str, pname: str) -> str | None:
    """The goal's word that says the flag with a negating prefix ("unpaid" for ``paid``), or
    None."""
    words = _flag_words(pname)
    for m in _PREFIX_RE.finditer(goal):
        if m.group(1).lower().rstrip("s") in {w.rstrip("s") for w in words}:
            return m.group(0)
    return None


def negated_flag(spec: ToolSpec, goal: str) -> bool:
    """Whether the goal asks a flag filter for the items whose flag is false, saying the flag's
    own word: negated by a prefix ("the *unpaid* bookings") or in its sentence ("that *haven't*
    been *paid*"). Only a flag the goal says is asked for: a negation elsewhere picks nothing."""
    pname = flag_param(spec)
    if pname is None:
        return False
    if prefixed_flag(goal, pname) is not None:
        return True
    words = {w.rstrip("s") for w in _flag_words(pname)}
    for sentence in _SENTENCE_RE.findall(goal):
        said = {w.lower().rstrip("s") for w in re.findall(r"[A-Za-z][\w-]*", sentence)}
        if _NEGATION_RE.search(sentence) and words & said:
            return True
    return False
