"""Splitting a goal into clauses, one action each: the "decompose" half of decompose-then-fill.

"Count the words in poem.txt and write the number to count.txt" is two actions; "Join a.md and
b.md into c.md" is one action with two objects. The rules are about the *shape* of the text,
never particular words of a benchmark: split after a sentence end (``.``, ``?``, ``!`` followed
by a space; not the full stop of an initial, "K. Le Guin"), at ``;``, at ``then`` and ``, and``,
and at a bare ``and`` unless what follows it is a literal (a quoted string, a file name or a
number), which makes it a list of objects. Quoted text is never split.
"""

from __future__ import annotations

import re

_QUOTED_RE = re.compile(r"\"[^\"\n]*\"|'[^'\n]*'|`[^`\n]*`|“[^”\n]*”")
_LITERAL_START_RE = re.compile(r"\s*(?:[\"'`“]|[\w./-]+\.[A-Za-z0-9]{1,8}\b|-?\d)")
# Separators, longest first; the lookahead keeps the text that follows.
_SPLIT_RE = re.compile(
    r"(?:(?<!\b[A-Z])\.(?=\s)|[?!](?=\s)|;|,?\s+(?:and\s+)?then\b|,\s*and\b|\band\b)",
    re.IGNORECASE,
)


def split_clauses(goal: str) -> list[str]:
    """The clauses of ``goal`` in order; never empty for a non-blank goal, each stripped."""
    masked = _QUOTED_RE.sub(lambda m: "\0" * len(m.group(0)), goal)
    cuts: list[tuple[int, int]] = []
    for m in _SPLIT_RE.finditer(masked):
        if m.group(0).strip().lower() == "and" and _LITERAL_START_RE.match(goal, m.end()):
            continue  # "a.md and b.md": a list of objects, not a second action
        cuts.append((m.start(), m.end()))
    parts: list[str] = []
    last = 0
    for start, end in cuts:
        parts.append(goal[last:start])
        last = end
    parts.append(goal[last:])
    clauses = [p.strip(" ,.;?!\t\n") for p in parts]
    return [c for c in clauses if c] or ([goal.strip()] if goal.strip() else [])
