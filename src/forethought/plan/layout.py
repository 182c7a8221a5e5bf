"""How a goal says a result is laid out ("one per line", "as a list", "comma separated"):
phrases that are no part of what the result is. The planner ranks a clause's tools without
them; the coverage check does not read "line" in "one per line" as a field the goal names."""

from __future__ import annotations

import re

from forethought.plan.verbs import GENERIC_VERBS

# Words that say how a result is laid out, not what it is: "one per line", "as a list",
# "comma separated", "each on its own line", "on separate lines".
LAYOUT_PHRASE_RE = re.compile(
    r"\b(?:one|each)\s+(?:\w+\s+)?(?:per|a|on\s+(?:a|its\s+own|each))\s+line\b"
    r"|\b(?:as|in|into)\s+(?:an?\s+)?(?:(?:bullet(?:ed)?|numbered|sorted|plain)\s+)?"
    r"(?:(?:comma|semicolon|tab|space|newline)[- ]?(?:separated|delimited)\s+)?(?:list|lines|table)\b"
    r"|\b(?:comma|semicolon|tab|space|newline|line)[- ]?(?:separated|delimited)\b"
    r"|\bon\s+(?:separate|their\s+own|its\s+own)\s+lines?\b|\bline\s+by\s+line\b"
    # Which line a result goes on: "on the first line", "… and b's on the second".
    r"|\bon\s+(?:the\s+)?(?:first|second|third|fourth|fifth|last|next)(?:\s+line\b|(?=\s*(?:[,.;?!]|\Z)))",
    re.IGNORECASE,
)


def split_layout(clause: str) -> tuple[str, str]:
    """The clause without its layout phrases ("List the authors, one per line" → "the
    authors"), and the layout phrases themselves ("" when there are none). With a layout phrase,
    a generic verb opening the clause ("list", "show": ``plan.verbs.GENERIC_VERBS``) goes with
    the layout: it asks for the result, laid out, not for a tool of its name."""
    layout = " ".join(m.group(0) for m in LAYOUT_PHRASE_RE.finditer(clause))
    rest = LAYOUT_PHRASE_RE.sub(" ", clause)
    if layout:
        first = rest.split(maxsplit=1)
        if first and first[0].lower() in GENERIC_VERBS:
            layout = f"{first[0]} {layout}"
            rest = first[1] if len(first) > 1 else ""
    return rest, layout
