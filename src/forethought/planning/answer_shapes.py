"""What a goal's answer looks like, beyond its words: every item of something (a list, not one
record or a number), one result per input file on a line of its own, a value the goal sends
"to" a place. Rules the chains of ``decompose`` are weighed by (refinements added after suite 11)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from forethought.plan._schema import types_of
from forethought.planning.tool_roles import is_formatter, is_reader, is_writer, names_a_place, value_param
from forethought.tools.base import ToolSpec

# Per chain writing one record or number where the goal asks for every item ("show every
# departure"): more than a name's word, as a wrong kind of answer is worse than a loose word.
PLURAL_COST = 1.0

# "every departure", "all of the samples", "each item": the goal asks for every item.
_EVERY_RE = re.compile(
    r"\b(?:every|all|each)\s+(?:(?:of\s+)?(?:the|its|their|my|our)\s+)?[a-z]", re.IGNORECASE
)
# Words asking for one number or one item of many: an amount, a count, an extreme, an ordinal.
_ONE_OF_MANY_RE = re.compile(
    r"\b(?:how\s+(?:many|much)|number|count|total|sum|average|mean|median|first|last|"
    r"most|least|max(?:imum)?|min(?:imum)?|which\s+one|any|[a-z]+est)\b",
    re.IGNORECASE,
)


def takes_place(spec: ToolSpec) -> bool:
    """Whether the tool's value parameter names a place (``tool_roles.names_a_place``)."""
    pname = value_param(spec, places=True)
    return pname is not None and names_a_place(spec, pname)


def towards(value: str) -> re.Pattern[str]:
    """``value`` right after "to", "towards" or "into": where something goes."""
    return re.compile(rf"\b(?:to|towards|into)\s+(?:the\s+)?{re.escape(value)}(?![\w-])", re.IGNORECASE)


def asks_every(goal: str) -> bool:
    """Whether the goal asks for every item of something ("show every departure", "all the
    samples") and for no number or single item of them ("the total of all …", "the first of
    all …")."""
    return bool(_EVERY_RE.search(goal)) and not _ONE_OF_MANY_RE.search(goal)


# A goal asking for a count of items: "how many", "the number of", "count the …".
_COUNT_ASKED_RE = re.compile(r"\b(?:how\s+many|number\s+of|count)\b", re.IGNORECASE)
# Words asking for the items themselves, laid out: "list", "show", "every", "each", "per", "one
# per line", "which" and a plural noun.
_ITEMS_ASKED_RE = re.compile(
    r"\b(?:list|lists|listing|show|every|each|all|per|lines?|which\s+[a-z]+s)\b", re.IGNORECASE
)


def asks_count_only(goal: str) -> bool:
    """Whether the goal asks for how many items there are ("the number of builds that passed")
    and not for the items themselves (no "list", "every", "each", "which songs", …)."""
    return bool(_COUNT_ASKED_RE.search(goal)) and not _ITEMS_ASKED_RE.search(goal)


def laid_out_result(chain: Sequence[str], tools: Mapping[str, ToolSpec]) -> bool:
    """Whether what the chain writes is a list laid out as text: the step before its writer (or
    its last step) is a formatter (``tool_roles.is_formatter``)."""
    body = [n for n in chain if not is_writer(tools[n])]
    return bool(body) and is_formatter(tools[body[-1]])


def single_result(chain: Sequence[str], tools: Mapping[str, ToolSpec]) -> bool:
    """Whether what the chain writes is one record or one number: the step before its writer
    (or its last step) returns an object, a number or a boolean, not a list or a text."""
    body = [n for n in chain if not is_writer(tools[n])]
    if not body:
        return False
    out = tools[body[-1]].output_schema
    kinds = types_of(out, out) if out is not None else None
    return bool(kinds) and kinds is not None and kinds <= {"object", "integer", "number", "boolean"}


def runs_per_file(chain: Sequence[str], tools: Mapping[str, ToolSpec], files: int) -> bool:
    """Whether ``chain`` is one reader and the same steps, no formatter among them, once per
    each of ``files`` files, then its writer: each file's result is written on its own line."""
    if files < 2 or len(chain) < 2 * files + 1 or not is_writer(tools[chain[-1]]):
        return False
    body = list(chain[:-1])
    size = len(body) // files
    runs = [tuple(body[i * size : (i + 1) * size]) for i in range(files)]
    return (
        size >= 2
        and size * files == len(body)
        and len(set(runs)) == 1
        and is_reader(tools[runs[0][0]])
        and not any(is_reader(tools[n]) or is_formatter(tools[n]) for n in runs[0][1:])
    )
