"""Decompose, then fill: the goal's clauses choose the tools, typed data flow binds the arguments.

A 135M model cannot choose among a dozen tools and wire their arguments at the same time; it can
fill a handful of slots when everything else is fixed. So planning is split:

1. **Skeletons** (``skeletons``): the goal is split into clauses (``clauses.split_clauses``); for
   each clause the tools are ranked by BM25 (``bm25``). A clause that names an output of the goal
   (``… to summary.md``, found by ``plan.coverage.goal_outputs``) ends in a *writer* (a
   side-effecting tool with a path-like parameter), optionally after the best-ranked transformers;
   another clause takes its first or second-ranked tool. When the goal names input files and no
   step in the chain reads files, a *reader* (a read-only tool whose only required parameter is
   path-like) is put first, one per input file, chosen by whether its output fits what the next
   step needs. Every combination of clause choices is a skeleton; its *prior* is how many of the
   goal's words the chosen tools' documents explain (readers aside: they are there for the
   types), minus a little per step.
2. **Slots** (``bind``): for each argument of each step, the values it may take. Without typed
   flow these are the old strict-literal rules (``PlanSchemaBuilder``). With typed flow:

   - an earlier step's output (or a field of it) only where its JSON type fits the parameter; a
     number, list or object output may feed a string parameter *as text* (``"${s2}\\n"``, the
     reference interpolated), never the other way round; a path-named output field feeds only
     path-like parameters and other fields only other parameters;
   - outputs no later step has taken yet come first, and when one fits, already-used ones are
     not offered (so a computed result is written rather than the input it came from);
   - a file name the goal names as an output only to a path-like parameter of a writer, an input
     file only to a path-like parameter of a read-only tool, each unused one first;
   - a quoted goal string to a non-path string parameter; a number of the goal to a numeric one;
     a short free string (a column, a search term) to a goal word next to the parameter's name in
     the goal, else a goal word that neither starts a clause nor is explained by a chosen tool.
3. **Fill**: a slot with one value is decided; when every slot is, the plan is built without a
   model call. Otherwise the model fills the plan under a grammar of exactly these slots.

Refinements (``Refinements``, each switchable, all on by default; added after held-out suite 5):

- *name precision*: next to a tool whose name says nothing but goal words (``peak`` for "the
  peak"), a tool whose name shares a goal word loses half a point per other word of its name
  (``time_of_peak``);
- *value filters*: a goal word no tool explains that qualifies one they do ("dairy items", "the
  amount of spice"), a name the goal capitalizes ("in Oslo") or a one-word quoted text is a
  value; a tool taking one short text besides its data (a filter: list in, same list out; or a
  selector: "the region column") explains it by taking it, and is put into chains that lack one;
- *record fields*: a reader's record fields named by the goal explain those words (a number
  field also "how many"), reader → writer is a chain of its own, the one named field is the only
  as-text value offered, and a named plain field no argument takes costs the candidate points;
- *a reader per input*: two input files feeding a tool of two data parameters get a reader
  each, by type and by the files' names.

Added after held-out suite 6 (also switchable):

- *whole values*: a value is taken whole -- a run of words before its noun ("science fiction
  books"), a multi-word name ("Ursula K. Le Guin"), a date or time ("2026-11-03", one value and
  no numbers) -- and also after "for"/"by"/"from"/"on" ("entries for carol") or between its
  noun and a past-tense verb ("the hours alice worked"); function verbs ("were", "should") never
  are values; a date or time goes only to a parameter of that kind; a number goes to the
  parameter the goal names it by ("12.5 hours", "a rate of 64");
- *example values*: words a description gives as examples ("for example fantasy") stay values;
- *layout apart*: layout phrases ("one per line", "as a list") and a generic verb before them
  are ranked apart from the clause, so they add a formatter but do not choose its tool;
- *output position*: the subject of a modal sentence ("pages.txt should hold …") or a target
  named first ("Into pages.txt, write …") is the output when the goal reads another file.

Added after held-out suite 10 (also switchable): label values ("bed B"), names opening a
sentence ("Tom Okafor's"), pronouns and placeholder nouns never values, the noun an ordinal
grades no value, a reader a later clause chose goes first, the written phrase names the field
("write the plant's name"), spelled dates as ISO values and a month as a range of days, a filter
per kind of value, an arrow points at the output, and a chain run once per coordinated input file
(see ``Refinements``).

Nothing here knows a particular goal, tool or phrasing: the rules read types, effects, parameter
names' path-likeness and the goal's literals and words.

Who owns what: this module chooses the chains (step 1) and orchestrates; ``goal_facts`` reads the
goal's text, ``tool_roles`` the tools' schemas and effects, ``value_filters`` (with
``word_classes``) decides which goal words are values, ``slots`` binds a chain's arguments
(step 2), and ``refinements`` holds the switches.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from forethought.plan._schema import fits, item_types, types_of
from forethought.plan.coverage import asks_number, counts_items
from forethought.plan.dates import date_range, single_day, spelled_dates, spelled_times, time_range
from forethought.plan.layout import split_layout
from forethought.plan.number_words import numbered_units, range_bounds, unit_nouns
from forethought.plan.unit_quantities import converted_units
from forethought.plan.verbs import SYNONYMS
from forethought.planning.abbreviated_options import abbreviated_options
from forethought.planning.answer_shapes import (
    PLURAL_COST,
    asks_count_only,
    asks_every,
    laid_out_result,
    runs_per_file,
    single_result,
    takes_place,
    towards,
)
from forethought.planning.bm25 import BM25, quantity_words, stem, terms, tool_index, tool_terms
from forethought.planning.boolean_values import flag_param, negated_flag, prefixed_flag
from forethought.planning.bound_keepers import bounded_keepers, bounded_numbers, goal_bounds, returns_list
from forethought.planning.filter_fit import fitted_elsewhere
from forethought.planning.goal_expressions import evaluators, expression_spans
from forethought.planning.goal_facts import GoalFacts, goal_facts, name_words, plain_words
from forethought.planning.number_ranges import bound_params
from forethought.planning.refinements import ALL_REFINEMENTS, Refinements
from forethought.planning.summed_amounts import summed_counts
from forethought.planning.tool_roles import (
    days_by_range_only,
    filter_param,
    fits_first_need,
    formatted_kind,
    is_formatter,
    is_path_param,
    is_reader,
    is_writer,
    output_fields,
    param_kind,
    param_types,
    properties,
    range_params,
    reads_files,
    record_fields,
    required_params,
    taker_kind,
    value_param,
)
from forethought.planning.value_filters import enumerated_options, value_docs, value_kind, value_words
from forethought.planning.word_classes import (
    PERSON_FIELD_NOUNS,
    PERSON_NOUNS,
    SUPERLATIVE_GROUPS,
    is_superlative,
    superlative_mates,
)
from forethought.tools.base import ToolSpec

STEP_COST = 0.25  # prior points per step: more steps must explain more of the goal
# Per word of a tool's name the goal does not say: a name asserts every one of its words, so
# ``time_of_peak`` fits "the peak" worse than ``peak`` does (as much as a name match earns).
NAME_EXTRA_COST = 0.5
SUPERFLUOUS_COST = 1.0  # per middle step explaining nothing the others do not: more than a text fit
# The verbs a writer does, whatever its description says ("write", "save", "put", ...).
_WRITE_TERMS = frozenset(terms(" ".join(SYNONYMS["write"])))


def _query(clause: str, facts: GoalFacts, unsaid: frozenset[str] = frozenset()) -> list[str]:
    for s in facts.literals.strings:  # file names say nothing about the action
        clause = clause.replace(s, " ")
    words = plain_words(clause)
    # A superlative no tool says ("the biggest fill-up") asks what "largest_fill_up" returns.
    asked = [w for w in re.findall(r"[a-z]+", words.lower()) if w in unsaid]
    if asked:
        words += " " + " ".join(sorted(superlative_mates(asked)))
    return terms(words)


# ------------------------------------------------------------------------------- skeletons


@dataclass(frozen=True)
class Skeleton:
    """An ordered choice of tools, one or more per clause, and its lexical prior."""

    tools: tuple[str, ...]
    prior: float


_QUANTITY_TERMS = frozenset(terms(quantity_words("how many")))


def _readers_per_input(
    consumer: ToolSpec, inputs: Sequence[str], readers: Sequence[str], tools: Mapping[str, ToolSpec]
) -> list[str] | None:
    """One reader per input file, for a consumer with a data parameter per file: each file gets
    a reader whose whole output fits one of the parameters. Files are read in the goal's order;
    the parameters are matched to them in the order whose readers' words best share the files'
    names ("pantry.json" → the reader of a "pantry inventory"), ties in the parameters' order.
    None when the consumer does not take that many data inputs or a parameter has no reader."""
    needs = [p for p in required_params(consumer) if not is_path_param(consumer, p)]
    if len(needs) < len(inputs) or len(inputs) < 2:
        return None
    per_need: list[str] = []
    for pname in needs[: len(inputs)]:
        want = param_types(consumer, pname)
        want_items = item_types(properties(consumer).get(pname, {}), consumer.input_schema)
        found = [
            r
            for r in readers
            if (whole := output_fields(tools[r])[:1])
            and fits(whole[0].types, whole[0].items, want, want_items)
        ]
        if not found:
            return None
        per_need.append(found[0])
    if len(set(per_need)) < 2:
        return None  # one reader serves every input: the plain rule already does this
    file_terms = [set(terms(name_words(f))) for f in inputs]

    def overlap(order: tuple[str, ...]) -> int:
        return sum(len(file_terms[i] & set(tool_terms(tools[r]))) for i, r in enumerate(order))

    orders: list[tuple[str, ...]] = list(itertools.permutations(per_need))
    best = max(range(len(orders)), key=lambda i: (overlap(orders[i]), -i))
    return list(orders[best])


# "Which hives …", "what songs …": the plural noun a question asks for the items of.
_WHICH_PLURAL_RE = re.compile(r"\b(?:which|what)\s+([a-z]{2,30}s)\b", re.IGNORECASE)
# Quoted text is given, it asks nothing ('write "which boats" to a.txt').
_QUOTED_TEXT_RE = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|`[^`\n]*`")


def asked_plurals(text: str) -> frozenset[str]:
    """The BM25 terms of the plural nouns a "which"/"what" question asks for the items of,
    outside quoted text ("Which hives …" → hive)."""
    return frozenset(terms(" ".join(_WHICH_PLURAL_RE.findall(_QUOTED_TEXT_RE.sub(" ", text)))))


def _named_for(
    nouns: frozenset[str], tools: Mapping[str, ToolSpec], order: Sequence[str] | None = None
) -> list[str]:
    """Tools named for one of ``nouns`` (BM25 terms) that neither read a file nor keep some of a
    list, and lay several of them out as text, grading none: what a "which hives" question is
    answered by (``hives_seen``; not ``longest_meeting``, the title of one, nor a list a
    formatter still lays out), in ``order``."""
    return [
        n
        for n in (order if order is not None else tools)
        if not is_reader(tools[n])
        and not _keeper(tools[n])
        and set(terms(n)) & nouns
        and (out := tools[n].output_schema) is not None
        and types_of(out, out) == {"string"}
        and not _picks_one(tools[n])
    ]


def _picks_one(spec: ToolSpec) -> bool:
    """Whether a tool's name or description grades its items ("longest_meeting": "the title of
    the meeting that takes the *most* hours"): it gives one of them, not several."""
    words = re.findall(r"[a-z]+", f"{spec.name} {spec.description}".lower().replace("_", " "))
    return any(is_superlative(w) or w in ("most", "least", "best", "worst") for w in words)


def _clause_options(
    clause: str,
    facts: GoalFacts,
    tools: Mapping[str, ToolSpec],
    index: BM25,
    width: int,
    layout_apart: bool = False,
    unsaid: frozenset[str] = frozenset(),
    asked_nouns: frozenset[str] = frozenset(),
) -> list[tuple[str, ...]]:
    ranked = [(n, s) for n, s in index.rank(_query(clause, facts, unsaid)) if s > 0]
    rest, layout = split_layout(clause) if layout_apart else (clause, "")
    if layout and _query(rest, facts, unsaid):
        # What the clause asks for ranks the tools; its layout words only add a formatter
        # (``_formatted``), so a tool describing that layout does not outrank the noun's tool.
        head = [(n, s) for n, s in index.rank(_query(rest, facts, unsaid)) if s > 0]
        ranked = head + [(n, s) for n, s in ranked if n not in dict(head)]
    names_out = [o for o in facts.outputs if o in clause]
    writers = [n for n, _ in index.rank(_query(clause, facts, unsaid)) if is_writer(tools[n])]
    if names_out and writers:
        middle = [n for n, _ in ranked if not is_writer(tools[n]) and not is_reader(tools[n])][:width]
        tails = writers[:1]
        bodies: list[tuple[str, ...]] = [()]
        bodies += [(m,) for m in middle]
        bodies += [p for p in itertools.permutations(middle, 2)]
        return [(*b, t) for t in tails for b in bodies]
    picks = [n for n, _ in ranked if not is_writer(tools[n])][:width]
    if asked_nouns:
        # "Which hives …": a tool named for the plural noun asked about answers the question
        # (``hives_seen``), wherever BM25 ranked it; not a keeper or a reader.
        picks += [n for n in _named_for(asked_nouns, tools, [n for n, _ in ranked]) if n not in picks][:1]
    # One clause may need two tools ("count the words in the summary of …"): pairs too, and
    # the prior (words explained per step) and the typed flow decide between them.
    return [(p,) for p in picks] + list(itertools.permutations(picks, 2)) or [()]


def _explained(
    chain: Sequence[str],
    facts: GoalFacts,
    docs: Mapping[str, set[str]],
    readers: set[str],
    names: Mapping[str, set[str]] | None = None,
    precise: frozenset[str] = frozenset(),
    fields: Mapping[str, list[tuple[set[str], bool]]] | None = None,
) -> float:
    """Goal words the chain's tools explain (readers aside: they are there for the types): one
    point each, half a point more when a tool's *name* says it ("titles" for "the titles"), and
    half a point per word of an output file's name ("total_hours.txt": what the result is).
    A tool in ``precise`` whose name shares a word with the goal loses ``NAME_EXTRA_COST`` per
    other word of its name, one the goal does not say (name precision). A name sharing no word
    is not judged: it was chosen by its description, and its words may be synonyms ("mean" for
    "average") that stems cannot match. With ``fields`` (a tool's output record's field names),
    a reader explains the goal words its fields name, as a name does ("the title of the recipe"
    is the ``title`` of what the reader returns); a named field holding a number also explains
    the goal's words of quantity ("how many servings": the servings *are* the number)."""
    goal_terms = set(terms(" ".join(facts.words)))
    out_terms = set(terms(" ".join(name_words(o) for o in facts.outputs))) - goal_terms
    covered: set[str] = set()
    by_name: set[str] = set()
    extra = 0
    for name in chain:
        if fields is not None and name in readers:
            for field_terms, numeric in fields[name]:
                if goal_terms & field_terms:
                    covered |= goal_terms & (field_terms | (_QUANTITY_TERMS if numeric else set()))
                    by_name |= goal_terms & field_terms
        if name not in readers:
            covered |= (goal_terms | out_terms) & docs[name]
            if names is not None:
                by_name |= goal_terms & names[name]
                said = names[name] & (goal_terms | out_terms)
                if name in precise and said:
                    extra += len(names[name] - said)
    return (
        len(covered & goal_terms)
        + 0.5 * len(covered & out_terms)
        + 0.5 * len(by_name)
        - NAME_EXTRA_COST * extra
    )


def _superfluous(
    chain: Sequence[str],
    facts: GoalFacts,
    docs: Mapping[str, set[str]],
    tools: Mapping[str, ToolSpec],
    readers: set[str],
    kept: Sequence[str] = (),
    runs: bool = False,
) -> int:
    """Middle steps (neither reading nor writing a file) that explain no goal word the rest of
    the chain leaves unexplained: work the goal does not ask for, whatever types it fits. A
    step in ``kept`` (a filter taking one of the goal's values) is there for that value. With
    ``runs``, the same tool again (a run per file) is no other step explaining its words."""
    goal_terms = set(terms(" ".join(facts.words)))
    count = 0
    for i, name in enumerate(chain):
        if name in readers or is_writer(tools[name]) or name in kept:
            continue
        others: set[str] = set()
        for j, other in enumerate(chain):
            if j != i and other not in readers and not (runs and other == name):
                others |= docs[other]
        if not (goal_terms & docs[name]) - others:
            count += 1
    return count


_PERSON_TERMS = frozenset(terms(" ".join(PERSON_NOUNS)))
_PERSON_FIELD_TERMS = frozenset(terms(" ".join(PERSON_FIELD_NOUNS)))


def _person_tools(
    tools: Mapping[str, ToolSpec], names: Mapping[str, set[str]], readers: set[str]
) -> set[str]:
    """Tools (readers aside) that yield a person: a name saying a person's role
    ("student_names"), or one record (not a list of them) with a field naming a person or a
    name (a list of records is data a later step picks from)."""
    return {
        n
        for n, spec in tools.items()
        if n not in readers
        and (
            bool(names[n] & _PERSON_TERMS)
            or (
                spec.output_schema is not None
                and types_of(spec.output_schema, spec.output_schema) == {"object"}
                and any(set(terms(f)) & _PERSON_FIELD_TERMS for f, _ in record_fields(spec))
            )
        )
    }


def skeletons(
    goal: str,
    tools: Mapping[str, ToolSpec],
    *,
    width: int = 2,
    limit: int = 8,
    refinements: Refinements = ALL_REFINEMENTS,
) -> list[Skeleton]:
    """Candidate tool chains for ``goal``, best prior first (at most ``limit``)."""
    if refinements.converted_units:
        goal = converted_units(goal, tools)  # "longer than a second" → "… 1000 milliseconds"
    if refinements.unit_numbers:
        goal = numbered_units(goal, unit_nouns(tools))  # "four stars" → "4 stars"
    if refinements.bounded_keepers:
        goal = bounded_numbers(goal, tools)  # "more than ten mites" → "more than 10 mites"
    if refinements.summed_counts:
        goal = summed_counts(goal, tools)  # "how many tickets did X sell": a total
    if refinements.abbreviated_options:
        listed = set().union(*(enumerated_options(spec, glossed=True) for spec in tools.values()))
        goal = abbreviated_options(goal, tools, listed)  # "from the west" → "from the W"
    facts = goal_facts(goal, refinements)
    index = tool_index(tools)
    docs = {name: set(tool_terms(spec)) for name, spec in tools.items()}
    names = {name: set(terms(name)) for name in tools}
    if refinements.writer_verbs:
        docs = {n: (d | _WRITE_TERMS if is_writer(tools[n]) else d) for n, d in docs.items()}
    if refinements.counted_answers:
        # "Count …", "how many": a number is asked for. A tool returning a list answers no count,
        # whatever its description says ("the inspections that *counted* more mites than …").
        docs = {n: (d - _QUANTITY_TERMS if returns_list(tools[n]) else d) for n, d in docs.items()}
    unsaid: frozenset[str] = frozenset()
    if refinements.superlative_synonyms:
        # A superlative no tool's name or description says ("biggest" beside "largest_fill_up")
        # is asked by its sense: the query adds the others of its sense, and a tool *named* for
        # one of them explains it. A word some tool says keeps to that tool ("the highest
        # reading" for a tool described by "highest"; "ascending" is no answer to it).
        said_anywhere = set().union(*docs.values())
        goal_words = {w.lower() for w in re.findall(r"[A-Za-z]+", goal)}
        unsaid = frozenset(
            w
            for g in SUPERLATIVE_GROUPS
            for w in g & goal_words
            if w not in ("most", "least") and stem(w) not in said_anywhere
        )
        for group in SUPERLATIVE_GROUPS:
            if group & unsaid:
                mates = {stem(w) for w in group}
                docs = {n: (d | mates if names[n] & mates else d) for n, d in docs.items()}
    asked = asked_plurals(goal) if refinements.which_nouns else frozenset()
    # Tools named for the items a "which" question asks about: one explains the question.
    answering = set(_named_for(asked, tools)) if asked else set()
    per_clause = [
        _clause_options(
            c,
            facts,
            tools,
            index,
            width,
            refinements.layout_apart,
            unsaid,
            asked_plurals(c) if refinements.which_nouns else frozenset(),
        )
        for c in facts.clauses
    ]
    # A list goes to a .json file as JSON; elsewhere as the tool set formats lists.
    wants_json = any(o.lower().endswith(".json") for o in facts.outputs)
    formatters = [] if wants_json else [n for n, _ in index.rank(terms(goal)) if is_formatter(tools[n])]
    readers = [n for n, _ in index.rank(terms(goal)) if is_reader(tools[n])]
    writers = [n for n, _ in index.rank(terms(goal)) if is_writer(tools[n])]
    # Readers, writers and formatters are there for the data's types and the goal's files, not
    # for what the goal says: their names are not held to the goal's words.
    judged = [
        n
        for n, spec in tools.items()
        if refinements.name_precision and not (is_reader(spec) or is_writer(spec) or is_formatter(spec))
    ]
    # Names are held to the goal's words only when some tool's name says nothing but goal words
    # (``peak`` for "the peak"): a name's extra word counts against it next to such a tool, not
    # where every name carries words the goal puts otherwise ("email list": ``email_addresses``).
    said = set(terms(" ".join(facts.words))) | set(terms(" ".join(name_words(o) for o in facts.outputs)))
    exact = any(names[n] and names[n] <= said for n in judged)
    precise = frozenset(judged if exact else ())
    fields = (
        {
            n: [
                (set(terms(f)), bool(types and types <= {"integer", "number"}))
                for f, types in record_fields(spec)
            ]
            for n, spec in tools.items()
        }
        if refinements.record_fields
        else None
    )
    # A value of the goal no tool explains ("dairy items") is explained by a filtering step
    # whose text parameter can take it: chains get such a step (``value_words``).
    values = (
        value_words(facts, value_docs(tools, examples=refinements.example_values), refinements, tools)
        if refinements.value_filters
        else []
    )
    places = refinements.place_params  # "for a given destination": a town, not a file
    day_times = refinements.day_times  # "a time of day": a time's tool, not a date's
    times = refinements.spelled_times  # two times of day are a range, as two days are
    # An option a tool lists ("received, processed or discarded") is a value of its own kind,
    # taken by that tool alone ("NEURO-1 samples … discarded": a filter for each).
    option_words = (
        set().union(*(enumerated_options(spec, glossed=True) for spec in tools.values()))
        if refinements.option_values
        else set()
    )

    def kind_of(value: str) -> str:
        return "option" if value.lower() in option_words else value_kind(value)

    def taker(name: str) -> str:
        return _filter_kind(tools[name], places, bool(option_words), day_times=day_times) or taker_kind(
            tools[name], places=places, day_times=day_times
        )

    filters = (
        [n for n, _ in index.rank(terms(goal)) if filter_param(tools[n], places=places) is not None]
        if values
        else []
    )
    # Any tool that takes a short text besides its data ("the region column": a column's name)
    # explains a value by taking it; only filters are put in where the chain lacks one.
    takers = (
        [n for n, spec in tools.items() if value_param(spec, places=places) is not None] if values else []
    )
    if refinements.whole_values:
        # A date goes to a date's parameter, a name not: takers of no value's kind explain none.
        # A date goes to a date's parameter, never to a name's; a day's parameter may still
        # take a word ("on Monday"). Takers of the values' own kinds come first.
        kinds = {kind_of(v) for v in values}
        takers = [n for n in takers if taker(n) in kinds or taker(n) not in ("text", "option")]
        filters = sorted((n for n in filters if n in takers), key=lambda n: taker(n) not in kinds)
    if refinements.fitting_filters and filters:
        # Of several text filters, those a value fits best come first ("every Grey Heron
        # sighting": the filter by a kind, not the one by an observer's initials).
        texts = [v for v in values if kind_of(v) == "text"]
        filters = sorted(
            filters,
            key=lambda n: (
                bool(texts) and all(fitted_elsewhere(v, goal, n, tools, places=places) for v in texts)
            ),
        )
    # A range of days the goal gives ("from 2026-03-01 to 2026-03-31", "during April 2026")
    # is a value a tool with two date parameters filters by, as a one-value filter does.
    # One day, where days are kept only by a range, is the range from it to itself.
    one_day = (
        refinements.single_days
        and days_by_range_only(tools, places=places)
        and single_day(goal, values, spelled_dates(goal, ordinals=True, shared_year=True)) is not None
    )
    ranges = (
        [
            n
            for n, _ in index.rank(terms(goal))
            if range_params(tools[n], formats=refinements.time_formats) is not None
        ]
        if refinements.spelled_dates and (date_range(values) is not None or one_day)
        else []
    )
    if refinements.spelled_times and time_range(values) is not None:
        # Two times of day ("between 7 and 9 am", "between 12:00 and 18:00"): a range of times.
        ranges += [
            n
            for n, _ in index.rank(terms(goal))
            if (b := range_params(tools[n], times=True, formats=refinements.time_formats)) is not None
            and param_kind(tools[n], b[0], formats=refinements.time_formats) == "time"
        ]
    # The kinds of value the goal gives: a second filter is put in only for a kind it gives.
    value_kinds = {kind_of(v) for v in values} | ({"range"} if ranges else set())
    if ranges:
        filters = ranges + filters
        takers = takers + ranges
    if refinements.filter_clauses and filters:
        # "Which parcels go to Dundee?": the filter put in for the value answers the clause; it
        # needs no tool of its own besides (a count, an extreme) -- the chain may leave it out.
        per_clause = [
            [*options, ()] if () not in options and any(v in clause for v in values) else options
            for clause, options in zip(facts.clauses, per_clause, strict=True)
        ]
    selectors = [n for n, _ in index.rank(terms(goal)) if n in takers and n not in filters]
    if takers:
        value_terms = set(terms(" ".join(v for v in values if v not in facts.contents)))
        if option_words or places or refinements.shaped_values:
            # A taker explains the values it can take: an option the tool that lists it, any
            # other value the takers listing none ("NEURO-1 … discarded" needs both filters);
            # a place the goal goes "to" a tool taking a place, when there is one.
            placed = {n for n in takers if takes_place(tools[n])} if places else set()
            # Takers whose value parameter spells a format ("YYYY-MM-DD") take only that kind.
            shaped = {
                n: ("range" if taker(n) == "range" else kind)
                for n in takers
                if refinements.shaped_values
                and (
                    taker(n) == "range"
                    or (
                        (pname := value_param(tools[n], places=places)) is not None
                        and (kind := formatted_kind(tools[n], pname, places=places))
                    )
                )
            }

            fit_filters = refinements.fitting_filters

            def takes(name: str, value: str) -> bool:
                if fit_filters and fitted_elsewhere(value, goal, name, tools, places=places):
                    return False  # "at the Long Field": the filter by a place, not by a kind
                if option_words and (kind_of(value) == "option") != (taker(name) == "option"):
                    return False
                if shaped and shaped.get(name, kind_of(value)) not in (kind_of(value), "range"):
                    return False  # "ONC-7" is no date a "(YYYY-MM-DD)" filter could take
                if shaped and shaped.get(name) == "range" and kind_of(value) not in ("date", "time"):
                    return False
                return not (placed and towards(value).search(goal)) or name in placed

            given = [v for v in values if v not in facts.contents]
            docs = {
                n: (d | set(terms(" ".join(v for v in given if takes(n, v)))) if n in takers else d)
                for n, d in docs.items()
            }
        else:
            docs = {n: (d | value_terms if n in takers else d) for n, d in docs.items()}
        if refinements.spelled_dates:
            # A date the goal spells ("during April 2026") is explained, word by word, by the
            # tools taking a date or a range of days: they take it as ISO text.
            spelled = set(terms(" ".join(goal[a:b] for a, b, _ in spelled_dates(goal))))
            dated = {
                n
                for n in takers
                if _filter_kind(tools[n], places, day_times=day_times) in ("date", "range")
                or taker_kind(tools[n], places=places, day_times=day_times) == "date"
            }
            docs = {n: (d | spelled if n in dated else d) for n, d in docs.items()}
        if refinements.worded_times:
            # A time said in words ("from half past seven to eight") is explained, word by word,
            # by the tools taking a range of times of day, as a spelled date is by a date's.
            plain = {(a, b) for a, b, _ in spelled_times(goal)}
            worded = [goal[a:b] for a, b, _ in spelled_times(goal, worded=True) if (a, b) not in plain]
            clocked = set(terms(" ".join(worded)))
            timed = {
                n
                for n in takers
                if (pair := range_params(tools[n], times=True)) is not None
                and param_kind(tools[n], pair[0]) == "time"
            }
            docs = {n: (d | clocked if n in timed else d) for n, d in docs.items()}
    # A flag the goal negates ("the unpaid bookings", "that haven't been paid"): its filter goes
    # into chains as a value's does, and explains the prefixed word.
    flagged = (
        [n for n, _ in index.rank(terms(goal)) if negated_flag(tools[n], goal)]
        if refinements.negated_flags
        else []
    )
    for n in flagged:
        pname = flag_param(tools[n]) or ""
        word = prefixed_flag(goal, pname)
        docs = {**docs, n: docs[n] | (set(terms(word)) if word else set())}
    takers = takers + [n for n in flagged if n not in takers]
    # A number of a unit a keeper's one numeric parameter is named by ("8 hours or more" for
    # ``hours``): its keeper goes into chains as a value's filter does, and explains the unit.
    counted = [
        n
        for n in tools
        if refinements.unit_numbers
        and _counted_keeper(tools[n], goal, numbered_names=refinements.numbered_names)
    ]
    contrary: set[str] = set()
    if refinements.bounded_keepers:
        # "More than 10 mites", "lower than 1 metre": the keeper of the bound's way that says its
        # noun goes into chains (first), one keeping the other way does not (``bound_keepers``).
        picked, other_way = bounded_keepers(goal, tools)
        contrary = set(other_way)
        counted = [*picked, *(n for n in counted if n not in picked and n not in other_way)]
        said = set(terms(" ".join(f"{w} {n}" for w, _, n in goal_bounds(goal))))
        docs = {n: (d | said if n in picked else d) for n, d in docs.items()}
    takers = takers + [n for n in counted if n not in takers]
    quoted_values = [v for v in values if v in facts.contents] if takers else []
    persons = (
        _person_tools(tools, names, set(readers)) if refinements.who_person and facts.asks_who else set()
    )
    many = refinements.plural_lists and asks_every(goal)
    # "Put the rock songs … in a.txt" asks for no number; "a.txt: the number of builds that
    # passed" for a number only, not the builds laid out.
    unnumbered = refinements.answer_kinds and not asks_number(goal)
    count_only = refinements.answer_kinds and asks_count_only(goal)
    # "…, one per line" in a goal whose steps run once per file: the lines are the files' results.
    layout_terms = set(terms(" ".join(split_layout(c)[1] for c in facts.clauses)))
    per_file_layout = refinements.per_file_layout and bool(layout_terms)
    # Two files read, one written: a chain may run once per file (``_one_result_per_file``).
    per_file = refinements.per_file_results and len(facts.inputs) >= 2 and len(facts.outputs) == 1
    bounded = any(b is not None for b in range_bounds(goal))  # "between three and seven kg"
    seen: set[tuple[str, ...]] = set()
    out: list[Skeleton] = []
    for combo in itertools.islice(itertools.product(*per_clause), 200):
        chain: list[str] = []
        for part in combo:
            for name in part:
                if not chain or chain[-1] != name:
                    chain.append(name)
        if refinements.readers_first and facts.inputs and chain and not is_reader(tools[chain[0]]):
            # A reader a later clause chose ("…? Read plantings.csv and …") reads what the
            # steps before it work on: it goes first.
            chain = [n for n in chain if is_reader(tools[n])] + [n for n in chain if not is_reader(tools[n])]
        if facts.outputs and writers and not any(is_writer(tools[n]) for n in chain):
            chain.append(writers[0])
        variants: list[list[str]] = [chain]
        if facts.inputs and readers and not any(reads_files(tools[n]) for n in chain):
            consumer = tools[chain[0]] if chain else None
            fitting = [r for r in readers if fits_first_need(tools[r], consumer)] or readers
            variants = [[r] * len(facts.inputs) + chain for r in fitting[:2]]
            per_input = (
                _readers_per_input(consumer, facts.inputs, readers, tools)
                if refinements.reader_per_input and consumer is not None
                else None
            )
            if per_input is not None:
                variants.insert(0, per_input + chain)
            elif per_file and _one_result_per_file(
                chain,
                facts,
                tools,
                refinements.per_file_layout,
                refinements.labelled_files,
                refinements.line_targets,
            ):
                # "the number of loans in a.json and in b.json": the same steps for each file,
                # every result to the one writer.
                body = chain[:-1]
                variants += [[n for _ in facts.inputs for n in (r, *body)] + chain[-1:] for r in fitting[:1]]
                bare = [n for n in body if not is_formatter(tools[n])]
                if per_file_layout and bare and bare != body:
                    # "…, one per line": each file's result goes on a line of its own already;
                    # a formatter laying out one file's items is not what the layout asks for.
                    variants += [
                        [n for _ in facts.inputs for n in (r, *bare)] + chain[-1:] for r in fitting[:1]
                    ]
        if refinements.keepers_first:
            # "Count the dogs … between three and seven kg": a clause chose the count before the
            # tool keeping some of the items; the keeper goes where the list it takes is -- one
            # keeping by what the goal gives (a value, a negated flag, a range of numbers), not
            # by a word it would have to guess ("Which car *drove* …").
            variants += [
                list(f)
                for v in list(variants)
                for i, n in enumerate(v)
                if i
                and (
                    n in filters
                    or n in flagged
                    or (bounded and bound_params(tools[n]) is not None)
                    # "had at least one millimetre of rain": a keeper by a number of its unit
                    or (refinements.counted_keepers_first and n in counted)
                )
                and _keeper(tools[n])
                and not _takes_whole(tools[n], tools[v[i - 1]])
                and (f := _with_filter([m for m in v if m != n], n, tools)) is not None
            ]
        if not any(n in filters for n in chain):
            variants += [
                list(f) for v in list(variants) for n in filters[:2] if (f := _with_filter(v, n, tools))
            ]
        if flagged and not any(n in flagged for n in chain):
            variants += [list(f) for v in list(variants) if (f := _with_filter(v, flagged[0], tools))]
        if counted and not any(n in counted for n in chain):
            variants += [list(f) for v in list(variants) if (f := _with_filter(v, counted[0], tools))]
        if refinements.chained_filters and len(value_kinds) > 1:
            # Values of two kinds (a name and a date, a label and a range): a filter for each.
            variants += [
                list(f)
                for v in list(variants)
                for n in filters
                if n not in v
                and (kind := _filter_kind(tools[n], places, bool(option_words), times, day_times))
                in value_kinds
                and any(
                    _filter_kind(tools[m], places, bool(option_words), times, day_times) not in ("", kind)
                    for m in v
                    if m in filters
                )
                and (f := _with_filter(v, n, tools))
            ]
        if not any(n in takers for n in chain):
            variants += [
                list(f)
                for v in list(variants)
                for n in selectors[:2]
                if (f := _with_selector(v, n, tools, places))
            ]
        for v in variants:
            key = tuple(v)
            if not key or key in seen or contrary & set(key):
                continue  # (a keeper the other way than the goal's bound keeps nothing it asks for)
            seen.add(key)
            superfluous = _superfluous(key, facts, docs, tools, set(readers), takers, per_file)
            for k in (key, _formatted(key, tools, formatters)):
                if k is None or (k != key and k in seen):
                    continue
                seen.add(k)
                prior = (
                    _explained(k, facts, docs, set(readers), names, precise, fields)
                    - STEP_COST * len(k)
                    - SUPERFLUOUS_COST * superfluous  # a formatter put in is never superfluous
                    # A quoted value is no word of the goal's: a filter explains it by taking it.
                    + (len(quoted_values) if any(n in takers for n in k) else 0)
                    # "Who" is explained by a step that yields a person or a person's name.
                    + (1 if persons & set(k) else 0)
                    # "Which hives …" by a step named for the hives.
                    + (1 if answering & set(k) else 0)
                    # "Show every departure": the items, not one of them nor their number.
                    - (PLURAL_COST if many and single_result(k, tools) else 0)
                    - (PLURAL_COST if unnumbered and any(counts_items(tools[n]) for n in k) else 0)
                    - (PLURAL_COST if count_only and laid_out_result(k, tools) else 0)
                    # The writer puts each file's result on its line: that explains the layout.
                    + (
                        len(layout_terms)
                        if per_file_layout and runs_per_file(k, tools, len(facts.inputs))
                        else 0
                    )
                )
                out.append(Skeleton(k, prior))
    # A field of the record a reader returns, named by the goal ("how many servings does
    # soup.json make"), may be the answer itself: the reader straight into the writer.
    if fields is not None and facts.inputs and facts.outputs and writers:
        goal_terms = set(terms(" ".join(facts.words)))
        for r in readers:
            direct = (*[r] * len(facts.inputs), writers[0])
            if any(goal_terms & t for t, _ in fields[r]) and direct not in seen:
                seen.add(direct)
                prior = _explained(direct, facts, docs, set(readers), names, precise, fields)
                out.append(Skeleton(direct, prior - STEP_COST * len(direct)))
    if refinements.expression_literals and expression_spans(goal):
        out = _with_evaluators(out, seen, facts, tools, writers, docs, set(readers), names, precise, fields)
    out.sort(key=lambda s: -s.prior)
    return out[:limit]


# Between two coordinated file names: "a.json and b.json", "a.csv, b.csv", "in a.json and in b.json".
_COORDINATION_RE = re.compile(r"\s*(?:,|and|&|,\s*and)\s+(?:(?:in|of|from|the|file)\s+)*", re.IGNORECASE)


# With any preposition of place repeated: "on a.json and on b.json", "at a.csv and at b.csv".
_COORDINATION_ANY_RE = re.compile(
    r"\s*(?:,|and|&|,\s*and)\s+(?:(?:in|of|from|the|file|on|at|for|inside|within)\s+)*", re.IGNORECASE
)


# Between two files in parentheses, each after its label: "March (a.jsonl) against April
# (b.jsonl)", "the main building (a.csv) and the annex (b.csv)": at most four words of label.
_LABELLED_RE = re.compile(
    r"\s*\)\s*(?:,|and|&|,\s*and|against|versus|vs\.?|compared\s+(?:with|to))\s+"
    r"(?:[\w'’-]+\s+){0,3}[\w'’-]+\s*\(\s*",
    re.IGNORECASE,
)


def _coordinated(
    goal: str, files: Sequence[str], any_preposition: bool = False, labelled: bool = False
) -> bool:
    """Whether the goal names the files side by side, joined by "and" or a comma ("the totals of
    a.csv and b.csv"), as things the same is asked of -- not one compared with the other
    ("the items on a.txt not stocked in b.json"). With ``labelled``, files in parentheses after
    their labels ("March (a.jsonl) against April (b.jsonl)") are side by side too: the same is
    asked of each, set against the other."""
    places = [goal.find(f) for f in files]
    if any(p < 0 for p in places):
        return False
    order = sorted(zip(places, files, strict=True))
    return all(
        (_COORDINATION_ANY_RE if any_preposition else _COORDINATION_RE).fullmatch(goal[p + len(f) : q])
        is not None
        or (labelled and _LABELLED_RE.fullmatch(goal[p + len(f) : q]) is not None)
        for (p, f), (q, _) in itertools.pairwise(order)
    )


def _one_result_per_file(
    chain: Sequence[str],
    facts: GoalFacts,
    tools: Mapping[str, ToolSpec],
    any_preposition: bool = False,
    labelled: bool = False,
    possessed: bool = False,
) -> bool:
    """Whether ``chain`` may run once per input file, each run's result written by its last
    step: the goal reads two or more files and writes one, the chain ends in that writer after
    at least one step, and its first step takes one piece of data (not a file each). With
    ``possessed``, files whose results the goal names each by its possessive ("write a.log's on
    the first line and b.log's on the second") are side by side whatever joins them."""
    if len(facts.inputs) < 2 or len(facts.outputs) != 1 or len(chain) < 2 or not is_writer(tools[chain[-1]]):
        return False
    each_own = possessed and all(re.search(rf"{re.escape(f)}['’]s\b", facts.goal) for f in facts.inputs)
    if not each_own and not _coordinated(facts.goal, facts.inputs, any_preposition, labelled):
        return False
    first = tools[chain[0]]
    data = [p for p in required_params(first) if not is_path_param(first, p)]
    return not is_writer(first) and len(data) == 1


def _filter_kind(
    spec: ToolSpec, places: bool = False, options: bool = False, times: bool = False, day_times: bool = False
) -> str:
    """What a filter filters by: "range" (two dates; with ``times``, two times of day too), else
    its text parameter's kind ("date", "time", "text", with ``options`` "option" for one the
    tool lists the options of); "" for no filter."""
    if range_params(spec, times=times) is not None:
        return "range"
    pname = filter_param(spec, places=places)
    if options and pname is not None and enumerated_options(spec, glossed=True):
        return "option"
    return param_kind(spec, pname, day_times=day_times) if pname is not None else ""


def _with_evaluators(
    out: list[Skeleton],
    seen: set[tuple[str, ...]],
    facts: GoalFacts,
    tools: Mapping[str, ToolSpec],
    writers: Sequence[str],
    docs: Mapping[str, set[str]],
    readers: set[str],
    names: Mapping[str, set[str]],
    precise: frozenset[str],
    fields: Mapping[str, list[tuple[set[str], bool]]] | None,
) -> list[Skeleton]:
    """``out`` with a chain per tool that evaluates an expression (``goal_expressions``): the
    tool alone, or into the writer when the goal names an output. The goal's expression is no
    word a tool's text can explain, so a chain with such a tool gets a point for taking it, as
    a filter does for a quoted value."""
    found = evaluators(tools)
    for name in found:
        chain = (name, writers[0]) if facts.outputs and writers else (name,)
        if chain not in seen:
            seen.add(chain)
            prior = _explained(chain, facts, docs, readers, names, precise, fields) - STEP_COST * len(chain)
            out.append(Skeleton(chain, prior))
    return [Skeleton(s.tools, s.prior + 1) if set(s.tools) & set(found) else s for s in out]


def _formatted(
    chain: tuple[str, ...], tools: Mapping[str, ToolSpec], formatters: Sequence[str]
) -> tuple[str, ...] | None:
    """``chain`` with a formatter between a list-producing step and the writer that ends it:
    a list is written as the tool set formats lists, not as JSON text. None when there is no
    such place or no formatter takes that list."""
    if len(chain) < 2 or not is_writer(tools[chain[-1]]) or chain[-2] in formatters:
        return None
    last = tools[chain[-2]]
    if last.output_schema is None or types_of(last.output_schema, last.output_schema) != {"array"}:
        return None
    have_items = item_types(last.output_schema, last.output_schema)
    for name in formatters:
        spec = tools[name]
        pname = required_params(spec)[0]
        want_items = item_types(properties(spec)[pname], spec.input_schema)
        if fits({"array"}, have_items, {"array"}, want_items):
            return (*chain[:-1], name, chain[-1])
    return None


def _with_selector(
    chain: Sequence[str], name: str, tools: Mapping[str, ToolSpec], places: bool = False
) -> tuple[str, ...] | None:
    """``chain`` with ``name`` (a tool taking the goal's value besides its data, not a filter)
    right after the first step whose whole output its data parameter takes, where what it returns
    fits the next step (or the next step writes it): "the region column of a.csv as a list" →
    the sheet, the column named "region", the list. None when there is no such place."""
    spec = tools[name]
    value = value_param(spec, places=places)
    data = [p for p in required_params(spec) if p != value]
    if len(data) != 1 or spec.output_schema is None:
        return None
    want = param_types(spec, data[0])
    want_items = item_types(properties(spec)[data[0]], spec.input_schema)
    for i, step in enumerate(chain[:-1]):
        whole = output_fields(tools[step])[:1]
        if not whole or not fits(whole[0].types, whole[0].items, want, want_items):
            continue
        nxt = tools[chain[i + 1]]
        if is_writer(nxt) or fits_first_need(spec, nxt):
            return (*chain[: i + 1], name, *chain[i + 1 :])
        return None
    return None


def _keeper(spec: ToolSpec) -> bool:
    """Whether a read-only tool keeps some of a list: one list parameter, a list of the same
    items back (a filter by a value, a range, a flag), not a formatter."""
    out = spec.output_schema
    lists = [p for p in required_params(spec) if param_types(spec, p) == {"array"}]
    if spec.effect != "read_only" or out is None or types_of(out, out) != {"array"} or len(lists) != 1:
        return False
    want_items = item_types(properties(spec)[lists[0]], spec.input_schema)
    return fits({"array"}, item_types(out, out), {"array"}, want_items)


def _takes_whole(spec: ToolSpec, before: ToolSpec) -> bool:
    """Whether ``spec``'s list parameter takes ``before``'s whole output."""
    lst = next(p for p in required_params(spec) if param_types(spec, p) == {"array"})
    whole = output_fields(before)[:1]
    want_items = item_types(properties(spec)[lst], spec.input_schema)
    return bool(whole) and fits(whole[0].types, whole[0].items, param_types(spec, lst), want_items)


# A noun with its number after it ("Screen 3", "gate 12", "Room 4"): a thing named by number.
_NUMBERED_NAME_RE = re.compile(r"\b([A-Za-z]+)\s+(\d+)(?![\w.:/-])")


def _counted_keeper(spec: ToolSpec, goal: str, *, numbered_names: bool = False) -> bool:
    """Whether ``spec`` keeps some of a list by one numeric parameter (``_keeper``) whose name is
    a unit the goal counts in digits ("8 hours" for ``hours``, "4 stars" for ``min_stars``);
    with ``numbered_names``, also a noun the goal gives a number after ("Screen 3" for
    ``screen``)."""
    if spec.effect != "read_only" or not _keeper(spec):
        return False
    numeric = [p for p in properties(spec) if (param_types(spec, p) or set()) & {"integer", "number"}]
    if len(numeric) != 1:
        return False
    units = unit_nouns({spec.name: spec})

    def single(word: str) -> str:
        return word.lower()[:-1] if word.lower().endswith("s") else word.lower()

    if numbered_names and any(single(m.group(1)) in units for m in _NUMBERED_NAME_RE.finditer(goal)):
        return True
    return any(
        single(m.group(1)) in units for m in re.finditer(r"(?<![\w.])\d+(?:\.\d+)?\s+([A-Za-z]+)", goal)
    )


def _with_filter(chain: Sequence[str], name: str, tools: Mapping[str, ToolSpec]) -> tuple[str, ...] | None:
    """``chain`` with the filter ``name`` right after the first step whose output it takes (the
    list the goal's value picks from), or None when no step's output fits it."""
    spec = tools[name]
    lst = next(p for p in required_params(spec) if param_types(spec, p) == {"array"})
    want = param_types(spec, lst)
    want_items = item_types(properties(spec)[lst], spec.input_schema)
    for i, step in enumerate(chain):
        whole = output_fields(tools[step])[:1]
        if whole and fits(whole[0].types, whole[0].items, want, want_items):
            return (*chain[: i + 1], name, *chain[i + 1 :])
    return None
