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
# A word right before "of": the head of a partitive phrase ("the height of", "the heights of"),
# with the word before it (a graded noun is the record itself: "the *first* class of the month").
_HEAD_OF_RE = re.compile(r"\b(?:([A-Za-z]{1,30})\s+)?([A-Za-z][a-z]{1,30})\s+of\b", re.IGNORECASE)
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
    heads = (
        m.group(2)
        for m in _HEAD_OF_RE.finditer(masked)
        if not (m.group(1) and (m.group(1).lower() in _GRADING or is_superlative(m.group(1).lower())))
    )
    return frozenset(t for h in heads if h.lower() not in _QUANTIFIERS for t in terms(h))


def partitive_fields(fields: Collection[str], heads: frozenset[str]) -> set[str]:
    """Of ``fields`` (names, maybe dotted), those a head of an "X of" phrase names; empty when
    none does (then the other rules decide)."""
    return {f for f in fields if set(terms(f.rsplit(".", 1)[-1])) & heads}
