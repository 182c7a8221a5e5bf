"""Which of several text filters a bare name belongs to (the ``fitting_filters`` refinement).

A read-only tool set may keep items by several texts, each its own filter (``of_kind(kind)``,
``at_place(place)``, ``entered_by(initials)``). A goal gives the value bare ("every Grey Heron
sighting", "at the Long Field", "keeper AB"): nothing in the value says which filter takes it,
so the goal's words around it and its shape are read against each filter's name, parameter and
description:

- a preposition right before the value (articles skipped) that the filter's name says ("*at*
  the Long Field" for ``at_place``, "*by* AB" for ``entered_by``);
- a noun beside the value naming what the filter selects by: its parameter, a word of the
  parameter's description, or the noun its description selects by ("one *keeper*", "a given
  *colour*");
- the value's shape against the examples the filter's description gives ("e.g. JK": capital
  initials; "e.g. Grey Heron": capitalised words).

A value of another shape than all of a filter's examples is not that filter's; then words
count, then a shape its examples share, where every filter gives examples (one that gives none
may take a value of any shape). A filter another one fits strictly better does not take
the value; where every filter fits alike, nothing changes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from forethought.planning.bm25 import STOP_WORDS, stem
from forethought.planning.tool_roles import filter_param, param_kind, properties
from forethought.tools.base import ToolSpec

# Closed-class prepositions a goal puts before a value it selects by. Not "of": "the number
# *of* celadon firings" is the partitive, no filter's ``of_kiln``.
_PREPOSITIONS = frozenset(("at", "in", "on", "by", "from", "for", "to", "with", "near", "under", "inside"))
_ARTICLES = frozenset(("the", "a", "an"))
# The noun a description selects by: "one species", "a given site", "each observer".
_SELECTED_NOUN_RE = re.compile(r"\b(?:one|each|single|given)\s+([A-Za-z]{3,})\b", re.IGNORECASE)
# Sample values in a description: what follows "e.g." / "for example" / "such as" to the end of
# the parenthesis or sentence.
_EXAMPLE_RE = re.compile(
    r"\b(?:e\.g\.|for example|for instance|such as)\s*,?\s*([^).;]{1,80})", re.IGNORECASE
)
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'-]*")
_FILE_RE = re.compile(r"[\w./-]*\w\.[A-Za-z]\w{0,5}\b")


def value_shape(value: str) -> str:
    """The written shape of a value: "initials" (two to four capital letters: "JK", "MB"),
    "title" (capitalised words: "Grey Heron", "Lapwing"), "lower" (lower-case words), else "other"."""
    if re.fullmatch(r"[A-Z]{2,4}", value):
        return "initials"
    words = value.split()
    if words and all(re.fullmatch(r"[A-Z][a-z][\w'-]*", w) for w in words):
        return "title"
    if words and all(re.fullmatch(r"[a-z][\w'-]*", w) for w in words):
        return "lower"
    return "other"


def _examples(spec: ToolSpec, pname: str) -> list[str]:
    """The sample values the filter's descriptions give ("e.g. JK", "for example groceries or rent")."""
    described = " ".join(
        (spec.description, str((properties(spec).get(pname) or {}).get("description") or ""))
    )
    samples = [
        sample.strip(" \"'")
        for m in _EXAMPLE_RE.finditer(described)
        for sample in re.split(r",|\bor\b", m.group(1))
    ]
    return [sample for sample in samples if sample]


def example_shapes(spec: ToolSpec, pname: str) -> set[str]:
    """The shapes of the sample values the filter's descriptions give ("e.g. JK": initials)."""
    return {value_shape(sample) for sample in _examples(spec, pname)} - {"other"}


def _name_words(name: str) -> set[str]:
    return {w.lower() for w in re.split(r"[_\W]+|(?<=[a-z])(?=[A-Z])", name) if w}


def _selected_nouns(spec: ToolSpec, pname: str) -> set[str]:
    """Stems naming what the filter selects by: its parameter's words, its parameter's
    description's content words, and the noun its description selects by ("one observer")."""
    own = str((properties(spec).get(pname) or {}).get("description") or "")
    words = _name_words(pname) | {w.lower() for w in _WORD_RE.findall(own)}
    words |= {m.group(1).lower() for m in _SELECTED_NOUN_RE.finditer(spec.description)}
    return {stem(w) for w in words if w not in STOP_WORDS and len(w) > 2}


def _context(value: str, goal: str) -> tuple[str, list[str]] | None:
    """The preposition right before the value's first whole occurrence (articles skipped; "" for
    none) and the plain words beside it (two before, two after), lower-case."""
    m = re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", goal)
    if m is None:
        return None
    # A file's name ("statement.csv") says nothing of the value beside it.
    before = [
        w.lower() for w in _WORD_RE.findall(_FILE_RE.sub(" ", goal[max(0, m.start() - 60) : m.start()]))
    ]
    after = [w.lower() for w in _WORD_RE.findall(_FILE_RE.sub(" ", goal[m.end() : m.end() + 60]))]
    plain_before = [w for w in before if w not in _ARTICLES]
    preposition = plain_before[-1] if plain_before and plain_before[-1] in _PREPOSITIONS else ""
    near = [w.split("'")[0] for w in (plain_before[-2:] + after[:2])]
    return preposition, [w for w in near if w not in STOP_WORDS]


def _described(spec: ToolSpec) -> set[str]:
    """Stems of the content words of a tool's name and description."""
    text = " ".join((spec.name.replace("_", " "), spec.description))
    return {stem(w.lower()) for w in _WORD_RE.findall(text) if w.lower() not in STOP_WORDS and len(w) > 2}


def filter_fit(
    value: str, goal: str, spec: ToolSpec, pname: str, common: frozenset[str] = frozenset()
) -> tuple[int, int, int]:
    """How well text filter ``spec`` (parameter ``pname``) fits ``value`` as the goal puts it:
    (not of another shape than its examples, by the goal's words, of its examples' shape), each
    higher for a better fit. A word beside
    the value that the filter's description says counts too ("the seconds mingus *recorded*"
    for "the tracks recorded by the given artist"), unless every filter says it (``common``)."""
    words = 0
    context = _context(value, goal)
    if context is not None:
        preposition, near = context
        if preposition and preposition in _name_words(spec.name):
            words += 2
        nouns = _selected_nouns(spec, pname)
        if value.lower() in {sample.lower() for sample in _examples(spec, pname)}:
            words += 2  # "groceries" for "(for example groceries or rent)"
        if any(stem(w) in nouns for w in near):
            words += 2
        elif any(stem(w) in _described(spec) - common for w in near):
            words += 1
    shapes = example_shapes(spec, pname)
    shape = value_shape(value)
    fit_shape = 0 if not shapes or shape == "other" else (1 if shape in shapes else -1)
    # A value of another shape than every example is no value of that filter, whatever words
    # stand beside it; a shape the examples share only breaks a tie of words.
    return (-1, words, 0) if fit_shape < 0 else (0, words, fit_shape)


def text_filters(tools: Mapping[str, ToolSpec], *, places: bool = False) -> dict[str, str]:
    """The tool set's filters by one plain text (not a date, a time or a number): name → parameter."""
    found: dict[str, str] = {}
    for name, spec in tools.items():
        pname = filter_param(spec, places=places)
        if pname is not None and param_kind(spec, pname) == "text":
            found[name] = pname
    return found


def fitted_elsewhere(
    value: str, goal: str, name: str, tools: Mapping[str, ToolSpec], *, places: bool = False
) -> bool:
    """Whether another text filter of the tool set fits ``value`` strictly better than filter
    ``name`` does; False where ``name`` is no text filter or every filter fits alike."""
    filters = text_filters(tools, places=places)
    if name not in filters or len(filters) < 2:
        return False
    common = frozenset.intersection(*(frozenset(_described(tools[n])) for n in filters))
    fits = {n: filter_fit(value, goal, tools[n], p, common) for n, p in filters.items()}
    if not all(example_shapes(tools[n], p) for n, p in filters.items()):
        # A filter giving no examples may take a value of any shape: "Priya" fits the hive
        # filter's "e.g. Bramble" no better than the beekeeper filter's unsaid names.
        fits = {n: (fit[0], fit[1], 0) for n, fit in fits.items()}
    return max(fits.values()) > fits[name]
