"""A tool's pair of bound parameters, for the range the goal says (``Refinements.number_ranges``):
"between two and five kilos" is the low bound 2 and the high bound 5, "at most 1 kg" the high
bound only (``plan.number_words``). The parameters are told apart by their names' English words
("min_kg", "max_kg"; "low", "high"; "lower", "upper"), nothing of a tool set's.
"""

from __future__ import annotations

import re

from forethought.planning.tool_roles import param_types, properties
from forethought.tools.base import ToolSpec

_LOW_NAMES = frozenset(("min", "minimum", "low", "lower", "least", "lo"))
_HIGH_NAMES = frozenset(("max", "maximum", "high", "upper", "most", "hi"))


def bound_params(spec: ToolSpec) -> tuple[str, str] | None:
    """The tool's low and high bound parameters: numeric, one named by a word of "min"/"low",
    the other by "max"/"high" ("min_kg", "max_kg"); None when it has no such pair."""
    low = high = None
    for pname in properties(spec):
        if not (param_types(spec, pname) or set()) & {"integer", "number"}:
            continue
        words = set(re.findall(r"[a-z]+", re.sub(r"(?<=[a-z])(?=[A-Z])", " ", pname).lower()))
        if words & _LOW_NAMES and low is None:
            low = pname
        elif words & _HIGH_NAMES and high is None:
            high = pname
    return (low, high) if low is not None and high is not None else None
