"""What a goal's text offers the planner: its clauses, its literals by role (the files it
produces and reads, quoted contents), its plain words and verbs (``GoalFacts``), and where
layout phrases stand in a clause (``plan.layout.split_layout``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from forethought.plan.coverage import EMPTY_FILE_RE, goal_outputs
from forethought.planning.bm25 import STOP_WORDS, quantity_words
from forethought.planning.clauses import split_clauses
from forethought.planning.grammar import _FILE_RE, Literals, goal_literals
from forethought.planning.refinements import Refinements
from forethought.planning.word_classes import WHO_WORDS, measured_amounts, regular_grades, summed_words

WORDS_RE = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


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
    asks_who: bool = False  # "who", "whom" or "whose" is a word of the goal: a person is asked for


# A file named right after "into", "as" or "to" is where a result goes, whatever the verb
# ("sort a.txt into b.txt", "join a.md and b.md into c.md", "save a.txt as b.txt").
# Not after "according to", "compared to", "due to", …: there "to" names a source.
_TARGET_RE = re.compile(
    r"(?<!according )(?<!compared )(?<!relative )(?<!similar )(?<!due )(?<!next )"
    r"\b(?:into|as|to)\s+(?:(?:a|an|the|new|file|document|named|called)\s+)*([\w./-]+)",
    re.IGNORECASE,
)
# An arrow points at where a result goes ("count the rows of a.csv -> rows.txt").
_ARROW_RE = re.compile(r"(?:->|→|=>)\s*([\w./-]+)")
# "In" names where a result goes only at the very end of a goal that reads another file ("list
# the names in people.json in names.txt"); elsewhere it names what is read ("the words in a.txt").
_LAST_IN_RE = re.compile(
    # Not after a negation or a comparison: "how many words are in a.txt but *not in* b.txt"
    # reads b.txt (it had been overwritten with the count).
    r"(?<!\bnot )(?<!\bthan )(?<!\bas )\b(?:in|into|at)\s+"
    r"(?:(?:a|an|the|new|file|document|named|called)\s+)*([\w./-]+?)\W*\Z"
)


def plain_words(text: str) -> str:
    """Goal text as ``terms`` reads it ("how many" → "count number"), for the word list."""
    return quantity_words(text)


# The subject of a sentence whose verb is a modal ("pages.txt should hold …", "out.txt must
# list …"): a file that is to be made, where the result goes.
_SUBJECT_RE = re.compile(
    r"(?:\A|[.?!;]\s+)(?:the\s+(?:file\s+)?)?([\w./-]+)\s+(?:should|must|shall|will|needs?\s+to|is\s+to)\s",
    re.IGNORECASE,
)
# A file whose line a writing verb puts a result on ("write a.txt's on the first line of
# out.txt", "put it on line 2 of b.txt"): where the result goes, though "of" stands before it.
_LINE_TARGET_RE = re.compile(
    r"\b(?:write|put|save|record|store)\b(?:[^.;?!]|\.(?=\S))*?\b(?:on|in|at)\s+(?:the\s+)?(?:[a-z]+\s+line|line\s+\d+)"
    r"\s+of\s+(?:the\s+file\s+)?([\w./-]+\.[A-Za-z]\w*)",
    re.IGNORECASE,
)
# A file whose line a possessive's result goes on, with no verb ("Hilltop's on the first line
# of out.txt, the valley's on the second"): where the results go, as with a writing verb.
_POSSESSIVE_LINE_RE = re.compile(
    r"\b[\w-]+['’]s?\s+(?:on|in|at)\s+(?:the\s+)?(?:[a-z]+\s+line|line\s+\d+)"
    r"\s+of\s+(?:the\s+file\s+)?([\w./-]+\.[A-Za-z]\w*)",
    re.IGNORECASE,
)
# A file that labels its sentence with a colon ("count.txt: how many …"): the answer's place.
_LABEL_RE = re.compile(r"(?:\A|[.?!;]\s+)([\w./-]+\.[A-Za-z]\w*):\s")
# Or with a dash between spaces ("hours.txt - total hours spent on …").
_DASH_LABEL_RE = re.compile(r"(?:\A|[.?!;]\s+)([\w./-]+\.[A-Za-z]\w*)\s+[-–—]\s")
# A file the goal reads from: right after "in", "of", "from" or "see" ("the books in
# catalogue.json", "(see inventory.json)").
_SOURCE_RE = re.compile(r"\b(?:in|of|from|see)\s+(?:(?:a|an|the|file)\s+)*([\w./-]+)", re.IGNORECASE)


def output_files(
    goal: str,
    files: Sequence[str],
    *,
    lone_label: bool = False,
    dash_label: bool = False,
    label_sources: bool = False,
) -> tuple[str, ...] | None:
    """The output files by the sentence's structure, or None when it does not say: a file in
    the output position -- the subject of a modal sentence ("pages.txt should hold …") or the
    target of "into"/"to"/"as" -- when the goal also names a file it reads ("in", "of", "from"
    + file) that is not such a target. Named first or last, the target is the output. A file
    labelling a sentence with a colon is the output; with ``lone_label`` also when it is the
    goal's only file ("bill.txt: what does … cost?"); with ``dash_label`` a dash labels as a
    colon does ("hours.txt - total hours spent on the tickets in archive.json"). With
    ``label_sources``, a label is what the goal reads when another file is the target of "to",
    "into" or "as" ("b.json: how late is the first train? Write the minutes to late.txt")."""
    targets = [m.group(1).rstrip(".,") for m in _TARGET_RE.finditer(goal)]
    subjects = [m.group(1).rstrip(".,") for m in _SUBJECT_RE.finditer(goal)]
    labels = [m.group(1) for m in _LABEL_RE.finditer(goal) if m.group(1) in files]
    if dash_label:
        labels += [m.group(1) for m in _DASH_LABEL_RE.finditer(goal) if m.group(1) in files]
    if label_sources and any(t in files and t not in labels for t in targets):
        labels = [f for f in labels if f in targets]  # the other file is where the answer goes
    placed = [f for f in dict.fromkeys([*labels, *subjects, *targets]) if f in files]
    sources = [m.group(1).rstrip(".,") for m in _SOURCE_RE.finditer(goal)]
    if labels and (lone_label or any(f not in placed for f in files)):
        return tuple(placed)  # a label is unambiguous: any other file is read
    if not placed or not any(f in sources and f not in placed for f in files):
        return None
    return tuple(placed)


def goal_facts(goal: str, refinements: Refinements | None = None) -> GoalFacts:
    lits = goal_literals(goal)
    files = [s for s in lits.strings if _FILE_RE.fullmatch(s)]
    targets = [m.group(1).rstrip(".") for m in _TARGET_RE.finditer(goal)]
    if refinements is not None and refinements.arrow_targets:
        targets += [m.group(1).rstrip(".") for m in _ARROW_RE.finditer(goal)]
    if refinements is not None and refinements.line_targets:
        targets += [m.group(1) for m in _LINE_TARGET_RE.finditer(goal)]
        if refinements.possessive_lines:
            targets += [m.group(1) for m in _POSSESSIVE_LINE_RE.finditer(goal)]
    # A file a modal sentence says the text of is an output by its position: read with it.
    subjects = refinements is None or (refinements.output_position and refinements.content_subjects)
    named_files = refinements is None or refinements.named_outputs
    named = [
        *goal_outputs(goal, content_subjects=subjects, named_files=named_files),
        *(t for t in targets if t in files),
    ]
    outputs = tuple(dict.fromkeys(o for o in named if o in files or _FILE_RE.fullmatch(o)))
    placed = (
        output_files(
            goal,
            files,
            lone_label=refinements.lone_label,
            dash_label=refinements.label_phrases,
            label_sources=refinements.label_sources,
        )
        if refinements is not None and refinements.output_position
        else None
    )
    if placed is not None:
        outputs = placed
        if refinements is not None and refinements.line_targets:
            lines = [m.group(1) for m in _LINE_TARGET_RE.finditer(goal) if m.group(1) in files]
            if refinements.possessive_lines:
                lines += [m.group(1) for m in _POSSESSIVE_LINE_RE.finditer(goal) if m.group(1) in files]
            outputs = tuple(dict.fromkeys([*outputs, *lines]))
    last_in = _LAST_IN_RE.search(goal)
    if not outputs and len(files) >= 2 and last_in is not None and last_in.group(1) == files[-1]:
        outputs = (files[-1],)
    inputs = tuple(f for f in files if f not in outputs)
    contents = tuple(s for s in lits.strings if not _FILE_RE.fullmatch(s))
    if not contents and EMPTY_FILE_RE.search(goal):
        contents = ("",)  # "make an empty file called e.txt": its text is given, and it is ""
    # "the best score" asks for the highest: said as the regular words a tool would use.
    said = regular_grades(goal) if refinements is not None and refinements.value_forms else goal
    if refinements is not None and refinements.measure_units:
        said = measured_amounts(said)  # "how many mL of …": an amount
    if refinements is not None and refinements.summed_words:
        said = summed_words(said)  # "how long … altogether": a total, not the longest
    clauses = tuple(split_clauses(said))
    masked = plain_words(said)
    for s in lits.strings:
        masked = masked.replace(s, " ")
    words = tuple(w for w in WORDS_RE.findall(masked) if w.lower() not in STOP_WORDS)
    verbs = frozenset(c.split()[0].lower() for c in clauses if c.split())
    asks_who = any(w.lower() in WHO_WORDS for w in WORDS_RE.findall(goal))
    return GoalFacts(goal, clauses, lits, outputs, inputs, contents, words, verbs, asks_who)


def name_words(path: str) -> str:
    """The words of a file's name: "total_hours.txt" → "total hours"."""
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
    return re.sub(r"[_\-]+", " ", stem)
