"""Sample several plans, keep the best: how candidate plans are compared.

A candidate is scored, in this order (lower is better at each level, the next level only breaks
ties of the previous one):

1. the validator's problems (``plan.validation``): an invalid plan never beats a valid one;
2. the goal coverage check's findings (``plan.coverage.check_coverage``): every goal literal
   used, every requested output produced by a side-effecting step, no dead steps; plus every
   read-only step's output used (``unused_outputs``), the answer of a read-only plan aside, and
   every name the goal capitalizes mid-sentence ("on Friday", "in Oslo") used by some argument
   (``unused_names``: data the goal gives, though no literal the coverage check would insist on);
3. the skeleton's lexical prior (goal words its tools explain, minus a cost per step), less half
   a point per argument that takes an output only *as text* (an exact type fit is the likelier
   intent), and (with ``record_fields``) a point per record whose field the goal names ("the
   title of the recipe") but no argument takes (``unreferenced_fields``);
4. the model's own likelihood of its answer (mean log-probability per generated token); a plan
   the grammar fully determined has no alternative under the grammar and counts as certain (0).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from forethought.plan._schema import _resolve
from forethought.plan.abbreviations import abbreviation_of
from forethought.plan.coverage import check_coverage, listed_words
from forethought.plan.dates import spelled_dates, weekday_start
from forethought.plan.model import Plan
from forethought.plan.validation import Problem
from forethought.planning.bm25 import terms, tool_terms
from forethought.planning.grammar import reference_candidates
from forethought.planning.question_fields import Asked, answering_fields, asked_kind
from forethought.planning.tool_roles import is_formatter, required_params
from forethought.planning.word_classes import verb_after_subject
from forethought.tools.base import ToolSpec

_AS_TEXT_RE = re.compile(r"^\$\{[^}]+\}\n\Z")
AS_TEXT_COST = 0.5  # prior points per argument fed as text: less than a goal word explained
FIELD_COST = 2.0  # per record whose field the goal names but no argument takes: the goal's answer
# Per list of records written as raw text when a tool lays such a list out: with the as-text
# cost, more than the formatter's step costs.
RECORDS_AS_TEXT_COST = 0.5


@dataclass(frozen=True, order=True)
class CandidateScore:
    problems: int
    findings: int
    neg_prior: float
    neg_likelihood: float


def as_text_arguments(plan: Plan) -> int:
    """Arguments that take an earlier output interpolated as text rather than as its own type."""
    return sum(1 for s in plan.steps for v in s.args.values() if isinstance(v, str) and _AS_TEXT_RE.match(v))


def unused_outputs(plan: Plan, tools: Mapping[str, ToolSpec]) -> int:
    """Read-only steps whose output no other step references: work that goes nowhere.

    The coverage check's ``dead_step`` also counts these, but only where the step is not a sink
    of a read-only plan; here the answer of a read-only plan is its *last* step only, so two
    parallel computations of which one is discarded count against the plan too.
    """
    referenced = {r for s in plan.steps for r in s.referenced_steps()}
    changes = any(
        tools.get(s.tool or "") is None or tools[s.tool or ""].effect != "read_only" for s in plan.steps
    )
    answer = None if changes or not plan.steps else plan.steps[-1].id
    unused = 0
    for s in plan.steps:
        spec = tools.get(s.tool or "")
        if s.id not in referenced and s.id != answer and spec is not None and spec.effect == "read_only":
            unused += 1
    return unused


def _item_schema(schema: Any, root: Mapping[str, Any]) -> Any:
    """The resolved schema of an array's record items (references resolved against ``root``),
    or None when ``schema`` is no array of records."""
    array = _resolve(schema, root)
    items = array.get("items") if isinstance(array, Mapping) else None
    resolved = _resolve(items, root) if isinstance(items, Mapping) else None
    return resolved if isinstance(resolved, Mapping) and resolved.get("type") == "object" else None


def records_as_text(plan: Plan, tools: Mapping[str, ToolSpec]) -> int:
    """Arguments taking as text (``${sN}`` and a newline) a whole list of records that a
    formatter among ``tools`` lays out (``tool_roles.is_formatter``, taking lists of the same
    records): the raw data dumped where a readable listing was at hand."""
    layouts = [
        _item_schema(
            (spec.input_schema.get("properties") or {}).get(required_params(spec)[0]), spec.input_schema
        )
        for spec in tools.values()
        if is_formatter(spec)
    ]
    if not layouts:
        return 0
    producers = {s.id: tools.get(s.tool or "") for s in plan.steps}
    count = 0
    for step in plan.steps:
        for value in step.args.values():
            m = _WHOLE_TEXT_RE.match(value) if isinstance(value, str) else None
            spec = producers.get(m.group(1)) if m else None
            out = spec.output_schema if spec is not None else None
            items = _item_schema(out, out) if out is not None else None
            if items is not None and items in layouts:
                count += 1
    return count


_WHOLE_TEXT_RE = re.compile(r"^\$\{(s\d+)\}\n\Z")
_SENTENCE_RE = re.compile(r"[^.?!;]+")
_NAME_RE = re.compile(r"\b([A-Z][a-z]{2,})(?:'s)?\b")


def goal_names(goal: str) -> list[str]:
    """Words the goal capitalizes but not at the start of a sentence: names of things ("Oslo",
    "Friday"), outside quoted text and file names."""
    plain = re.sub(r"\"[^\"]*\"|'[^']*'", " ", goal)
    # File names and paths out, but not the full stop that may end their sentence.
    plain = re.sub(r"\S*[./]\w\S*?([.?!]?)(?=\s|$)", r" \1", plain)
    out: list[str] = []
    for sentence in _SENTENCE_RE.findall(plain):
        words = sentence.split()
        rest = sentence[sentence.find(words[0]) + len(words[0]) :] if words else ""
        out += [m.group(1) for m in _NAME_RE.finditer(rest)]
    return list(dict.fromkeys(out))


def unused_names(plan: Plan, goal: str, tools: Mapping[str, ToolSpec] | None = None) -> int:
    """Names of the goal (``goal_names``) that no argument of the plan mentions. With ``tools``
    (``Refinements.file_named_values``), a name is used by a read-only step reading the file
    of that name too ("the Parkway board (parkway.json)")."""
    texts = " ".join(json.dumps(s.args) for s in plan.steps)
    if tools is not None:
        read = [
            v
            for s in plan.steps
            if s.tool is not None and s.tool in tools and tools[s.tool].effect == "read_only"
            for v in s.args.values()
            if isinstance(v, str)
        ]
        # Each word of the name counts: "February" is used by reading february_bookings.csv.
        texts += " " + " ".join(
            re.sub(r"[_-]+", " ", re.sub(r"\.[^./]*$", "", v.rsplit("/", 1)[-1]))
            for v in read
            if _FILE_NAME_RE.fullmatch(v)
        )
        # Files told apart by their labels ("March (a.jsonl) against April (b.jsonl)"): a label
        # says which file a step reads. One file in parentheses is a source note, no label.
        labelled = labelled_files(goal)
        if len(labelled) >= 2:
            texts += " " + " ".join(label for label, f in labelled if f in read)
    # A month the goal spells ("April 2026") is used as the ISO text of its day or month.
    for start, end, iso in reversed(spelled_dates(goal, ordinals=True, shared_year=True, month_runs=True)):
        if iso in texts:
            # With ``tools``, the weekday right before the date is part of it ("Sunday the
            # sixth of September 2026", ``Refinements.dated_weekdays``).
            start = weekday_start(goal, start) if tools is not None and len(iso) == 10 else start
            goal = goal[:start] + " " + goal[end:]
    # With ``tools``, a name a listed option abbreviates ("Thursday" for Thu) is used by that
    # option (``Refinements.abbreviated_options``).
    options = set().union(*(listed_words(s) for s in tools.values())) if tools else set()

    def used(name: str) -> bool:
        said = abbreviation_of(name, options) if options else None
        return any(
            re.search(rf"(?<![\w./-]){re.escape(word)}(?![\w/-]|\.\w)", texts, re.IGNORECASE)
            for word in (name, *([said] if said else []))
        )

    # As a word of its own: "friday.txt" does not use the name Friday.
    return sum(1 for name in goal_names(goal) if not used(name))


_FILE_NAME_RE = re.compile(r"[\w./-]+\.[A-Za-z][A-Za-z0-9]{0,5}")
# A file in parentheses after the word that labels it: "April (fuel_log.jsonl)".
_LABELLED_FILE_RE = re.compile(r"([\w'’-]+)\s*\(\s*([\w./-]+\.[A-Za-z][A-Za-z0-9]{0,5})\s*\)")


def labelled_files(goal: str) -> list[tuple[str, str]]:
    """(label, file) for each file the goal puts in parentheses right after a word: "in March
    (march_log.jsonl) against April (fuel_log.jsonl)" → ("March", …), ("April", …)."""
    return [(m.group(1), m.group(2)) for m in _LABELLED_FILE_RE.finditer(goal)]


_FIELD_REF_RE = re.compile(r"\$\{(s\d+)\.([A-Za-z_]\w*)")


_SCALARS = frozenset(("string", "integer", "number", "boolean"))
_LITERAL_RE = re.compile(r"\"[^\"]*\"|'[^']*'|\S*[./]\w\S*")


def _field_terms(goal: str, questions: bool) -> set[str]:
    """The goal's terms that may name a record's field: not a file's name; with ``questions``,
    not the verb right after its subject either ("who *opened* …" names no "opened" field)."""
    text = _LITERAL_RE.sub(" ", goal)
    if questions:
        words = re.findall(r"[A-Za-z][\w'-]*", text)
        verbs = {w for b, w in zip(["", *words], words, strict=False) if verb_after_subject(w, b)}
        text = " ".join(w for w in words if w not in verbs)
    return set(terms(text))


def named_fields_as_text(
    plan: Plan, goal: str, tools: Mapping[str, ToolSpec] | None = None, *, questions: bool = False
) -> int:
    """Arguments taking, as text, a field the goal names ("list the ingredients of a.json" →
    ``${s1.ingredients}`` written out): writing it is what the goal asks, not a loose fit. With
    ``questions``, so is the field its question word asks for ("who …" → ``${s2.payee}``)."""
    goal_terms = _field_terms(goal, questions)
    question: Asked = asked_kind(goal) if questions and tools is not None else ""
    count = 0
    for step in plan.steps:
        for value in step.args.values():
            if isinstance(value, str) and _AS_TEXT_RE.match(value):
                m = _FIELD_REF_RE.match(value)
                if m and (set(terms(m.group(2))) & goal_terms or _answers(question, m, plan, tools)):
                    count += 1
    return count


def _answers(question: Asked, ref: re.Match[str], plan: Plan, tools: Mapping[str, ToolSpec] | None) -> bool:
    """Whether the field ``ref`` points at (``${sN.field}``) is of the kind the question asks."""
    if not question or tools is None:
        return False
    producer = next((s for s in plan.steps if s.id == ref.group(1)), None)
    spec = tools.get(producer.tool or "") if producer is not None else None
    if spec is None:
        return False
    fields = {
        c.text[2:-1].split(".", 1)[1]: c.types
        for c in reference_candidates(ref.group(1), spec)
        if "." in c.text
    }
    return ref.group(2) in answering_fields(question, fields, tools)


def unreferenced_fields(
    plan: Plan, goal: str, tools: Mapping[str, ToolSpec], *, questions: bool = False
) -> int:
    """Plain fields (text, numbers) the goal names ("the title of the recipe") of a record some
    step returns, where no argument takes that field: the record went whole to a tool that
    computes something else. One per such step. A list field named by the goal ("the number of
    steps") is often what a tool computes over, so it is not counted. With ``questions``, the
    verb after its subject names no field ("who *opened*")."""
    goal_terms = _field_terms(goal, questions)  # a file's name is not a field's
    taken = {(m.group(1), m.group(2)) for s in plan.steps for m in _FIELD_REF_RE.finditer(json.dumps(s.args))}
    count = 0
    for step in plan.steps:
        spec = tools.get(step.tool or "")
        if spec is None:
            continue
        fields = [
            c.text[2:-1].split(".", 1)[1]
            for c in reference_candidates(step.id, spec)
            if "." in c.text and c.types is not None and c.types <= _SCALARS
        ]
        named = [f for f in fields if set(terms(f)) & goal_terms]
        if not named or any((step.id, f) in taken for f in named):
            continue
        # A tool taking the whole record and saying it uses that field computes from it.
        whole = f"${{{step.id}}}"
        users = [
            tools[u.tool]
            for u in plan.steps
            if u.tool is not None
            and u.tool in tools
            and any(isinstance(v, str) and whole in v for v in u.args.values())
        ]
        named_terms = set(terms(" ".join(named)))
        if not any(named_terms & set(tool_terms(u)) for u in users):
            count += 1
    return count


def mean_logprob(raw: Any) -> float | None:
    """Mean log-probability per generated token from an OpenAI-style response, if it has them."""
    try:
        content = raw["choices"][0]["logprobs"]["content"]
        values = [float(t["logprob"]) for t in content]
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    return sum(values) / len(values) if values else None


def score_candidate(
    plan: Plan | None,
    problems: Sequence[Problem],
    goal: str,
    tools: Mapping[str, ToolSpec],
    *,
    prior: float = 0.0,
    likelihood: float | None = None,
    record_fields: bool = False,
    question_fields: bool = False,
    file_named: bool = False,
    abbreviations: bool = False,
    formatted_records: bool = False,
) -> CandidateScore:
    if plan is None:
        return CandidateScore(max(1, len(problems)) + 1000, 1000, 0.0, 0.0)
    findings = (
        len(check_coverage(plan, goal, tools, abbreviations=abbreviations).missing)
        + unused_outputs(plan, tools)
        + unused_names(plan, goal, tools if file_named else None)
    )
    q = question_fields
    field_cost = FIELD_COST * unreferenced_fields(plan, goal, tools, questions=q) if record_fields else 0.0
    named = named_fields_as_text(plan, goal, tools, questions=q) if record_fields else 0
    as_text = as_text_arguments(plan) - named
    # A list of records written raw while a tool lays such lists out: the listing was meant.
    raw = RECORDS_AS_TEXT_COST * records_as_text(plan, tools) if formatted_records else 0.0
    return CandidateScore(
        len(problems),
        findings,
        -(prior - AS_TEXT_COST * as_text - field_cost - raw),
        -(likelihood if likelihood is not None else 0.0),
    )
