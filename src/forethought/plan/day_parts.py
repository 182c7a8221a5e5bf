"""Parts of the day a goal names in words, as the range of times of day they cover.

"The morning high waters", "in the afternoon", "before noon", "after midday", "in the evening":
each is a window of the clock, first and last minute included ("before noon" is 00:00 to 11:59),
which a tool keeping items between two times of day ("earliest", "latest" as HH:MM) takes as
it takes "between 7 and 9 am". Only the parts of the day English fixes by the clock; "at night"
(it runs past midnight) and "around noon" are no window.
"""

from __future__ import annotations

import bisect
import re

# (pattern, first minute, last minute). "Before noon" and "the morning" are the same window.
_PARTS: tuple[tuple[str, str, str], ...] = (
    (r"before\s+(?:noon|midday)|(?:in\s+the\s+)?mornings?", "00:00", "11:59"),
    (r"after\s*(?:noon|midday)|(?:in\s+the\s+)?afternoons?", "12:00", "17:59"),
    (r"(?:in\s+the\s+)?evenings?", "18:00", "23:59"),
)
_PART_RE = re.compile(
    "|".join(f"(?P<p{i}>\\b(?:{pattern})\\b)" for i, (pattern, _, _) in enumerate(_PARTS)),
    re.IGNORECASE,
)
# A number right before the part of the day: it says which half of the day the hours are in.
_CLOCK_BEFORE_RE = re.compile(r"\d(?:[:.]\d\d)?\s*(?:o'clock\s*)?\Z", re.IGNORECASE)
# Quoted text is given, not a time to read ('write "good morning" to a.txt').
_QUOTED_RE = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|`[^`\n]*`|(?<!\w)'[^'\n]*'(?!\w)")


def day_part_times(text: str) -> list[tuple[int, int, str]]:
    """(start, end, "HH:MM") for the first and the last minute of each part of the day ``text``
    names outside quoted text, in order: the phrase's first part stands for the first minute,
    the rest for the last ("before noon" → "before" 00:00, "noon" 11:59). Spans are at least
    three characters long."""
    spans = [m.span() for m in _QUOTED_RE.finditer(text)]
    starts = [a for a, _ in spans]
    found: list[tuple[int, int, str]] = []
    for m in _PART_RE.finditer(text):
        i = bisect.bisect_right(starts, m.start()) - 1  # a bisection per part: linear overall
        if i >= 0 and m.start() < spans[i][1]:
            continue
        if _CLOCK_BEFORE_RE.search(text, max(0, m.start() - 12), m.start()):
            continue  # "between 9 and 10 in the morning": the half of the day of those hours
        index = int(next(k for k, v in m.groupdict().items() if v is not None)[1:])
        _, first, last = _PARTS[index]
        middle = m.start() + max(3, (m.end() - m.start()) // 2)
        found += [(m.start(), middle, first), (middle, m.end(), last)]
    return found
