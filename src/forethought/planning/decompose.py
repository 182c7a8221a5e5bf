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

Nothing here knows a particular goal, tool or phrasing: the rules read types, effects, parameter
names' path-likeness and the goal's literals and words.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from forethought.plan._schema import fits, item_types, types_of
from forethought.plan.coverage import goal_outputs
from forethought.plan.verbs import GENERIC_VERBS, SYNONYMS
from forethought.planning.bm25 import (
    BM25,
    HOW_MANY_RE,
    STOP_WORDS,
    quantity_words,
    terms,
    tool_index,
    tool_terms,
)
from forethought.planning.candidates import goal_names
from forethought.planning.clauses import split_clauses
from forethought.planning.grammar import (
    _DIR_PARAM,
    _DIR_TOOL,
    _FILE_RE,
    _PATHY_PARAM,
    Literals,
    PlanSchemaBuilder,
    RefCandidate,
    goal_literals,
    reference_candidates,
    takes_file_name,
)
from forethought.planning.word_classes import never_value
from forethought.tools.base import ToolSpec

STEP_COST = 0.25  # prior points per step: more steps must explain more of the goal
# Per word of a tool's name the goal does not say: a name asserts every one of its words, so
# ``time_of_peak`` fits "the peak" worse than ``peak`` does (as much as a name match earns).
NAME_EXTRA_COST = 0.5
SUPERFLUOUS_COST = 1.0  # per middle step explaining nothing the others do not: more than a text fit
# The verbs a writer does, whatever its description says ("write", "save", "put", ...).
_WRITE_TERMS = frozenset(terms(" ".join(SYNONYMS["write"])))
_WORDS_RE = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


@dataclass(frozen=True)
class Refinements:
    """Techniques added after held-out suite 5, each switchable so bench/planning can show what
    it adds (all on by default)."""

    # A tool's name words the goal does not say cost (``NAME_EXTRA_COST``), both ways of
    # matching a name count: what the goal says and the name has, what the name says and the
    # goal lacks.
    name_precision: bool = True
    # A goal word no tool explains, next to a word one does ("dairy items"), is a value to filter
    # by: chains get a filtering step whose text parameter takes it (``value_words``).
    value_filters: bool = True
    # A field of an earlier record named by the goal ("the title of the recipe") may go straight
    # to the writer, with no tool in between.
    record_fields: bool = True
    # Two input files feeding a tool of two data parameters ("what pancakes.json needs and
    # pantry.json lacks") get a reader each, chosen by type, not one reader twice.
    reader_per_input: bool = True
    # Added after held-out suite 6:
    # A value is taken whole -- a run of words ("science fiction books", "by Ursula K. Le
    # Guin"), a date or time ("2026-11-03") -- and also after "for"/"by"/"from"/"on" or between
    # its noun and a past-tense verb ("the hours alice worked"); function verbs never are values;
    # a date or time value goes only to a parameter of that kind (``value_words``).
    whole_values: bool = True
    # Words a tool's description gives as examples ("for example fantasy") are values the goal
    # supplies, not words the tool explains (``example_terms``).
    example_values: bool = True
    # Layout words ("one per line", "as a list") are ranked apart from the rest of their clause,
    # so they add a formatting step but do not choose the clause's tool (``split_layout``).
    layout_apart: bool = True
    # A file named where a result goes -- the subject of "X should hold …", or the target of
    # "into"/"to"/"as" -- is the output even when named first, and a file the goal reads
    # ("in"/"of"/"from" X) is then an input (``output_files``).
    output_position: bool = True
    # Added after held-out suite 7:
    # Closed word classes are never values: quantifiers ("different", "total"), comparatives
    # and superlatives ("fewer than", "fastest", "most expensive"), common verbs ("cost",
    # "say") (``word_classes.never_value``); a number with its unit is one value ("800 m").
    value_classes: bool = True
    # A writer explains the goal's writing verbs ("write", "save", "put"): a converter whose
    # description also says "write" is not kept for that word alone ("Write a number of seconds
    # as a clock time" after an average), only for a format the goal asks for.
    writer_verbs: bool = True


NO_REFINEMENTS = Refinements(
    name_precision=False,
    value_filters=False,
    record_fields=False,
    reader_per_input=False,
    whole_values=False,
    example_values=False,
    layout_apart=False,
    output_position=False,
    value_classes=False,
    writer_verbs=False,
)


# ------------------------------------------------------------------------------- tool roles


def _props(spec: ToolSpec) -> dict[str, Any]:
    props = spec.input_schema.get("properties")
    return dict(props) if isinstance(props, Mapping) else {}


def _required(spec: ToolSpec) -> list[str]:
    return [str(r) for r in spec.input_schema.get("required") or ()]


def param_types(spec: ToolSpec, pname: str) -> set[str] | None:
    return types_of(_props(spec).get(pname, {}), spec.input_schema)


def is_path_param(spec: ToolSpec, pname: str) -> bool:
    """A parameter that takes a file name (not a directory): ``grammar.takes_file_name``."""
    return takes_file_name(spec, pname)


def is_dir_param(spec: ToolSpec, pname: str) -> bool:
    """A directory parameter: named so, or the ``path`` of a tool named for directories."""
    return param_types(spec, pname) == {"string"} and (
        bool(_DIR_PARAM.search(pname)) or (bool(_DIR_TOOL.search(spec.name)) and pname == "path")
    )


def is_writer(spec: ToolSpec) -> bool:
    """Side-effecting, with a path-like parameter: where a goal's output file goes."""
    return spec.effect != "read_only" and any(is_path_param(spec, p) for p in _props(spec))


def is_reader(spec: ToolSpec) -> bool:
    """Read-only, and its only required parameter is path-like: turns an input file into data."""
    req = _required(spec)
    return spec.effect == "read_only" and len(req) == 1 and is_path_param(spec, req[0])


def reads_files(spec: ToolSpec) -> bool:
    return spec.effect == "read_only" and any(is_path_param(spec, p) for p in _required(spec))


# ------------------------------------------------------------------------------- the goal


@dataclass(frozen=True)
class GoalFacts:
    """What the goal text offers: its clauses, literals by role, and its plain words."""

    goal: str
    clauses: tuple[str, ...]
    literals: Literals
    outputs: tuple[str, ...]  # file names the goal asks to produce
    inputs: tuple[str, ...]  # other file names of the goal
    contents: tuple[str, ...]  # quoted strings that are not file names
    words: tuple[str, ...]  # plain words, in order (no stop words, no literals)
    verbs: frozenset[str]  # the first word of each clause (the action, not an object)


# A file named right after "into", "as" or "to" is where a result goes, whatever the verb
# ("sort a.txt into b.txt", "join a.md and b.md into c.md", "save a.txt as b.txt").
# Not after "according to", "compared to", "due to", …: there "to" names a source.
_TARGET_RE = re.compile(
    r"(?<!according )(?<!compared )(?<!relative )(?<!similar )(?<!due )(?<!next )"
    r"\b(?:into|as|to)\s+(?:(?:a|an|the|new|file|document|named|called)\s+)*([\w./-]+)",
    re.IGNORECASE,
)
# "In" names where a result goes only at the very end of a goal that reads another file ("list
# the names in people.json in names.txt"); elsewhere it names what is read ("the words in a.txt").
_LAST_IN_RE = re.compile(
    r"\b(?:in|into|at)\s+(?:(?:a|an|the|new|file|document|named|called)\s+)*([\w./-]+?)\W*\Z"
)


def _plain(text: str) -> str:
    """Goal text as ``terms`` reads it ("how many" → "count number"), for the word list."""
    return quantity_words(text)


# The subject of a sentence whose verb is a modal ("pages.txt should hold …", "out.txt must
# list …"): a file that is to be made, where the result goes.
_SUBJECT_RE = re.compile(
    r"(?:\A|[.?!;]\s+)(?:the\s+(?:file\s+)?)?([\w./-]+)\s+(?:should|must|shall|will|needs?\s+to|is\s+to)\s",
    re.IGNORECASE,
)
# A file that labels its sentence with a colon ("count.txt: how many …"): the answer's place.
_LABEL_RE = re.compile(r"(?:\A|[.?!;]\s+)([\w./-]+\.[A-Za-z]\w*):\s")
# A file the goal reads from: right after "in", "of", "from" or "see" ("the books in
# catalogue.json", "(see inventory.json)").
_SOURCE_RE = re.compile(r"\b(?:in|of|from|see)\s+(?:(?:a|an|the|file)\s+)*([\w./-]+)", re.IGNORECASE)


def output_files(goal: str, files: Sequence[str]) -> tuple[str, ...] | None:
    """The output files by the sentence's structure, or None when it does not say: a file in
    the output position -- the subject of a modal sentence ("pages.txt should hold …") or the
    target of "into"/"to"/"as" -- when the goal also names a file it reads ("in", "of", "from"
    + file) that is not such a target. Named first or last, the target is the output."""
    targets = [m.group(1).rstrip(".,") for m in _TARGET_RE.finditer(goal)]
    subjects = [m.group(1).rstrip(".,") for m in _SUBJECT_RE.finditer(goal)]
    labels = [m.group(1) for m in _LABEL_RE.finditer(goal) if m.group(1) in files]
    placed = [f for f in dict.fromkeys([*labels, *subjects, *targets]) if f in files]
    sources = [m.group(1).rstrip(".,") for m in _SOURCE_RE.finditer(goal)]
    if labels and any(f not in placed for f in files):
        return tuple(placed)  # a label is unambiguous: any other file is read
    if not placed or not any(f in sources and f not in placed for f in files):
        return None
    return tuple(placed)


def goal_facts(goal: str, refinements: Refinements | None = None) -> GoalFacts:
    lits = goal_literals(goal)
    files = [s for s in lits.strings if _FILE_RE.fullmatch(s)]
    targets = [m.group(1).rstrip(".") for m in _TARGET_RE.finditer(goal)]
    named = [*goal_outputs(goal), *(t for t in targets if t in files)]
    outputs = tuple(dict.fromkeys(o for o in named if o in files or _FILE_RE.fullmatch(o)))
    placed = output_files(goal, files) if refinements is not None and refinements.output_position else None
    if placed is not None:
        outputs = placed
    last_in = _LAST_IN_RE.search(goal)
    if not outputs and len(files) >= 2 and last_in is not None and last_in.group(1) == files[-1]:
        outputs = (files[-1],)
    inputs = tuple(f for f in files if f not in outputs)
    contents = tuple(s for s in lits.strings if not _FILE_RE.fullmatch(s))
    clauses = tuple(split_clauses(goal))
    masked = _plain(goal)
    for s in lits.strings:
        masked = masked.replace(s, " ")
    words = tuple(w for w in _WORDS_RE.findall(masked) if w.lower() not in STOP_WORDS)
    verbs = frozenset(c.split()[0].lower() for c in clauses if c.split())
    return GoalFacts(goal, clauses, lits, outputs, inputs, contents, words, verbs)


def _query(clause: str, facts: GoalFacts) -> list[str]:
    for s in facts.literals.strings:  # file names say nothing about the action
        clause = clause.replace(s, " ")
    return terms(_plain(clause))


# ------------------------------------------------------------------------------- skeletons


@dataclass(frozen=True)
class Skeleton:
    """An ordered choice of tools, one or more per clause, and its lexical prior."""

    tools: tuple[str, ...]
    prior: float


def _output_fields(spec: ToolSpec | None) -> list[RefCandidate]:
    return reference_candidates("x", spec)


def record_fields(spec: ToolSpec) -> list[tuple[str, frozenset[str] | None]]:
    """The fields (name, JSON types) of the record a tool returns (none for a list or a value)."""
    return [(c.text[2:-1].split(".", 1)[1], c.types) for c in _output_fields(spec) if "." in c.text]


_QUANTITY_TERMS = frozenset(terms(quantity_words("how many")))


def _fits_first_need(reader: ToolSpec, consumer: ToolSpec | None) -> bool:
    """Can the reader's output (or a field of it) feed the consumer's first data parameter?"""
    if consumer is None:
        return True
    needs = [p for p in _required(consumer) if not is_path_param(consumer, p)]
    if not needs:
        return True
    want = param_types(consumer, needs[0])
    want_items = item_types(_props(consumer).get(needs[0], {}), consumer.input_schema)
    return any(fits(c.types, c.items, want, want_items) for c in _output_fields(reader))


def _readers_per_input(
    consumer: ToolSpec, inputs: Sequence[str], readers: Sequence[str], tools: Mapping[str, ToolSpec]
) -> list[str] | None:
    """One reader per input file, for a consumer with a data parameter per file: each file gets
    a reader whose whole output fits one of the parameters. Files are read in the goal's order;
    the parameters are matched to them in the order whose readers' words best share the files'
    names ("pantry.json" → the reader of a "pantry inventory"), ties in the parameters' order.
    None when the consumer does not take that many data inputs or a parameter has no reader."""
    needs = [p for p in _required(consumer) if not is_path_param(consumer, p)]
    if len(needs) < len(inputs) or len(inputs) < 2:
        return None
    per_need: list[str] = []
    for pname in needs[: len(inputs)]:
        want = param_types(consumer, pname)
        want_items = item_types(_props(consumer).get(pname, {}), consumer.input_schema)
        found = [
            r
            for r in readers
            if (whole := _output_fields(tools[r])[:1])
            and fits(whole[0].types, whole[0].items, want, want_items)
        ]
        if not found:
            return None
        per_need.append(found[0])
    if len(set(per_need)) < 2:
        return None  # one reader serves every input: the plain rule already does this
    file_terms = [set(terms(_name_words(f))) for f in inputs]

    def overlap(order: tuple[str, ...]) -> int:
        return sum(len(file_terms[i] & set(tool_terms(tools[r]))) for i, r in enumerate(order))

    orders: list[tuple[str, ...]] = list(itertools.permutations(per_need))
    best = max(range(len(orders)), key=lambda i: (overlap(orders[i]), -i))
    return list(orders[best])


# Words that say how a result is laid out, not what it is: "one per line", "as a list",
# "comma separated", "each on its own line", "on separate lines".
_LAYOUT_PHRASE_RE = re.compile(
    r"\b(?:one|each)\s+(?:\w+\s+)?(?:per|a|on\s+(?:a|its\s+own|each))\s+line\b"
    r"|\b(?:as|in|into)\s+(?:an?\s+)?(?:(?:bullet(?:ed)?|numbered|sorted|plain)\s+)?"
    r"(?:(?:comma|semicolon|tab|space|newline)[- ]?(?:separated|delimited)\s+)?(?:list|lines|table)\b"
    r"|\b(?:comma|semicolon|tab|space|newline|line)[- ]?(?:separated|delimited)\b"
    r"|\bon\s+(?:separate|their\s+own|its\s+own)\s+lines?\b|\bline\s+by\s+line\b",
    re.IGNORECASE,
)


def split_layout(clause: str) -> tuple[str, str]:
    """The clause without its layout phrases ("List the authors, one per line" → "the
    authors"), and the layout phrases themselves ("" when there are none). With a layout phrase,
    a generic verb opening the clause ("list", "show": ``plan.verbs.GENERIC_VERBS``) goes with
    the layout: it asks for the result, laid out, not for a tool of its name."""
    layout = " ".join(m.group(0) for m in _LAYOUT_PHRASE_RE.finditer(clause))
    rest = _LAYOUT_PHRASE_RE.sub(" ", clause)
    if layout:
        first = rest.split(maxsplit=1)
        if first and first[0].lower() in GENERIC_VERBS:
            layout = f"{first[0]} {layout}"
            rest = first[1] if len(first) > 1 else ""
    return rest, layout


def _clause_options(
    clause: str,
    facts: GoalFacts,
    tools: Mapping[str, ToolSpec],
    index: BM25,
    width: int,
    layout_apart: bool = False,
) -> list[tuple[str, ...]]:
    ranked = [(n, s) for n, s in index.rank(_query(clause, facts)) if s > 0]
    rest, layout = split_layout(clause) if layout_apart else (clause, "")
    if layout and _query(rest, facts):
        # What the clause asks for ranks the tools; its layout words only add a formatter
        # (``_formatted``), so a tool describing that layout does not outrank the noun's tool.
        head = [(n, s) for n, s in index.rank(_query(rest, facts)) if s > 0]
        ranked = head + [(n, s) for n, s in ranked if n not in dict(head)]
    names_out = [o for o in facts.outputs if o in clause]
    writers = [n for n, _ in index.rank(_query(clause, facts)) if is_writer(tools[n])]
    if names_out and writers:
        middle = [n for n, _ in ranked if not is_writer(tools[n]) and not is_reader(tools[n])][:width]
        tails = writers[:1]
        bodies: list[tuple[str, ...]] = [()]
        bodies += [(m,) for m in middle]
        bodies += [p for p in itertools.permutations(middle, 2)]
        return [(*b, t) for t in tails for b in bodies]
    picks = [n for n, _ in ranked if not is_writer(tools[n])][:width]
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
    out_terms = set(terms(" ".join(_name_words(o) for o in facts.outputs))) - goal_terms
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


def _name_words(path: str) -> str:
    """The words of a file's name: "total_hours.txt" → "total hours"."""
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
    return re.sub(r"[_\-]+", " ", stem)


def _superfluous(
    chain: Sequence[str],
    facts: GoalFacts,
    docs: Mapping[str, set[str]],
    tools: Mapping[str, ToolSpec],
    readers: set[str],
    kept: Sequence[str] = (),
) -> int:
    """Middle steps (neither reading nor writing a file) that explain no goal word the rest of
    the chain leaves unexplained: work the goal does not ask for, whatever types it fits. A
    step in ``kept`` (a filter taking one of the goal's values) is there for that value."""
    goal_terms = set(terms(" ".join(facts.words)))
    count = 0
    for i, name in enumerate(chain):
        if name in readers or is_writer(tools[name]) or name in kept:
            continue
        others: set[str] = set()
        for j, other in enumerate(chain):
            if j != i and other not in readers:
                others |= docs[other]
        if not (goal_terms & docs[name]) - others:
            count += 1
    return count


def skeletons(
    goal: str,
    tools: Mapping[str, ToolSpec],
    *,
    width: int = 2,
    limit: int = 8,
    refinements: Refinements = Refinements(),
) -> list[Skeleton]:
    """Candidate tool chains for ``goal``, best prior first (at most ``limit``)."""
    facts = goal_facts(goal, refinements)
    index = tool_index(tools)
    docs = {name: set(tool_terms(spec)) for name, spec in tools.items()}
    names = {name: set(terms(name)) for name in tools}
    if refinements.writer_verbs:
        docs = {n: (d | _WRITE_TERMS if is_writer(tools[n]) else d) for n, d in docs.items()}
    per_clause = [
        _clause_options(c, facts, tools, index, width, refinements.layout_apart) for c in facts.clauses
    ]
    # A list goes to a .json file as JSON; elsewhere as the tool set formats lists.
    wants_json = any(o.lower().endswith(".json") for o in facts.outputs)
    formatters = [] if wants_json else [n for n, _ in index.rank(terms(goal)) if _is_formatter(tools[n])]
    readers = [n for n, _ in index.rank(terms(goal)) if is_reader(tools[n])]
    writers = [n for n, _ in index.rank(terms(goal)) if is_writer(tools[n])]
    # Readers, writers and formatters are there for the data's types and the goal's files, not
    # for what the goal says: their names are not held to the goal's words.
    judged = [
        n
        for n, spec in tools.items()
        if refinements.name_precision and not (is_reader(spec) or is_writer(spec) or _is_formatter(spec))
    ]
    # Names are held to the goal's words only when some tool's name says nothing but goal words
    # (``peak`` for "the peak"): a name's extra word counts against it next to such a tool, not
    # where every name carries words the goal puts otherwise ("email list": ``email_addresses``).
    said = set(terms(" ".join(facts.words))) | set(terms(" ".join(_name_words(o) for o in facts.outputs)))
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
        value_words(facts, value_docs(tools, examples=refinements.example_values), refinements)
        if refinements.value_filters
        else []
    )
    filters = [n for n, _ in index.rank(terms(goal)) if filter_param(tools[n]) is not None] if values else []
    # Any tool that takes a short text besides its data ("the region column": a column's name)
    # explains a value by taking it; only filters are put in where the chain lacks one.
    takers = [n for n, spec in tools.items() if value_param(spec) is not None] if values else []
    if refinements.whole_values:
        # A date goes to a date's parameter, a name not: takers of no value's kind explain none.
        # A date goes to a date's parameter, never to a name's; a day's parameter may still
        # take a word ("on Monday"). Takers of the values' own kinds come first.
        kinds = {value_kind(v) for v in values}
        takers = [n for n in takers if _taker_kind(tools[n]) in kinds or _taker_kind(tools[n]) != "text"]
        filters = sorted(
            (n for n in filters if n in takers), key=lambda n: _taker_kind(tools[n]) not in kinds
        )
    selectors = [n for n, _ in index.rank(terms(goal)) if n in takers and n not in filters]
    if takers:
        value_terms = set(terms(" ".join(v for v in values if v not in facts.contents)))
        docs = {n: (d | value_terms if n in takers else d) for n, d in docs.items()}
    quoted_values = [v for v in values if v in facts.contents] if takers else []
    seen: set[tuple[str, ...]] = set()
    out: list[Skeleton] = []
    for combo in itertools.islice(itertools.product(*per_clause), 200):
        chain: list[str] = []
        for part in combo:
            for name in part:
                if not chain or chain[-1] != name:
                    chain.append(name)
        if facts.outputs and writers and not any(is_writer(tools[n]) for n in chain):
            chain.append(writers[0])
        variants: list[list[str]] = [chain]
        if facts.inputs and readers and not any(reads_files(tools[n]) for n in chain):
            consumer = tools[chain[0]] if chain else None
            fitting = [r for r in readers if _fits_first_need(tools[r], consumer)] or readers
            variants = [[r] * len(facts.inputs) + chain for r in fitting[:2]]
            per_input = (
                _readers_per_input(consumer, facts.inputs, readers, tools)
                if refinements.reader_per_input and consumer is not None
                else None
            )
            if per_input is not None:
                variants.insert(0, per_input + chain)
        if not any(n in filters for n in chain):
            variants += [
                list(f) for v in list(variants) for n in filters[:2] if (f := _with_filter(v, n, tools))
            ]
        if not any(n in takers for n in chain):
            variants += [
                list(f) for v in list(variants) for n in selectors[:2] if (f := _with_selector(v, n, tools))
            ]
        for v in variants:
            key = tuple(v)
            if not key or key in seen:
                continue
            seen.add(key)
            superfluous = _superfluous(key, facts, docs, tools, set(readers), takers)
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
    out.sort(key=lambda s: -s.prior)
    return out[:limit]


# How a formatter describes itself: it lays items out (a list → text holding all of them), where
# a reducer that also turns a list into a string ("the longest of some words") picks one.
_LAYOUT_RE = re.compile(
    r"\b(?:lines?|format(?:s|ted)?|join(?:s|ed)?|columns?|separated|bullets?|commas?|semicolons?)\b",
    re.IGNORECASE,
)


def _is_formatter(spec: ToolSpec) -> bool:
    """A read-only tool laying one list out as text: one required list parameter, a string
    result, and a description that speaks of layout (``_LAYOUT_RE``)."""
    req = _required(spec)
    out = spec.output_schema
    return (
        spec.effect == "read_only"
        and len(req) == 1
        and not is_path_param(spec, req[0])
        and param_types(spec, req[0]) == {"array"}
        and out is not None
        and types_of(out, out) == {"string"}
        and bool(_LAYOUT_RE.search(spec.description))
    )


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
        pname = _required(spec)[0]
        want_items = item_types(_props(spec)[pname], spec.input_schema)
        if fits({"array"}, have_items, {"array"}, want_items):
            return (*chain[:-1], name, chain[-1])
    return None


# ------------------------------------------------------------------------------- value filters

# Words that complete a verb ("add up"), and pronouns and quantifiers: never values of a field.
_NOT_VALUES = frozenset(
    (
        "up",
        "down",
        "out",
        "off",
        "over",
        "away",
        "back",
        "please",
        "we",
        "us",
        "you",
        "everyone",
        "everything",
        "everybody",
        "anyone",
        "anything",
        "someone",
        "something",
        "nothing",
        "per",
        "every",
        "other",
        "same",
    )
)


# Function verbs (auxiliaries, modals, copulas) are a closed class: "how many hours *were*
# logged", "pages.txt *should* hold" -- never values.
_FUNCTION_VERBS = frozenset(
    (
        "am",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "has",
        "have",
        "had",
        "having",
        "do",
        "does",
        "did",
        "done",
        "will",
        "would",
        "shall",
        "should",
        "can",
        "could",
        "may",
        "might",
        "must",
        "need",
        "needs",
    )
)
# Prepositions that introduce the value a goal selects by ("entries for carol", "books by Le
# Guin", "on 2026-11-03", "readings from sensor4").
_VALUE_PREPOSITIONS = frozenset(("for", "by", "from", "on", "of"))
# A token of digits with separators is one value: a date, a time, a code ("2026-11-03",
# "10:30", "03/11/2026"), never several numbers.
_SEPARATED_RE = re.compile(r"(?<![\w.:/-])\d+(?:[-/:]\d+)+(?![\w/:-]|\.\d)")
# A number and a unit's symbol (SI and common ones): one value, "800 m", "5 km", "12 kg".
_MEASURE_RE = re.compile(
    r"(?<![\w.])\d+(?:\.\d+)?\s?(?:m|km|cm|mm|mi|kg|g|mg|lb|oz|l|ml|s|ms|min|h|hr|kb|mb|gb)(?![\w.])"
)
# A multi-word proper name: capitalized words and initials in a row ("Ursula K. Le Guin"),
# joined by "&" too ("Bolt & Co").
_NAME_RUN_RE = re.compile(r"\b[A-Z][\w'-]*(?:\s+(?:&\s+)?(?:[A-Z]\.|[A-Z][\w'-]*))+")
# In a tool's description, what follows "for example", "e.g." or "such as" (to the end of the
# parenthesis or sentence) names sample *values* of a parameter, not what the tool does.
_EXAMPLES_RE = re.compile(
    r"\b(?:for example|for instance|e\.g\.|such as|like)\s*,?\s*([^).;]*)", re.IGNORECASE
)


def example_terms(spec: ToolSpec) -> set[str]:
    """Terms a tool's description gives only as examples of values ("the books of the given
    genre (for example fantasy or science fiction)"): a goal word among them is still a value
    the goal supplies, not a word the tool explains."""
    examples = " ".join(m.group(1) for m in _EXAMPLES_RE.finditer(spec.description))
    rest = _EXAMPLES_RE.sub(" ", spec.description)
    said = set(terms(spec.name)) | set(terms(rest)) | set(terms(" ".join(_props(spec))))
    return set(terms(examples)) - said


def value_docs(tools: Mapping[str, ToolSpec], *, examples: bool) -> dict[str, set[str]]:
    """Each tool's document terms for ``value_words``; with ``examples``, less the terms its
    description names only as example values (``example_terms``)."""
    return {
        n: set(tool_terms(spec)) - (example_terms(spec) if examples else set()) for n, spec in tools.items()
    }


def value_kind(text: str) -> str:
    """What a value looks like: "date" (digits with "-" or "/"), "time" (digits with ":"),
    else "text"."""
    if _SEPARATED_RE.fullmatch(text):
        return "time" if ":" in text else "date"
    return "text"


_KIND_PARAM = {
    "date": re.compile(r"(?<![a-z])(?:date|day|yyyy)(?![a-z])", re.IGNORECASE),
    "time": re.compile(r"(?<![a-z])(?:time|clock|hh)(?![a-z])", re.IGNORECASE),
}


def param_kind(spec: ToolSpec, pname: str) -> str:
    """The kind of value a text parameter takes, by its name, else its description or the
    tool's ("date", "(YYYY-MM-DD)" → "date"); "text" otherwise."""
    described = str((_props(spec).get(pname) or {}).get("description") or "")
    for kind, pattern in _KIND_PARAM.items():
        if pattern.search(pname):
            return kind
    for kind, pattern in _KIND_PARAM.items():
        if pattern.search(described) or (
            pattern.search(spec.description) and not any(p.search(pname) for p in _KIND_PARAM.values())
        ):
            return kind
    return "text"


def _taker_kind(spec: ToolSpec) -> str:
    pname = value_param(spec)
    return param_kind(spec, pname) if pname is not None else "text"


def value_words(
    facts: GoalFacts, docs: Mapping[str, set[str]], refinements: Refinements | None = None
) -> list[str]:
    """Goal words that look like a value to filter by: no tool of the set explains them (they
    are data, not an action), they do not start a clause, and they qualify a word some tool
    explains -- right before it ("dairy items", "Friday's meetings") or after it and "of" ("the
    amount of spice") -- or the goal capitalizes them mid-sentence ("live in Oslo"); and a
    one-word text the goal quotes. A stray word of the sentence ("the answer", "names from")
    does not.

    With ``refinements.whole_values`` (suite 6): a run of such words is one value ("science
    fiction books", "by Ursula K. Le Guin"), so is a date or time ("2026-11-03"); a value may
    also follow "for", "by", "from" or "on" ("entries for carol"), or stand between the noun it
    qualifies and a past-tense verb ("the hours alice worked"); function verbs ("were",
    "should") never are values."""
    whole = refinements is not None and refinements.whole_values
    classes = refinements is not None and refinements.value_classes
    known = set().union(*docs.values()) if docs else set()
    masked = HOW_MANY_RE.sub(" ", facts.goal)  # its "count number" is no word of the goal's
    found: list[str] = []
    if whole:
        found += [m.group(0) for m in _SEPARATED_RE.finditer(masked)]
        masked = _SEPARATED_RE.sub(" @ ", masked)
    if classes:  # a number with a unit's symbol is one value ("the 800 m", "5 km")
        found += [m.group(0) for m in _MEASURE_RE.finditer(masked)]
        masked = _MEASURE_RE.sub(" @ ", masked)
    for lit in facts.literals.strings:  # a literal stands between words: they are not adjacent
        masked = re.sub(rf"[\"'`“]?(?<![\w.]){re.escape(lit)}(?![\w])[\"'`”]?", " @ ", masked)
    # "Friday's" → Friday, (s)
    spans = [
        m
        for m in re.finditer(r"[A-Za-z][A-Za-z0-9_-]*|@", masked)
        if len(m.group(0)) > 1 or m.group(0) == "@"
    ]
    tokens = [m.group(0) for m in spans]
    names = set(goal_names(facts.goal))  # a name the goal capitalizes ("in Oslo") is a value too
    runs: dict[int, tuple[int, str]] = {}  # first token → (last token, the whole name)
    if whole:
        for m in _NAME_RUN_RE.finditer(masked):
            first = next((i for i, t in enumerate(spans) if t.start() == m.start()), None)
            words = m.group(0).split()
            if first is None or first == 0 or re.search(r"[.?!]\s*\Z", masked[: m.start()]):
                continue  # a sentence's first word is capitalized anyway
            last = first + sum(1 for w in words if len(w.rstrip(".")) > 1) - 1
            runs[first] = (last, m.group(0).rstrip(".") if len(words[-1]) > 2 else m.group(0))

    def explained(i: int) -> bool:
        if not 0 <= i < len(tokens):
            return False
        w = tokens[i].lower()
        return w != "@" and w not in STOP_WORDS and w not in facts.verbs and bool(set(terms(w)) & known)

    def candidate(i: int) -> bool:
        word = tokens[i]
        lowered = word.lower()
        if word == "@" or lowered in STOP_WORDS or lowered in facts.verbs or lowered in _NOT_VALUES:
            return False
        if whole and lowered in _FUNCTION_VERBS:
            return False
        if classes and never_value(
            word, tokens[i - 1] if i >= 1 else "", tokens[i + 1] if i + 1 < len(tokens) else ""
        ):
            return False
        return bool(terms(word)) and not set(terms(word)) & known

    def adjacent(i: int, j: int) -> bool:  # only spaces between the two tokens
        return 0 <= i < j < len(spans) and not masked[spans[i].end() : spans[j].start()].strip()

    i = 0
    while i < len(tokens):
        if i in runs:
            last, name = runs[i]
            found.append(name)
            i = last + 1
            continue
        if not candidate(i):
            i += 1
            continue
        end = i
        if whole:  # a run of value words right before a word a tool explains: one value
            while (
                end + 1 < len(tokens)
                and end + 1 not in runs
                and candidate(end + 1)
                and adjacent(end, end + 1)
            ):
                end += 1
            if end > i and not (explained(end + 1) and adjacent(end, end + 1)):
                end = i  # only a qualifying run counts whole
        word = tokens[i] if end == i else masked[spans[i].start() : spans[end].end()]
        before = tokens[i - 1].lower() if i >= 1 else ""
        after_of = i >= 2 and before == "of" and explained(i - 2)
        after_prep = whole and before in _VALUE_PREPOSITIONS and before != "of"
        relative = (
            whole
            and explained(i - 1)
            and end + 1 < len(tokens)
            and (tokens[end + 1].lower().endswith("ed") or tokens[end + 1].lower() in _FUNCTION_VERBS)
        )
        if explained(end + 1) or after_of or after_prep or relative or tokens[i] in names:
            found.append(word)
        i = end + 1
    # A one-word text the goal quotes ("start with "a"") is a value as it stands.
    found += [c for c in facts.contents if len(c.split()) == 1]
    return list(dict.fromkeys(found))


def value_param(spec: ToolSpec) -> str | None:
    """The one short-text parameter of a read-only tool that also takes data: the value it
    selects, filters or looks up by (a column's name, a category). None for any other tool."""
    if spec.effect != "read_only":
        return None
    req = _required(spec)
    texts = [
        p
        for p in req
        if param_types(spec, p) == {"string"}
        and not is_path_param(spec, p)
        and not any(k in (_props(spec).get(p) or {}) for k in ("enum", "const"))
    ]
    return texts[0] if len(texts) == 1 and len(req) >= 2 else None


def filter_param(spec: ToolSpec) -> str | None:
    """The text parameter of a filtering tool, or None: a read-only tool taking one list and one
    short text (not a file name, not an enum) and returning a list of the same items -- some of
    the items, chosen by the text."""
    req = _required(spec)
    out = spec.output_schema
    if spec.effect != "read_only" or len(req) != 2 or out is None or types_of(out, out) != {"array"}:
        return None
    lists = [p for p in req if param_types(spec, p) == {"array"}]
    texts = [
        p
        for p in req
        if param_types(spec, p) == {"string"}
        and not is_path_param(spec, p)
        and not any(k in (_props(spec).get(p) or {}) for k in ("enum", "const"))
    ]
    if len(lists) != 1 or len(texts) != 1:
        return None
    want_items = item_types(_props(spec)[lists[0]], spec.input_schema)
    have_items = item_types(out, out)
    return texts[0] if fits({"array"}, have_items, {"array"}, want_items) else None


def _with_selector(chain: Sequence[str], name: str, tools: Mapping[str, ToolSpec]) -> tuple[str, ...] | None:
    """``chain`` with ``name`` (a tool taking the goal's value besides its data, not a filter)
    right after the first step whose whole output its data parameter takes, where what it returns
    fits the next step (or the next step writes it): "the region column of a.csv as a list" →
    the sheet, the column named "region", the list. None when there is no such place."""
    spec = tools[name]
    value = value_param(spec)
    data = [p for p in _required(spec) if p != value]
    if len(data) != 1 or spec.output_schema is None:
        return None
    want = param_types(spec, data[0])
    want_items = item_types(_props(spec)[data[0]], spec.input_schema)
    for i, step in enumerate(chain[:-1]):
        whole = _output_fields(tools[step])[:1]
        if not whole or not fits(whole[0].types, whole[0].items, want, want_items):
            continue
        nxt = tools[chain[i + 1]]
        if is_writer(nxt) or _fits_first_need(spec, nxt):
            return (*chain[: i + 1], name, *chain[i + 1 :])
        return None
    return None


def _with_filter(chain: Sequence[str], name: str, tools: Mapping[str, ToolSpec]) -> tuple[str, ...] | None:
    """``chain`` with the filter ``name`` right after the first step whose output it takes (the
    list the goal's value picks from), or None when no step's output fits it."""
    spec = tools[name]
    lst = next(p for p in _required(spec) if param_types(spec, p) == {"array"})
    want = param_types(spec, lst)
    want_items = item_types(_props(spec)[lst], spec.input_schema)
    for i, step in enumerate(chain):
        whole = _output_fields(tools[step])[:1]
        if whole and fits(whole[0].types, whole[0].items, want, want_items):
            return (*chain[: i + 1], name, *chain[i + 1 :])
    return None


# ------------------------------------------------------------------------------- slots


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


def _outputs_of(k: int, spec: ToolSpec, goal_terms: set[str]) -> list[_Output]:
    cands = reference_candidates(f"s{k + 1}", spec)
    found = []
    for c in cands:
        field_name = c.text[2:-1].split(".", 1)[1] if "." in c.text else ""
        found.append(
            _Output(
                c.text,
                k,
                c.types,
                bool(field_name) and bool(_PATHY_PARAM.search(field_name)),
                bool(field_name) and bool(set(terms(field_name)) & goal_terms),
                c.items,
            )
        )
    # When some field is named by the goal ("the words"), the other fields are not offered.
    if any(o.relevant for o in found):
        found = [o for o in found if o.relevant or o.text.count(".") == 0]
    return found


def _near_words(pname: str, facts: GoalFacts) -> list[str]:
    """Plain goal words right before or after the parameter's name in the goal."""
    pterm = terms(pname)
    plain = {w.lower() for w in facts.words}
    tokens = _WORDS_RE.findall(facts.goal)
    near: list[str] = []
    for i, w in enumerate(tokens):
        if pterm and terms(w) == pterm:
            near += [
                tokens[j]
                for j in (i - 1, i + 1)
                if 0 <= j < len(tokens) and tokens[j].lower() in plain and terms(tokens[j]) != pterm
            ]
    return list(dict.fromkeys(near))


def _word_options(spec: ToolSpec, pname: str, facts: GoalFacts, explained: set[str]) -> list[str]:
    """Goal words for a short free string: a plain word right next to the parameter's name in
    the goal ("the amount column"), else the goal's plain words that neither start a clause nor
    are explained by a chosen tool's description."""
    pterm = terms(pname)
    near = _near_words(pname, facts)
    rest = [
        w
        for w in facts.words
        if w.lower() not in facts.verbs and not (set(terms(w)) & explained) and terms(w) != pterm
    ]
    return list(dict.fromkeys(near or rest))


def bind(
    chain: Sequence[str],
    goal: str,
    tools: Mapping[str, ToolSpec],
    *,
    typed: bool = True,
    refinements: Refinements = Refinements(),
) -> Slots:
    """The allowed values of every argument of every step of ``chain`` (see the module doc)."""
    facts = goal_facts(goal, refinements)
    if not typed:
        return _bind_untyped(chain, facts, tools)
    goal_terms = set(terms(" ".join(facts.words)))
    explained = set().union(*(set(tool_terms(tools[n])) for n in chain)) if chain else set()
    values: list[str] = []
    if refinements.value_filters and any(value_param(tools[n]) is not None for n in chain):
        docs = value_docs(tools, examples=refinements.example_values)
        values = value_words(facts, docs, refinements)
    slots = Slots()
    outputs: list[_Output] = []
    consumed: set[int] = set()
    used_literals: set[str] = set()
    for k, name in enumerate(chain):
        spec = tools[name]
        args: dict[str, list[Any] | dict[str, Any]] = {}
        required = set(_required(spec))
        this_step: set[int] = set()  # one output feeds one argument of a step, not two
        for pname, pschema in _props(spec).items():
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
            )
            if values and pname == value_param(spec) and isinstance(options, list):
                # A filter's text takes the goal's value words when it can (a literal the goal
                # quotes or a word next to the parameter's name stays first).
                fitting = [v for v in values if v in options]
                if refinements.whole_values:
                    # Whole values (a name of several words, a date) are goal text as they
                    # stand; each goes only to a parameter of its kind.
                    kind = param_kind(spec, pname)
                    fitting = [v for v in values if value_kind(v) == kind] or (
                        [v for v in fitting if value_kind(v) == "text"] if kind != "text" else []
                    )
                options = fitting + [o for o in options if o not in fitting] if fitting else options
                if fitting and options[0] in values:
                    options = fitting
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
        outputs += _outputs_of(k, spec, goal_terms)
    return slots


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
) -> list[Any] | dict[str, Any] | None:
    """Allowed values for one parameter, preferred first; None = leave it out (optional)."""
    required = pname in _required(spec)
    pschema = pschema if isinstance(pschema, Mapping) else {}
    if any(k in pschema for k in ("enum", "const")) or want == {"boolean"}:
        return dict(pschema) if required else None
    path = is_path_param(spec, pname)
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
    fresh = [o.text for o in fresh_exact]
    if not fresh:  # as text only when nothing fits as it is: fields the goal names first
        fresh_text = [o for o in as_text if o.step not in consumed]
        fresh_text = [o for o in fresh_text if o.step == fresh_text[0].step]
        fresh_text.sort(key=lambda o: (not o.relevant, o.text.count(".")))
        if named_fields_only and sum(o.relevant for o in fresh_text) == 1:
            # The one field the goal names ("how many servings") is what is written, not the
            # record (naming two, "the vowels and digits", the whole record may be meant).
            fresh_text = [o for o in fresh_text if o.relevant]
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
            literals = _word_options(spec, pname, facts, explained)
    if not required:
        return None
    return literals + used


_NUMBER_WORDS_RE = re.compile(
    r"(?:([A-Za-z]+)\s+(?:of|at|is|=|:)?\s*)?(?<![\w.:/-])(-?\d+(?:\.\d+)?)(?![\w.]|[-/:]\d)(?:\s+([A-Za-z]+))?"
)


def _numbers_named(pname: str, goal: str) -> list[float | int]:
    """The goal's numbers that the parameter's name stands next to: the noun after the number
    ("12.5 hours") or the word before it, with or without "of"/"at" ("a rate of 64")."""
    pterms = terms(pname)
    found: list[float | int] = []
    for m in _NUMBER_WORDS_RE.finditer(goal):
        if pterms and pterms in (terms(m.group(1) or ""), terms(m.group(3) or "")):
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
