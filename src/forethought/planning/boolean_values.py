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

from forethought.planning.bm25 import STOP_WORDS, terms
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
