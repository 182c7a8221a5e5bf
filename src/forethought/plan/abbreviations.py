"""Words a listed option abbreviates: "west" is W, "south-westerly" SW, "Thursday" Thu.

Two ways of abbreviating, both English and none a tool set's: the initials of compass words
("south-westerly" → SW; "north east" is two words and left alone), and a prefix of at least
three letters ("Tuesday" → Tue) that is no inflection ("opened" is no "open"). Used by the
planner (``planning.abbreviated_options``) and by the coverage check, which counts such an
option as the goal's word.
"""

from __future__ import annotations

import re

# The four cardinal points; a word made of them ("southwest", "south-west") has their initials.
_CARDINALS = {"north": "n", "south": "s", "east": "e", "west": "w"}
_CARDINAL_RUN_RE = re.compile(r"(?:north|south|east|west)(?:-?(?:north|south|east|west)){0,2}")
# Endings a compass word takes as an adjective or adverb: "westerly", "southern", "eastward(s)".
_DIRECTION_ENDING_RE = re.compile(r"(?:erly|ern|wards?)\Z")
# Endings that make another form of the same word, not a longer word: "opened" is no "open"
# abbreviated.
_INFLECTIONS = frozenset(("s", "es", "ed", "d", "ing", "er", "ers", "est", "ly", "en"))


def abbreviation_of(word: str, options: set[str]) -> str | None:
    """The one option among ``options`` (lower case) that abbreviates ``word``, or None: the
    initials of a compass word ("south-westerly" → "sw"), else the one option of three letters
    or more that ``word`` starts with ("tuesday" → "tue")."""
    lowered = word.lower()
    if lowered in options:
        return None  # said as the option already
    bare = _DIRECTION_ENDING_RE.sub("", lowered)
    if _CARDINAL_RUN_RE.fullmatch(bare):
        initials = "".join(_CARDINALS[p] for p in re.findall(r"north|south|east|west", bare))
        return initials if initials in options else None
    if len(lowered) < 4:
        return None
    prefixed = [
        o for o in options if len(o) >= 3 and lowered.startswith(o) and lowered[len(o) :] not in _INFLECTIONS
    ]
    return prefixed[0] if len(prefixed) == 1 else None
