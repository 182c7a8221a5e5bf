"""Slots: the allowed values of every argument of every step of a chain of tools (``bind``),
under typed data flow or the strict-literal rules; see ``decompose`` for the whole method."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from forethought.plan._schema import fits, item_types
from forethought.plan.coverage import flag_named
from forethought.plan.dates import date_numbers, date_range, single_day, spelled_dates, time_range
from forethought.plan.layout import split_layout
from forethought.plan.number_words import numbered_units, range_bounds, unit_nouns
from forethought.plan.unit_quantities import converted_units
from forethought.planning.abbreviated_options import abbreviated_options
from forethought.planning.bm25 import terms, tool_terms
from forethought.planning.boolean_values import boolean_options, negated_flag
from forethought.planning.bound_keepers import bounded_numbers
from forethought.planning.field_phrases import of_heads, partitive_fields
from forethought.planning.filter_fit import example_shapes, fitted_elsewhere, value_shape
from forethought.planning.goal_expressions import expression_param, expression_spans
from forethought.planning.goal_facts import WORDS_RE, GoalFacts, goal_facts
from forethought.planning.grammar import (
    _PATHY_PARAM,
    PlanSchemaBuilder,
    RefCandidate,
    reference_candidates,
    takes_file_name,
)
from forethought.planning.listed_options import option_words
from forethought.planning.number_ranges import bound_params
from forethought.planning.question_fields import (
    answering_fields,
    asked_kind,
    asks_day,
    day_fields,
    written_fields,
)
from forethought.planning.refinements import ALL_REFINEMENTS, Refinements
from forethought.planning.tool_roles import (
    days_by_range_only,
    filter_param,
    formatted_kind,
    is_dir_param,
    is_formatter,
    is_path_param,
    is_reader,
    names_a_place,
    param_kind,
    param_types,
    properties,
    range_params,
    required_params,
    takes_prefix,
    value_param,
)
from forethought.planning.value_filters import (
    NEGATION_WORDS,
    PLACEHOLDER_NOUNS,
    PRONOUNS,
    enumerated_options,
    no_value_words,
    value_docs,
    value_kind,
    value_words,
)
from forethought.planning.word_classes import PERSON_FIELD_NOUNS
from forethought.tools.base import ToolSpec

PERSON_FIELD_TERMS = frozenset(terms(" ".join(PERSON_FIELD_NOUNS)))


@dataclass
class Slots:
    """Per step (tool, {param: allowed values in preference order}); None = free (schema)."""

    steps: list[tuple[str, dict[str, list[Any] | dict[str, Any]]]] = field(default_factory=list)
    feasible: bool = True

    def decided(self) -> bool:
        return all(isinstance(v, list) and len(v) == 1 for _, args in self.steps for v in args.values())

    def first_plan(self) -> dict[str, Any]:
        """Every slot at its first (preferred) value."""
        steps = []
        for i, (tool, args) in enumerate(self.steps):
            chosen = {p: v[0] for p, v in args.items() if isinstance(v, list)}
            steps.append({"id": f"s{i + 1}", "tool": tool, "args": chosen})
        return {"steps": steps}

    def schema(self) -> dict[str, Any]:
        items = []
        for i, (tool, args) in enumerate(self.steps):
            props = {p: ({"enum": v} if isinstance(v, list) else v) for p, v in args.items()}
            items.append(
                {
                    "type": "object",
                    "properties": {
                        "id": {"const": f"s{i + 1}"},
                        "tool": {"const": tool},
                        "args": {
                            "type": "object",
                            "properties": props,
                            "required": list(props),
                            "additionalProperties": False,
                        },
                    },
                    "required": ["id", "tool", "args"],
                    "additionalProperties": False,
                }
            )
        return {
            "type": "object",
            "properties": {
                "steps": {
                    "type": "array",
                    "prefixItems": items,
                    "minItems": len(items),
                    "maxItems": len(items),
                }
            },
            "required": ["steps"],
            "additionalProperties": False,
        }


@dataclass(frozen=True)
class _Output:
    text: str  # "${s1.content}"
    step: int
    types: frozenset[str] | None
    pathy: bool  # the field is named like a path
    relevant: bool  # the field's name is a word of the goal
    items: frozenset[str] | None = None  # an array's item types (a list of records ≠ of strings)


def _outputs_of(
    k: int,
    spec: ToolSpec,
    goal_terms: set[str],
    person_terms: frozenset[str] = frozenset(),
    asked: Callable[[Mapping[str, frozenset[str] | None]], set[str]] | None = None,
    *,
    fileless: bool = False,
    heads: frozenset[str] = frozenset(),
) -> list[_Output]:
    """The references to step ``k``'s output and its fields. With ``person_terms`` (the goal
    asks "who"), a field naming a person or a name is the one the goal names, if there is one.
    With ``asked`` (the fields of the question word's kind, ``question_fields``), those are
    the ones the goal names -- those of them the goal also names, if any. With ``fileless`` (the
    tool opens no file), a field the goal names is no file's name, however it is named. With
    ``heads`` (``field_phrases.of_heads``), of several fields the goal names, those it takes as
    the part of something ("the *height* of the highest tide") are the ones named."""
    cands = reference_candidates(f"s{k + 1}", spec)
    fields = {c.text: c.text[2:-1].split(".", 1)[1] if "." in c.text else "" for c in cands}
    if asked is not None:
        chosen = asked({fields[c.text]: c.types for c in cands if fields[c.text]})
        kind = {t for t, f in fields.items() if f in chosen}
        persons = {t for t in kind if set(terms(fields[t])) & goal_terms} or kind
    else:
        persons = {t for t, f in fields.items() if f and set(terms(f)) & person_terms}
    found = []
    for c in cands:
        field_name = fields[c.text]
        named = bool(set(terms(field_name)) & goal_terms) if not persons else c.text in persons
        found.append(
            _Output(
                c.text,
                k,
                c.types,
                bool(field_name) and bool(_PATHY_PARAM.search(field_name)) and not (fileless and named),
                bool(field_name) and named,
                c.items,
            )
        )
    named_fields = {fields[o.text] for o in found if o.relevant}
    parts = partitive_fields(named_fields, heads) if len(named_fields) > 1 else set()
    if parts:
        # "The height of the highest tide": ``tide`` is the record's own noun, ``height_m`` the part asked.
        found = [dataclasses.replace(o, relevant=fields[o.text] in parts) if o.relevant else o for o in found]
    # When some field is named by the goal ("the words"), the other fields are not offered.
    if any(o.relevant for o in found):
        found = [o for o in found if o.relevant or o.text.count(".") == 0]
    return found


_START_WORDS_RE = r"\b(?:start(?:s|ing)?|begin(?:s|ning)?)\s+with\s+[\"'`“]?"


def _said_as_start(value: str, goal: str) -> bool:
    """Whether the goal says ``value`` as the start of something: a path from the root
    ("/images/"), or right after "starting with" ("names beginning with "Mc"")."""
    return value.startswith("/") or bool(re.search(_START_WORDS_RE + re.escape(value), goal, re.IGNORECASE))


def _near_words(pname: str, facts: GoalFacts) -> list[str]:
    """Plain goal words right before or after the parameter's name in the goal, verbs not."""
    pterm = terms(pname)
    # The clause's verb is no value ("*restock* sku B-200": the verb, then the parameter's noun).
    plain = {w.lower() for w in facts.words} - facts.verbs
    tokens = WORDS_RE.findall(facts.goal)
    near: list[str] = []
    for i, w in enumerate(tokens):
        if pterm and terms(w) == pterm:
            # "a memo *titled* todo": the participle names what follows, never what precedes.
            sides = (i + 1,) if w.lower().endswith("ed") else (i - 1, i + 1)
            near += [
                tokens[j]
                for j in sides
                if 0 <= j < len(tokens) and tokens[j].lower() in plain and terms(tokens[j]) != pterm
            ]
    return list(dict.fromkeys(near))


def _word_options(
    spec: ToolSpec, pname: str, facts: GoalFacts, explained: set[str], closed: set[str] | None = None
) -> list[str]:
    """Goal words for a short free string: a plain word right next to the parameter's name in
    the goal ("the amount column"), else the goal's plain words that neither start a clause nor
    are explained by a chosen tool's description; with ``closed`` (``no_value_words``), none of
    those words ("the *biggest* expense", "how much *went* on …")."""
    pterm = terms(pname)
    near = _near_words(pname, facts)
    rest = [
        w
        for w in facts.words
        if w.lower() not in facts.verbs
        and not (set(terms(w)) & explained)
        and terms(w) != pterm
        and not (closed is not None and w.lower() in closed)
    ]
    return list(dict.fromkeys(near or rest))


def bind(
    chain: Sequence[str],
    goal: str,
    tools: Mapping[str, ToolSpec],
    *,
    typed: bool = True,
    refinements: Refinements = ALL_REFINEMENTS,
) -> Slots:
    """The allowed values of every argument of every step of ``chain`` (see the module doc)."""
    if refinements.converted_units:
        goal = converted_units(goal, tools)  # "longer than a second" → "… 1000 milliseconds"
    if refinements.unit_numbers:
        goal = numbered_units(goal, unit_nouns(tools))  # "four stars" → "4 stars"
    if refinements.bounded_keepers:
        goal = bounded_numbers(goal, tools)  # "lower than a metre" → "lower than 1 metre"
    if refinements.abbreviated_options:
        listed = set().union(*(enumerated_options(spec, glossed=True) for spec in tools.values()))
        goal = abbreviated_options(goal, tools, listed)  # "from the west" → "from the W"
    facts = goal_facts(goal, refinements)
    if not typed:
        return _bind_untyped(chain, facts, tools)
    if refinements.date_numbers:
        # "April 15th, 2026": the year is part of a date, no number of its own.
        inside = date_numbers(
            goal,
            ordinals=refinements.spelled_ordinals,
            shared_year=refinements.shared_years,
            month_runs=refinements.month_runs,
        )
        numbers = tuple(n for n in facts.literals.numbers if n not in inside)
        facts = dataclasses.replace(facts, literals=dataclasses.replace(facts.literals, numbers=numbers))
    goal_terms = set(terms(" ".join(facts.words)))
    explained = set().union(*(set(tool_terms(tools[n])) for n in chain)) if chain else set()
    values: list[str] = []
    times = refinements.spelled_times  # a range of times of day, as of days
    formats = refinements.time_formats  # "(HH:MM), on any date": a time's parameter
    ranged = refinements.spelled_dates and any(
        range_params(tools[n], times=times, formats=formats) is not None for n in chain
    )
    places = refinements.place_params  # "for a given destination": a town, not a file
    if refinements.value_filters and (
        ranged or any(value_param(tools[n], places=places) is not None for n in chain)
    ):
        docs = value_docs(tools, examples=refinements.example_values)
        values = value_words(facts, docs, refinements, tools)
    # A range of days: a month's first and last day, or the goal's first two days in order.
    days = date_range(values) if ranged else None
    date_spans = spelled_dates(goal, ordinals=True, shared_year=True) if refinements.single_days else []
    date_words = {w for a, b, _ in date_spans for w in goal[a:b].split()}  # the spelled dates' words
    if ranged and days is None and refinements.single_days and days_by_range_only(tools, places=places):
        days = single_day(goal, values, date_spans)  # "made on the 25th of April 2026": from it to itself
    hours = time_range(values) if ranged and times else None
    # "Who": of a record's fields, the person's or the name is what the goal asks for.
    person_fields = PERSON_FIELD_TERMS if refinements.who_person and facts.asks_who else frozenset()
    # The question word chooses the field: "who" a person's, "how much" a number, "when" a date.
    question = asked_kind(goal) if refinements.question_fields else ""
    # "On which day did …": a date, and of the date fields a day's, not a time of day.
    day = refinements.day_questions and asks_day(goal)
    if day and not question:
        question = "date"
    asked: Callable[[Mapping[str, frozenset[str] | None]], set[str]] | None = None
    # The phrase the writing verb takes names the field written ("write the plant's name"),
    # before the question word's kind does; "who" still asks for a person.
    by_phrase = refinements.written_fields and question not in ("person", "patient")
    if question or by_phrase:

        def asked(fields: Mapping[str, frozenset[str] | None]) -> set[str]:
            labels = refinements.label_phrases  # "a.txt: the platform that …"
            derived = refinements.derived_date_fields  # "departs": "the departure time"
            named = (
                written_fields(goal, facts.outputs, fields, tools, labels=labels, derived=derived)
                if by_phrase
                else set()
            )
            answering = answering_fields(question, fields, tools, derived=derived) if question else set()
            return named or (day_fields(answering) if day and question == "date" else answering)

    closed = no_value_words(goal) if refinements.fallback_classes else None
    if closed is not None and refinements.pronouns:
        closed |= PRONOUNS  # "has *she* borrowed": someone named elsewhere, no value itself
    if closed is not None and refinements.head_nouns:
        closed |= PLACEHOLDER_NOUNS  # "the first *thing* sown"
    if closed is not None and refinements.negated_values:
        closed |= NEGATION_WORDS  # "received *but not* processed"
    # Two files read, one written: a step run once per file has a result per file to write.
    per_file = refinements.per_file_results and len(facts.inputs) >= 2 and len(facts.outputs) == 1
    # "The height of the highest tide": of two fields the goal names, the part before "of".
    heads = of_heads(goal) if refinements.partitive_fields else frozenset()
    slots = Slots()
    outputs: list[_Output] = []
    consumed: set[int] = set()
    used_literals: set[str] = set()
    for k, name in enumerate(chain):
        spec = tools[name]
        args: dict[str, list[Any] | dict[str, Any]] = {}
        required = set(required_params(spec))
        this_step: set[int] = set()  # one output feeds one argument of a step, not two
        for pname, pschema in properties(spec).items():
            want = param_types(spec, pname)
            visible = [o for o in outputs if o.step not in this_step]
            options = _param_options(
                spec,
                pname,
                pschema,
                want,
                facts,
                visible,
                consumed,
                used_literals,
                explained,
                named_fields_only=refinements.record_fields,
                named_numbers=refinements.whole_values,
                numbers_first=refinements.named_numbers_first,
                optional_references=refinements.optional_references,
                closed=closed,
                untyped_as_text=refinements.expression_literals,
                lone_field=refinements.expression_literals,
                places=places,
            )
            if values and pname == value_param(spec, places=places) and isinstance(options, list):
                # A filter's text takes the goal's value words when it can (a literal the goal
                # quotes or a word next to the parameter's name stays first).
                fitting = [v for v in values if v in options]
                if refinements.whole_values:
                    # Whole values (a name of several words, a date) are goal text as they
                    # stand; each goes only to a parameter of its kind.
                    kind = param_kind(spec, pname, day_times=refinements.day_times)
                    fitting = [v for v in values if value_kind(v) == kind] or (
                        [v for v in fitting if value_kind(v) == "text"] if kind != "text" else []
                    )
                if refinements.option_values and not enumerated_options(spec, glossed=True):
                    # An option another tool lists ("discarded") is that tool's value, not this one's.
                    listed = set().union(*(enumerated_options(t, glossed=True) for t in tools.values()))
                    fitting = [v for v in fitting if v.lower() not in listed] or fitting
                if refinements.named_after_param:
                    # "(category utilities)", "status: open": the value right after the
                    # parameter's name is its value.
                    fitting = _option_order(fitting, goal, pname)
                if refinements.fitting_filters:
                    # Of several text filters, a bare name goes to the one the goal's words
                    # around it and its shape fit best ("at the Long Field": ``at_place``).
                    claimed = {v for v in values if fitted_elsewhere(v, goal, name, tools, places=places)}
                    if claimed:
                        fitting = [v for v in fitting if v not in claimed]
                        options = [o for o in options if o not in claimed]
                if places and names_a_place(spec, pname):
                    # "trains to York from Central": the value "to"/"for" leads is where things
                    # go, the one "from" leads where they leave (a source's, an origin's).
                    fitting = _place_order(fitting, goal, pname) or fitting
                options = fitting + [o for o in options if o not in fitting] if fitting else options
                if fitting and options[0] in values:
                    options = fitting
            if (
                refinements.fitting_filters
                and isinstance(options, list)
                and pname == filter_param(spec, places=places)
                and (shapes := example_shapes(spec, pname))
            ):
                # A goal word the filter would have to guess is no value of another shape than
                # its examples' ("the observer's initials": "s" is no "JK").
                options = [
                    o
                    for o in options
                    if not isinstance(o, str)
                    or o.startswith("${")
                    or o in values
                    or value_shape(o) in shapes | {"other"}
                ]
            if (
                refinements.single_days
                and isinstance(options, list)
                and pname == value_param(spec, places=places)
            ):
                # "made on the twenty-fifth of April 2026": the words of a date the goal spells
                # are the date's, no text of their own.
                options = [o for o in options if not (isinstance(o, str) and o in date_words)]
            if refinements.prefix_values and isinstance(options, list) and takes_prefix(spec, pname):
                # A start to keep items by is said as one: a path from the root ("paths under
                # /images/") or a text after "starting with"; any other goal word ("half past
                # ten") is none.
                options = [
                    o
                    for o in options
                    if not isinstance(o, str) or o.startswith("${") or _said_as_start(o, goal)
                ]
            if (
                refinements.shaped_values
                and isinstance(options, list)
                and (shape := formatted_kind(spec, pname, places=places))
            ):
                # A parameter whose description gives a format ("YYYY-MM-DD", "HH:MM") takes only
                # values of that shape ("ONC-7" is no date) or an earlier step's output.
                options = [
                    o
                    for o in options
                    if not isinstance(o, str) or o.startswith("${") or value_kind(o) == shape
                ]
            if refinements.laid_out_values and isinstance(options, list) and _selects_by(spec, pname, places):
                # A value to select by is one value; text laying out many items (a formatter's
                # result) is none, whatever its type says.
                options = [o for o in options if not _laid_out(o, chain, tools)]
            if (
                refinements.same_as_filters
                and isinstance(options, list)
                and _selects_by(spec, pname, places)
                and not _SAMENESS_RE.search(goal)
            ):
                # "the first train to York": a filter by a field of a record an earlier step
                # picked ("trains as late as the first one") is asked for by "same"/"as" only.
                options = [o for o in options if not (isinstance(o, str) and _FIELD_REF_RE.fullmatch(o))]
            if (
                refinements.option_values
                and isinstance(options, list)
                and pname == value_param(spec, places=places)
                and (allowed := enumerated_options(spec, glossed=True))
            ):
                # Only the options the tool lists fit ("NEURO-1", "mL" are no status); the
                # option the goal puts right after the parameter's name ("status received")
                # is the one; an earlier record's field of its name may be one too.
                options = _option_order(
                    [
                        o
                        for o in options
                        if isinstance(o, str) and (o.lower() in allowed or _same_field(o, pname))
                    ],
                    goal,
                    pname,
                )
            if per_file and isinstance(options, list) and options:
                runs = _per_file_results(
                    chain,
                    tools,
                    spec,
                    pname,
                    want,
                    outputs,
                    consumed,
                    len(facts.inputs),
                    readers=refinements.per_file_readers,
                    named=set(terms(split_layout(goal)[0])) if refinements.per_file_fields else None,
                    heads=heads,
                )
                if runs:
                    options = [runs]
            bounds = range_params(spec, times=times, formats=formats)
            if bounds is not None and pname in bounds:
                # A range of days, or (``spelled_times``) of times of day: each bound its value.
                span = days if param_kind(spec, pname, formats=formats) == "date" else hours
                if span is not None:
                    options = [span[bounds.index(pname)]]
            if refinements.expression_literals and pname == expression_param(spec):
                # An expression the goal writes out is one value, taken whole (``goal_expressions``).
                spans = expression_spans(goal)
                unused = [e for e in spans if e not in used_literals]
                # Without one, nothing is: a file's text handed to ``calculate`` is no expression
                # ("find the largest qty in data.csv" ran calculate on the CSV and failed).
                options = unused + [e for e in spans if e not in unused]
            if refinements.listed_options and want == {"string"} and not is_path_param(spec, pname):
                # A listed option the goal says ("5 km to m") is this parameter's value, each
                # parameter of the list taking a different one (``listed_options``).
                taken = [a[0] for a in args.values() if isinstance(a, list) and a and isinstance(a[0], str)]
                picks = option_words(spec, pname, goal, taken)
                if picks:
                    options = picks
            if refinements.number_ranges and (pair := bound_params(spec)) is not None and pname in pair:
                # "between two and five kilos": the low bound 2, the high bound 5 (``number_ranges``).
                bound = range_bounds(goal)[pair.index(pname)]
                if bound is not None:
                    options = [float(bound) if "integer" not in (want or set()) else int(bound)]
            if refinements.boolean_polarity and want == {"boolean"} and isinstance(options, dict):
                # A required flag is no choice for the model: the goal negates it or not.
                options = boolean_options(spec, pname, goal)
                if refinements.negated_flags and negated_flag(spec, goal):
                    options = [False]  # "the *unpaid* bookings": the flag's word, negated
            if (
                options is None
                and refinements.named_flags
                and want == {"boolean"}
                and flag_named(pname, goal)
            ):
                options = [True]  # "append 'done' to notes.txt": the flag the goal says is on
            if options is None:
                continue
            if not options:
                if pname in required:
                    slots.feasible = False
                continue
            args[pname] = options
            first = options[0] if isinstance(options, list) else None
            if isinstance(first, str):
                m = re.fullmatch(r"\$\{s(\d+)[^}]*\}(?:\n)?", first)
                if m:
                    consumed.add(int(m.group(1)) - 1)
                    this_step.add(int(m.group(1)) - 1)
                else:
                    used_literals.add(first)
        slots.steps.append((name, args))
        # The question word asks about the answer: a step whose output a later read-only step
        # still works on is not answering it ("how many words are in notes.txt?": the file's
        # number field, its size, is no answer, and keeping only it left text_stats no text).
        later_reader = any(tools[n].effect == "read_only" for n in chain[k + 1 :])
        answering = asked if not (refinements.question_last_step and later_reader) else None
        # A record of a tool that opens no file or folder: a "path" field the goal names is data.
        fileless = refinements.record_paths and not any(
            takes_file_name(spec, p) or is_dir_param(spec, p) for p in properties(spec)
        )
        outputs += _outputs_of(k, spec, goal_terms, person_fields, answering, fileless=fileless, heads=heads)
    return slots


# Words asking for items like another ("the same course as", "as late as", "like the first").
_SAMENESS_RE = re.compile(r"\b(?:same|as|like|also|too|matching|shared?)\b", re.IGNORECASE)
_FIELD_REF_RE = re.compile(r"\$\{s\d+\.[A-Za-z_]\w*\}\n?")


_WHOLE_REF_RE = re.compile(r"\$\{s(\d+)\}\n?")


def _laid_out(option: Any, chain: Sequence[str], tools: Mapping[str, ToolSpec]) -> bool:
    """Whether ``option`` is the whole result of a step of ``chain`` laying a list out as text."""
    m = _WHOLE_REF_RE.fullmatch(option) if isinstance(option, str) else None
    return m is not None and is_formatter(tools[chain[int(m.group(1)) - 1]])


def _selects_by(spec: ToolSpec, pname: str, places: bool) -> bool:
    """Whether ``pname`` is what a read-only tool taking a list selects its items by: its
    value parameter, or a number or text beside the list ("min_minutes", "below")."""
    if pname == value_param(spec, places=places):
        return True
    kinds = param_types(spec, pname) or set()
    lists = [p for p in required_params(spec) if param_types(spec, p) == {"array"}]
    return (
        spec.effect == "read_only"
        and bool(lists)
        and pname not in lists
        and kinds <= {"integer", "number", "string"}
    )


def _same_field(option: str, pname: str) -> bool:
    """Whether ``option`` is a reference to an earlier record's field named as the parameter
    is ("${s2.stage}" for ``stage``): one that holds one of the parameter's options."""
    m = re.fullmatch(r"\$\{s\d+\.([A-Za-z_]\w*)\}", option)
    return m is not None and bool(set(terms(m.group(1))) & set(terms(pname)))


def _option_order(options: list[Any], goal: str, pname: str) -> list[Any]:
    """Of ``options``, the ones the goal names right after the parameter's name ("status
    received", "status: open"), if any; else all of them."""
    words = [w for w in re.findall(r"[A-Za-z][a-z]*", pname) if len(w) >= 3]
    # The whole name ("due date") or one of its words ("client" for ``client_code``).
    name = (
        "|".join([r"[\s_-]+".join(map(re.escape, words)), *map(re.escape, words)])
        if words
        else re.escape(pname)
    )
    name = f"(?:{name})"
    named = [
        o
        for o in options
        if isinstance(o, str) and re.search(rf"\b{name}\s*(?:[:=]|is)?\s*{re.escape(o)}\b", goal, re.I)
    ]
    return named or options


_TOWARDS_PARAM_RE = re.compile(r"dest|target", re.IGNORECASE)


def _place_order(values: Sequence[str], goal: str, pname: str) -> list[str]:
    """Of the goal's values, those a place parameter takes: after "to"/"for"/"towards" for a
    destination's or a target's, after "from" for a source's or an origin's; [] when none is."""
    leads = r"to|for|towards|into" if _TOWARDS_PARAM_RE.search(pname) else r"from|out\s+of"
    return [
        v for v in values if re.search(rf"\b(?:{leads})\s+(?:the\s+)?{re.escape(v)}(?![\w-])", goal, re.I)
    ]


def _per_file_results(
    chain: Sequence[str],
    tools: Mapping[str, ToolSpec],
    spec: ToolSpec,
    pname: str,
    want: set[str] | None,
    outputs: Sequence[_Output],
    consumed: set[int],
    files: int,
    readers: bool = False,
    named: set[str] | None = None,
    heads: frozenset[str] = frozenset(),
) -> str:
    """The text a writer writes when the same step ran once per file ("count_loans" for a.json
    and for b.json): every run's unused whole result, one per line ("${s2}\n${s4}\n"). "" when
    this is no writer's text parameter or no step ran once per each of the ``files`` with its
    result unused. With ``readers``, when only the readers ran per file, their texts in turn.
    With ``named`` (the goal's BM25 terms), a record of which the goal names exactly one
    field gives that field of each run ("the word count of a.txt and of b.txt": ``${s2.words}``)."""
    if spec.effect == "read_only" or is_path_param(spec, pname) or want is None or "string" not in want:
        return ""
    fresh = [o for o in outputs if o.step not in consumed and "." not in o.text]
    fresh = [o for o in fresh if not is_reader(tools[chain[o.step]])]
    by_tool: dict[str, list[_Output]] = {}
    for o in fresh:
        by_tool.setdefault(chain[o.step], []).append(o)
    runs = [group for group in by_tool.values() if len(group) == files]
    if len(runs) == 1:
        field = _named_field(tools[chain[runs[0][0].step]], named, heads) if named is not None else None
        pick = f".{field}" if field is not None else ""
        return "".join(f"{o.text[:-1]}{pick}}}\n" if pick else f"{o.text}\n" for o in runs[0])
    if runs or not readers:
        return ""
    # Nothing ran per file but the readers: "write the contents of a.txt and b.txt to c.txt"
    # wrote a.txt's text alone (or, to use both, a word count of each). Each reader's one text
    # output is written in the goal's order, as ``cat`` would.
    texts: dict[int, list[_Output]] = {}
    for o in outputs:
        if (
            o.step not in consumed
            and is_reader(tools[chain[o.step]])
            and o.types == frozenset({"string"})
            and not o.pathy
        ):
            texts.setdefault(o.step, []).append(o)
    read = [group[0].text for group in texts.values() if len(group) == 1]
    return "".join(read) if len(read) == files == len(texts) else ""


def _named_field(spec: ToolSpec, named: set[str], heads: frozenset[str] = frozenset()) -> str | None:
    """The one field of ``spec``'s record output whose words are all among ``named``; of
    several, the one an "X of" phrase's head names (``heads``: "the heights of …")."""
    schema = spec.output_schema or {}
    props = schema.get("properties") if schema.get("type") == "object" else None
    if not isinstance(props, Mapping):
        return None
    if heads:
        # "The weights of a.txt's and b.txt's heaviest catches": the one field "weights" names
        # (``weight_kg``), though the goal says no "kg".
        parts = partitive_fields([str(p) for p in props], heads)
        if len(parts) == 1:
            return parts.pop()
    fields = [str(p) for p in props if (words := set(terms(str(p)))) and words <= named]
    return fields[0] if len(fields) == 1 else None


def _param_options(
    spec: ToolSpec,
    pname: str,
    pschema: Any,
    want: set[str] | None,
    facts: GoalFacts,
    outputs: list[_Output],
    consumed: set[int],
    used_literals: set[str],
    explained: set[str],
    named_fields_only: bool = False,
    named_numbers: bool = False,
    closed: set[str] | None = None,
    untyped_as_text: bool = False,
    lone_field: bool = False,
    places: bool = False,
    numbers_first: bool = False,
    optional_references: bool = False,
) -> list[Any] | dict[str, Any] | None:
    """Allowed values for one parameter, preferred first; None = leave it out (optional)."""
    required = pname in required_params(spec)
    # An optional parameter the goal does not name takes no step's output. Named by the goal's
    # plain words only: a file name is no name of a parameter ("… to max.txt" names no
    # ``max_bytes``; it made a.txt's size b.txt's read limit, and one count was written).
    if optional_references and not required and not set(terms(pname)) & set(terms(" ".join(facts.words))):
        outputs = []
    pschema = pschema if isinstance(pschema, Mapping) else {}
    if any(k in pschema for k in ("enum", "const")) or want == {"boolean"}:
        return dict(pschema) if required else None
    path = is_path_param(spec, pname, places=places)
    if is_dir_param(spec, pname):
        dirs = list(facts.literals.directories)
        return dirs if dirs else ([] if required else None)
    # Earlier outputs whose type fits (fresh ones oldest first, so a chain consumes in order),
    # or, for a non-path string, that fit as text; a path-named field only into a path.
    exact: list[_Output] = []
    as_text: list[_Output] = []
    for o in outputs:
        if o.pathy != path:
            continue
        if fits(o.types, o.items, want, item_types(pschema, spec.input_schema)):
            exact.append(o)
        elif want is not None and "string" in want and not path and spec.effect != "read_only":
            as_text.append(o)  # a number or list written out as text; never fed on as text
    # Outputs are consumed in order: only the oldest unused step's fitting outputs are offered.
    fresh_exact = [o for o in exact if o.step not in consumed]
    fresh_exact = [o for o in fresh_exact if o.step == fresh_exact[0].step]
    # An output of no declared type ("value": any) may be a number: a side-effecting tool's
    # parameter taking only text gets it as text, interpolated, as it gets a number written out
    # (``as_text``); a read-only tool still gets the value as it is.
    untyped_text = untyped_as_text and want == {"string"} and spec.effect != "read_only"
    fresh = [o.text + "\n" if untyped_text and o.types is None else o.text for o in fresh_exact]
    if not fresh:  # as text only when nothing fits as it is: fields the goal names first
        fresh_text = [o for o in as_text if o.step not in consumed]
        fresh_text = [o for o in fresh_text if o.step == fresh_text[0].step]
        fresh_text.sort(key=lambda o: (not o.relevant, o.text.count(".")))
        if named_fields_only and sum(o.relevant for o in fresh_text) == 1:
            # The one field the goal names ("how many servings") is what is written, not the
            # record (naming two, "the vowels and digits", the whole record may be meant).
            fresh_text = [o for o in fresh_text if o.relevant]
        if lone_field and fresh_text:
            # A record of one field ({"result": 36}) is written as that field's value, not as JSON.
            fields = [o for o in outputs if o.step == fresh_text[0].step and "." in o.text]
            if len(fields) == 1 and fields[0] in fresh_text:
                fresh_text = fields
        fresh = [o.text + "\n" for o in fresh_text]
    used = [o.text for o in reversed(exact) if o.step in consumed]
    # A plain goal word right next to the parameter's name ("the amount column") names its value.
    near = _near_words(pname, facts) if want == {"string"} and not path and required else []
    if near:
        return near
    if path:
        pool = facts.outputs if spec.effect != "read_only" else facts.inputs
        # Literals are consumed in the goal's order: the first unused one, else any.
        unused = [s for s in pool if s not in used_literals][:1]
        return (unused or list(pool)) or fresh + used or ([] if required else None)
    if fresh and numbers_first and want is not None and want & {"integer", "number"} and "string" not in want:
        # "at least 10 minutes late": the number the goal names by the parameter ("min_minutes")
        # is its value, not whatever number an earlier step computes.
        named = [
            n
            for n in _numbers_named(pname, facts.goal, partly=True)
            if "number" in want or float(n).is_integer()
        ]
        if named:
            return named
    if fresh:
        return fresh
    literals: list[Any] = []
    if want is not None and want & {"integer", "number"} and "string" not in want:
        for n in facts.literals.numbers:
            if "integer" in want and float(n).is_integer():
                literals.append(int(n))
            elif "number" in want:
                literals.append(n)
        named = [n for n in _numbers_named(pname, facts.goal) if n in literals] if named_numbers else []
        if named:  # "12.5 hours", "a rate of 64": the number the goal names by the parameter
            literals = named
    elif want is not None and "string" in want:
        literals = [c for c in facts.contents if c not in used_literals] or list(facts.contents)
        if not literals and required:
            literals = _word_options(spec, pname, facts, explained, closed)
    if not required:
        return None
    return literals + used


_NUMBER_WORDS_RE = re.compile(
    r"(?:([A-Za-z]+)\s+(?:of|at|is|=|:)?\s*)?(?<![\w.:/-])(-?\d+(?:\.\d+)?)(?![\w.]|[-/:]\d)(?:\s+([A-Za-z]+))?"
)


def _numbers_named(pname: str, goal: str, *, partly: bool = False) -> list[float | int]:
    """The goal's numbers that the parameter's name stands next to: the noun after the number
    ("12.5 hours") or the word before it, with or without "of"/"at" ("a rate of 64"); with
    ``partly``, a noun that is one word of the name ("10 minutes" for ``min_minutes``)."""
    pterms = terms(pname)
    found: list[float | int] = []
    for m in _NUMBER_WORDS_RE.finditer(goal):
        near = (terms(m.group(1) or ""), terms(m.group(3) or ""))
        if (pterms and pterms in near) or (partly and any(t and set(t) <= set(pterms) for t in near)):
            value = float(m.group(2))
            found.append(int(value) if value.is_integer() else value)
    return found


def _bind_untyped(chain: Sequence[str], facts: GoalFacts, tools: Mapping[str, ToolSpec]) -> Slots:
    """The pre-typed-flow rules: strict goal literals, references by type (PlanSchemaBuilder)."""
    sub = {n: tools[n] for n in dict.fromkeys(chain)}
    builder = PlanSchemaBuilder(sub, literals=facts.literals, max_string=200)
    slots = Slots()
    refs: list[RefCandidate] = []
    for k, name in enumerate(chain):
        args_schema = builder._args_schema(name, refs) or builder._args_schema(name, refs, relaxed=True)
        if args_schema is None:
            slots.feasible = False
            return slots
        args: dict[str, list[Any] | dict[str, Any]] = {}
        props = args_schema.get("properties") or {}
        required = set(args_schema.get("required") or ())
        for pname, ps in props.items():
            if pname not in required:
                continue
            values = _enum_values(ps)
            args[pname] = values if values is not None else dict(ps)
        slots.steps.append((name, args))
        refs += reference_candidates(f"s{k + 1}", tools[name])
    return slots


def _enum_values(schema: Any) -> list[Any] | None:
    if not isinstance(schema, Mapping):
        return None
    if isinstance(schema.get("enum"), list):
        return list(schema["enum"])
    if isinstance(schema.get("anyOf"), list):
        out: list[Any] = []
        for sub in schema["anyOf"]:
            vals = _enum_values(sub)
            if vals is None:
                return None
            out += vals
        return out
    return None


def plan_text(data: Mapping[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
