"""A file a writing verb makes, named as its object: "Post a notice *named slipway.txt* saying
"…"", "Write a memo *feed.txt*: "…"", "Save a note called n.txt with …".

No "to"/"into"/"as" stands before such a file, so the output rules of ``coverage`` (a literal
after a preposition) did not see it: the file was read as an input and the quoted text had
nowhere to go. Here the verb's object is a kind of text ("a notice", "a memo", "the report")
and the file right after it is that text's name: with "named"/"called"/"titled" between them,
always; without, only when what follows the file says what it holds (a colon, a quote,
"saying", "reading", "containing", "with"), so "write the words a.txt lists to b.txt" names no
output here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# The verb, a determiner, an optional adjective, the kind of text, then an optional naming word.
# Every part is a bounded run of letters or spaces: linear in a long goal.
_NAMED_OBJECT_RE = re.compile(
    r"\b(?:write|writes|save|saves|store|stores|put|puts|post|posts|output|outputs|send|sends"
    r"|create|creates|make|makes|file|files|draft|drafts|issue|issues|publish|publishes|leave|leaves)"
    r"\s+(?:a|an|the)\s+(?:(?:new|short|brief|blank)\s+)?"
    # Never a preposition or a relative word in the noun's place ("write the total of a.txt").
    r"(?!(?:of|to|into|in|as|at|from|for|on|that|which|with)\b)[A-Za-z]{1,40}\s+"
    r"(?:(named|called|titled)\s+)?",
    re.IGNORECASE,
)
# What follows an unnamed file when it is the text's name: its content is said next.
_CONTENT_FOLLOWS_RE = re.compile(
    r"\s*[:\"“]|\s+(?:saying|reading|that\s+says|which\s+says|containing|with)\b",
    re.IGNORECASE,
)


def named_objects(goal: str, paths: dict[int, tuple[str, int]]) -> Iterator[tuple[int, str, str]]:
    """(where the verb starts, the verb, the file) per file a writing verb names as its object.
    ``paths`` maps where each file name of the goal starts to (the name, where it ends)."""
    for m in _NAMED_OBJECT_RE.finditer(goal):
        found = paths.get(m.end())
        if found is None:
            continue
        name, end = found
        if m.group(1) is not None or _CONTENT_FOLLOWS_RE.match(goal, end):
            yield m.start(), m.group(0).split()[0].lower(), name
