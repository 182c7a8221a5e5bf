"""Which of a record's fields the goal names as the thing asked for, when it names several.

"The *height* of the highest tide": the goal names two fields of a tide record, its ``tide``
(the record's own noun, "the highest *tide*") and its ``height_m``; the noun before "of" is the
part taken of the thing after it, so ``height_m`` is what is written. So for "the *heights* of
July's and August's highest tides", "the *name* of the hive that …". A word of quoted text or of a
file name is no noun of the goal's; a quantifier before "of" ("the number of", "most of") names
no field.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from forethought.planning.bm25 import terms
from forethought.planning.word_classes import is_superlative

# Quoted text and file names are masked before the goal is read (neither is a noun phrase); a
# file name is a run of non-blanks with a letter after a dot, found per run (linear).
_QUOTED_RE = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|`[^`\n]*`")
_RUN_RE = re.compile(r"\S+")
_FILE_IN_RUN_RE = re.compile(r"\w\.[A-Za-z]")
# The goal's words, in order (the head of an "X of" phrase is the word before "of").
_TOKEN_RE = re.compile(r"[A-Za-z]+")
# Words grading the noun after them: it names which item, not a part of one.
_GRADING = frozenset(
    """
    first second third fourth fifth last next previous final latest earliest top bottom most least
    best worst only same
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
# Words before "of" that count or pick rather than name a part: no field.
_QUANTIFIERS = frozenset(
    """
    number numbers count total sum amount lot lots kind kinds sort sorts most all each one some any
    none both part half rest end start top bottom list set group couple out because instead ahead
    front terms regardless outside inside
    """.split()  # noqa: SIM905 (a word list reads better as words)
)


def of_heads(goal: str) -> frozenset[str]:
    """The BM25 terms of the nouns the goal takes a part of something by ("the *height* of
    …", "the *heights* of …"), quantifiers left out, and nouns an ordinal or a superlative
    grades ("the first *class* of the month": the item itself)."""
    unquoted = _QUOTED_RE.sub(" ", goal)
    masked = _RUN_RE.sub(lambda m: " " if _FILE_IN_RUN_RE.search(m.group(0)) else m.group(0), unquoted)
    words = [w.lower() for w in _TOKEN_RE.findall(masked)]
    heads: list[str] = []
    for i in range(1, len(words)):
        if words[i] != "of" or words[i - 1] in _QUANTIFIERS:
            continue  # "the number of …", "most of …": no part named
        # "the vowels and digits of …": each noun joined to the head is one too.
        j, joined = i - 1, [words[i - 1]]
        while j >= 2 and words[j - 1] in ("and", "or"):
            j -= 2
            joined.append(words[j])
        graded = j >= 1 and (words[j - 1] in _GRADING or is_superlative(words[j - 1]))
        if not graded:
            heads += joined
    return frozenset(t for h in heads if h not in _QUANTIFIERS for t in terms(h))


def partitive_fields(fields: Collection[str], heads: frozenset[str]) -> set[str]:
    """Of ``fields`` (names, maybe dotted), those a head of an "X of" phrase names; empty when
    none does (then the other rules decide)."""
    return {f for f in fields if set(terms(f.rsplit(".", 1)[-1])) & heads}
