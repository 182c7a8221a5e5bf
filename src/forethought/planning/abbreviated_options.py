"""Goal words that name a tool's listed option by its standard abbreviation.

A tool may list a parameter's options as abbreviations ("a compass point: N, NE, E, SE, S, SW,
W or NW", "a weekday: Mon, Tue, …") while the goal says the word in full ("when the wind came
from the *west*", "a *south-westerly* wind", "on *Tuesday*"). Such a word is that option: said
as the option, it is a value the option's tool filters by (``value_filters.enumerated_options``).
The ways of abbreviating are ``plan.abbreviations``'. A word is only replaced when exactly one
option of the tool set abbreviates it, and the tools write that option with a capital, as
abbreviations are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from forethought.plan.abbreviations import abbreviation_of
from forethought.tools.base import ToolSpec

# Quoted text, kept whole (the split keeps it at the odd places). Not single quotes: an
# apostrophe ("Hilltop's") would open one.
_QUOTED_RE = re.compile(r"(\"[^\"\n]*\"|“[^”\n]*”|`[^`\n]*`)")
# A word standing alone: not part of a file's name ("west_wind.txt") or of a code.
_WORD_RE = re.compile(r"(?<![\w./])[A-Za-z]+(?:-[A-Za-z]+)*(?![\w./]|-\w)")


def _spelled(option: str, tools: Mapping[str, ToolSpec]) -> str:
    """``option`` as a tool's words write it ("W", "Tue")."""
    for spec in tools.values():
        texts = [spec.description, *(str(p.get("description", "")) for p in _props(spec))]
        for text in texts:
            m = re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text, re.IGNORECASE)
            if m is not None:
                return m.group(0)
    return option


def _props(spec: ToolSpec) -> list[Mapping[str, object]]:
    props = spec.input_schema.get("properties") or {}
    return [p for p in props.values() if isinstance(p, Mapping)]


def abbreviated_options(goal: str, tools: Mapping[str, ToolSpec], options: set[str]) -> str:
    """``goal`` with each word that abbreviates to one of ``options`` (the tool set's listed
    options, lower case: ``value_filters.enumerated_options``) said as that option as the
    tools write it ("when the wind came from the west" → "… from the W")."""
    if not options:
        return goal

    def said(m: re.Match[str]) -> str:
        option = abbreviation_of(m.group(0), options)
        spelled = _spelled(option, tools) if option is not None else ""
        # An abbreviation is written with a capital ("W", "Tue"); a lower-case option ("open")
        # is a word of its own, which the goal's word only shares letters with.
        return spelled if spelled and spelled != spelled.lower() else m.group(0)

    # Quoted text is given, not described: "write "west wing closed" to note.txt" keeps it.
    parts = _QUOTED_RE.split(goal)
    return "".join(part if i % 2 else _WORD_RE.sub(said, part) for i, part in enumerate(parts))
