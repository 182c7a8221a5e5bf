"""What a goal's count is of: the term or the kind of item a number is asked about.

"How many times does alice appear in names.txt?" asks a count of *alice*; "how many TODO lines
are in notes.txt?" a count of *TODO* lines. A plan that counts every word or every line of the
file answers neither, yet it used every literal of the goal (there is none but the file), so
the coverage check needs to know what is counted. Pure text rules, no tool or goal recognised.
"""

from __future__ import annotations

import re

from forethought.plan.number_words import NUMBER_WORDS
from forethought.plan.verbs import QUANTITIES

# "how many times does X appear", "how often is X mentioned", "count the occurrences of X in".
_AUX = r"(?:does|do|did|is|are|was|were|has|have|will|would|can)"
_OCCURS = (
    r"(?:appears?|appeared|occurs?|occurred|shows?\s+up|comes?\s+up|turns?\s+up|recurs?"
    r"|(?:gets?\s+)?mentioned|used)"
)
_TIMES_RE = re.compile(
    rf"\bhow\s+(?:many\s+times|often)\s+(?:{_AUX}\s+)?(?P<term>.{{1,60}}?)\s+{_OCCURS}\b",
    re.IGNORECASE,
)
_OCCURRENCES_RE = re.compile(
    r"\b(?:count|counts|counting|number|how\s+many)\s+(?:of\s+)?(?:the\s+)?"
    r"(?:occurrences|instances|appearances|mentions)\s+(?:of\s+)?"
    r"(?P<term>.{1,60}?)(?=\s+(?:in|inside|within|across|from|throughout|on)\b|[,;:?!]|\.(?!\w)|$)",
    re.IGNORECASE,
)
# "the word alice", "the name 'Bob'": the words before the term say what it is.
_NAMING_RE = re.compile(r"^(?:the\s+)?(?:word|name|string|text|term|phrase|letter|character)\s+", re.I)
_QUOTES = "\"'`“”‘’"

# What a count's noun may stand after without narrowing it: "how many *total* words".
_NOT_NARROWING = frozenset(
    {
        *("total", "overall", "whole", "entire", "all", "in", "of", "the", "a", "an", "its", "their"),
        *("are", "is", "other", "remaining", "same", "following", "above", "below", "given", "named"),
        *("listed", "these", "those", "both", "each", "every", "individual", "separate", "various"),
        *("first", "second", "third", "last", "next", "previous", "my", "our", "your", "his", "her"),
        # Superlatives and kinds of value are asked quantities, judged by their own rule; words a
        # tool often says in a synonym ("distinct"), and negations, whose word follows them.
        *("most", "least", "more", "fewer", "less", "different", "distinct", "unique", "non", "not"),
    }
)
_JOINS = frozenset({"and", "or", "nor", "plus", "versus", "vs"})
_BREAKS = frozenset(
    {"of", "by", "from", "to", "in", "with", "for", "on", "at", "into", "that", "which", "who", "as", "than"}
    | {"per", "is", "are", "was", "were", "has", "have", "goes", "go", "should", "will", "the", "a", "an"}
)
_CALENDAR = frozenset(
    {
        *("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
        *("january", "february", "march", "april", "may", "june", "july", "august"),
        *("september", "october", "november", "december", "today", "yesterday", "tomorrow"),
    }
)
_WORD_RE = re.compile(r"[a-z0-9]+")


def counted_terms(goal: str) -> list[str]:
    """The terms whose occurrences ``goal`` asks to count ("alice" in "how many times does
    alice appear in names.txt"), without quotes or a naming noun ("the word …")."""
    terms: list[str] = []
    for regex in (_TIMES_RE, _OCCURRENCES_RE):
        for m in regex.finditer(goal):
            term = _NAMING_RE.sub("", m.group("term").strip()).strip(_QUOTES + " ")
            if term and term.lower() not in ("it", "they", "this", "that") and term not in terms:
                terms.append(term)
    return terms


# "the TODO lines", "the red placards": a definite plural noun after one to three words.
_DESCRIBED_RE = re.compile(r"\bthe\s+((?:[\w'-]+\s+){1,3}?)([a-z][a-z-]*[a-z](?<!ss)s)\b", re.IGNORECASE)


def described_items(goal: str) -> list[tuple[str, list[str]]]:
    """(phrase, narrowing words) for each set of items ``goal`` describes by words before their
    plural noun: "write the TODO lines of notes.txt" → ("TODO lines", ["todo"]). A plan handing
    on every line answers something else."""
    out: list[tuple[str, list[str]]] = []
    for m in _DESCRIBED_RE.finditer(goal):
        words = _narrowing(m.group(1))
        if words:
            out.append((f"{m.group(1).strip()} {m.group(2)}", words))
    return out


def _narrowing(said_before: str) -> list[str]:
    said = _WORD_RE.findall(said_before.lower())
    if _JOINS & set(said):
        return []  # "the number of words and lines": two things, neither narrowed
    if _BREAKS & set(said) or any(len(w) > 3 and w.endswith("s") and not w.endswith("ss") for w in said):
        return []  # "the number of tracks", "the tracks rated four stars": not words before a noun
    words: list[str] = []
    for word in said:
        if word in _NOT_NARROWING or word in _CALENDAR or word in NUMBER_WORDS or word.isdigit():
            continue
        if word in QUANTITIES or (len(word) > 4 and word.endswith("est")):
            continue  # "the largest amounts", "the total hours": a value to compute
        if word not in words:
            words.append(word)
    return words


def narrowing_words(goal: str, noun: str) -> list[str]:
    """The words that narrow a count of ``noun`` (a field a tool counts, e.g. "lines") where
    the goal asks it: "how many TODO lines" → ["todo"]; "the number of words" → []. Number
    words, digits and calendar words are left out (a filter takes them as numbers or dates)."""
    stem = noun.lower().rstrip("s")
    if len(stem) < 3:
        return []
    pattern = re.compile(
        r"\b(?:how\s+many|number\s+of|count\s+(?:of\s+)?(?:the\s+)?)\s*((?:[\w'-]+\s+){1,3}?)"
        + re.escape(stem)
        + r"s?\b",
        re.IGNORECASE,
    )
    words: list[str] = []
    for m in pattern.finditer(goal):
        words += [w for w in _narrowing(m.group(1)) if w not in words]
    return words
