"""Goal coverage: does a plan, as written, use what its goal names? Deterministic, model-free.

A plan can validate and still miss its goal ("copy notes.txt to notes-backup.txt" planned as
``read_file`` + ``text_stats``). This module compares the plan with the goal's text by a few
general text rules and the tools' declared effects, never by recognising particular goals or
tools, so it works the same for every model and every tool set. It is a check, not a proof:
a finding says "look here", an empty result says only "nothing the rules can see is missing".

``check_coverage(plan, goal, tools)`` returns a frozen ``Coverage`` (``covered``, ``missing``);
each ``Finding`` has a ``kind``, the goal ``literal`` or the ``step_id`` (+ ``field``) it is
about, and a one-line ``message``. Kinds:

``missing_literal``
    A literal of the goal that no step argument uses. Literals are found by these regexes, in
    this order (a span taken by one is not re-read by a later one):
    quoted text (``"…"``, ``'…'``, ```…```, ``“…”``); URLs (``http(s)://…``); e-mail addresses;
    file and directory names (a token with a ``/`` in it, or ``name.ext`` with an extension that
    starts with a letter, up to 8 characters); a directory named after ``directory|folder|dir``
    (optionally ``named|called``) or after ``file(s)|entries|contents in|under|inside|of``;
    the content of a writing verb (``write|append|put|save|store X to|into|in …``, X not starting
    with a determiner or pronoun such as ``the``/``it``, and not itself a literal); content named
    by what it is, to the end of its clause (``with the text|message|body X``, ``saying X``,
    ``that says X``; same exclusions); numbers; and the
    noun that follows a number (``5 widgets``), unless it is a generic unit (``lines``, ``files``,
    ``seconds``, … see ``_GENERIC_NOUNS``) or a function word (``above 80 from a.txt``). A
    literal is used when it occurs, case-insensitively,
    in a string argument of a step (or an agent step's instruction); a number also when an
    argument equals it numerically; a noun also in its singular form or as an argument name.
``missing_output``
    An output the goal asks for that no side-effecting step produces: after one of the verbs in
    ``_OUTPUT_VERBS`` (``write``, ``save``, ``copy``, ``send``, …), the first literal that follows
    ``to|into|as|in`` in the same clause (``in`` only when no ``to|into|as`` phrase follows the
    verb or opens its sentence: "Into b.txt, write the total of a.json"); or the literal right
    after one of ``_OBJECT_VERBS``
    (``create``, ``delete``, ``rename``, …; optionally ``a new file|directory|folder named|called``),
    an effect on it rather than an output. It is produced when it occurs in an argument of
    a step whose tool is not ``read_only`` (an agent step, or a tool without a spec, counts as
    possibly side-effecting: unknown effect is not held against the plan).
``dead_step``
    A step whose tool is ``read_only`` and whose output no step uses (no reference to it, and no
    agent step depends on it). Its last step answers a read-only plan, so a read-only *sink*
    (nothing depends on it) is dead only when the plan is meant to change something: it has a
    side-effecting step or the goal asks for an output.
``invented_argument``
    A literal argument value (not a reference) that is neither in the goal nor a default, enum
    or const of the tool's input schema at that place: a number not among the goal's numbers,
    a string one of whose words (split on anything not a letter or digit; compared in lower case
    and singular) is not a word of the goal. Booleans and ``null`` are never invented.

``missing_action``
    The goal asks for an action no step does: a clause opens with a verb that asks for one (not
    a question word, auxiliary or generic verb such as ``show``/``read``/``list``; see
    ``plan.verbs``), its object is no goal literal ("check *the spelling* in notes.txt", "open
    *a ticket* for …"), and no tool the plan uses is named (name, description, parameter names)
    for the verb, a synonym of it, or a word of its object. Tools are often named for their
    result rather than the goal's verb ("sum the hours" → ``total_hours``), hence the object.
    Not judged when a step is an agent step or its tool has no spec.
    Also what a count or a set of items is of (``plan.counted``): a term whose occurrences the
    goal counts ("how many times does alice appear") that no step argument holds; words that
    narrow a counted field or the items the goal asks for ("how many TODO lines", "write the
    TODO lines") that no step is given or named for, unless a step filters by a value of its
    own; and a count (an integer from a tool named or described for counting) handed to a
    side-effecting step when the goal asks for no number.

``covered`` is true when there are no findings at all. Rollback steps and compensations are not
part of the answer, so only main steps are compared with the goal.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from forethought.plan import references as refs
from forethought.plan.abbreviations import abbreviation_of
from forethought.plan.counted import counted_terms, described_items, narrowing_words, word_forms
from forethought.plan.dates import spelled_dates, spelled_times
from forethought.plan.day_parts import day_part_times
from forethought.plan.layout import split_layout
from forethought.plan.model import Plan, Step
from forethought.plan.named_outputs import named_objects
from forethought.plan.number_words import (
    NUMBER_WORDS,
    bound_words,
    counted_numbers,
    implied_numbers,
    spelled_numbers,
    unit_nouns,
)
from forethought.plan.tool_spec import ToolSpec
from forethought.plan.unit_quantities import converted_numbers
from forethought.plan.verbs import (
    ACROSS,
    ITEM_ORDINALS,
    PER_RESULT,
    QUANTITIES,
    REORDERINGS,
    SCALED,
    asked_items,
    asked_quantities,
    clause_actions,
    names_action,
    object_words,
    tool_tokens,
    words_of,
)

FindingKind = Literal["missing_literal", "missing_output", "dead_step", "invented_argument", "missing_action"]
LiteralKind = Literal["quoted", "url", "email", "path", "content", "number", "noun"]
FieldPath = tuple[str | int, ...]

_OUTPUT_VERBS = (
    "write|writes|save|saves|store|stores|put|puts|copy|copies|export|exports|append|appends|"
    "move|moves|dump|dumps|send|sends|upload|uploads|post|posts|output|outputs|email|emails"
)
_CONTENT_VERBS = "write|append|put|save|store"
_DETERMINERS = frozenset(
    [
        "the",
        "a",
        "an",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "them",
        "they",
        "their",
        "my",
        "our",
        "your",
        "his",
        "her",
        "all",
        "each",
        "every",
        "some",
        "any",
        "both",
        "what",
        "which",
        "result",
        "results",
        "output",
        "outputs",
        "contents",
        "content",
        "list",
    ]
)
_GENERIC_NOUNS = frozenset(
    [
        "file",
        "files",
        "line",
        "lines",
        "word",
        "words",
        "character",
        "characters",
        "char",
        "chars",
        "byte",
        "bytes",
        "time",
        "times",
        "item",
        "items",
        "entry",
        "entries",
        "step",
        "steps",
        "second",
        "seconds",
        "minute",
        "minutes",
        "hour",
        "hours",
        "day",
        "days",
        "percent",
        "row",
        "rows",
        "result",
        "results",
        "top",
        "first",
        "last",
        "more",
        "less",
        "of",
        "and",
        "or",
        "to",
        "in",
    ]
)
_NOT_FILES = frozenset({"e.g", "i.e", "etc", "vs", "a.m", "p.m"})

_QUOTED_RE = re.compile(r'"([^"\n]+)"|“([^”\n]+)”|`([^`\n]+)`|(?<![\w])\'([^\'\n]+)\'(?![\w])')
_URL_RE = re.compile(r"\bhttps?://[^\s<>\"']+[^\s<>\"'.,;:!?)]")
# Tried only where a run of address characters starts ("a.a.a.…" tried at every dot had been
# quadratic: 80 KB took minutes); a stray leading dot or dash is no part of the address.
_EMAIL_RE = re.compile(r"(?<![\w.+-])[.+-]*\b(?P<email>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)\b")
_PATH_RE = re.compile(
    r"(?<![\w@/.-])(?:"
    r"(?:\.{1,2}/|/|~/)?[\w-]+(?:\.[\w-]+)*(?:/[\w.-]+)+/?"  # a/b, ./x, src/
    r"|(?:\.{1,2}/|/|~/)[\w.-]+/?"  # ./src, /tmp
    r"|[\w-]+(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,7}"  # name.ext
    r")(?![\w/-])"
)
_DIR_RE = re.compile(
    r"\b(?:directory|folder|dir|(?:files?|entries|contents)\s+(?:in|under|inside|of))\s+"
    r"(?:named\s+|called\s+)?([\w.-]+)",
    re.IGNORECASE,
)
_NUMBER_RE = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w]|\.\d)")
# Words after a number that are no noun of it ("above 80 from a.txt", "under 20 in b.json").
_FUNCTION_WORDS = frozenset(
    (
        "from",
        "in",
        "into",
        "to",
        "of",
        "on",
        "at",
        "by",
        "for",
        "with",
        "as",
        "than",
        "then",
        "and",
        "or",
        "but",
        "per",
        "the",
        "a",
        "an",
        "it",
        "them",
        "is",
        "are",
        "was",
        "were",
        "be",
        # "How many days between … March 2026 *had* rain": an auxiliary, no noun of the number.
        "had",
        "has",
        "have",
        "did",
        "does",
        "do",
        # "between May 15 and May 25, 2026 that are still unpaid": a relative clause opens.
        "that",
        "which",
        "who",
        "whose",
    )
)
_NOUN_AFTER_NUMBER_RE = re.compile(r"\s+([A-Za-z][A-Za-z-]*)")
_CONTENT_RE = re.compile(rf"\b(?:{_CONTENT_VERBS})\s+(.{{1,80}}?)\s+(?:to|into|in)\s+\S", re.IGNORECASE)
# Content named by what it is rather than by a writing verb: "with the text buy milk",
# "with the message X", "saying X", "that says X" — up to the end of the clause.
# "replace the contents of a.txt with hello": what a file's text is replaced with.
_REPLACED_WITH_RE = re.compile(
    r"\breplace\s+.{1,80}?\s+with\s+(.{1,80}?)\s*(?=$|[,;]|\.(?:\s|$)|\s+(?:and|then)\b)", re.IGNORECASE
)
_NAMED_CONTENT_RE = re.compile(
    r"\b(?:(?:with|containing)\s+(?:the\s+)?(?:text|message|body|note|words?|line|content)|saying|"
    r"(?:that|which)\s+says)\s+(.{1,80}?)\s*(?=$|[,;]|\.(?:\s|$)|\s+(?:and|then)\b)",
    re.IGNORECASE,
)
# "the word hello", "the text all done", "the line ok": a noun that names literal text, then it.
_NAMED_TEXT_RE = re.compile(
    r"(?:the\s+)?(?:word|text|line|message|string|phrase|sentence)\s+(\S.*)$", re.IGNORECASE
)
# The rest of the verb's sentence, up to 300 characters: where its result goes stands there, and
# a goal of thousands of verbs in one sentence must not read the sentence once per verb.
_OUTPUT_RE = re.compile(rf"\b(?:{_OUTPUT_VERBS})\b(?=((?:[^.;\n]|\.(?=\S)){{0,300}}))", re.IGNORECASE)
_SENTENCE_END_RE = re.compile(r"[.;?!](?=\s)|\n")
_PREP_RE = re.compile(r"\b(?:to|into|as|in)\s+(?:(?:a|the|new|file|directory|folder|named|called)\s+)*", re.I)
_OBJECT_VERBS = "create|make|delete|remove|erase|truncate|overwrite|rename|replace"
# The verb's object, right after it: "create a new file named X", "delete the file X".
_OBJECT_RE = re.compile(
    rf"\b({_OBJECT_VERBS})s?\s+"
    r"(?:(?:a|an|the|new|empty|blank|text|file|document|directory|folder|dir|named|called|contents?|of)\s+)*",
    re.IGNORECASE,
)
# Or the kind of file it is, in a word of its own, right before the name: "create a note
# scrape_level.txt reading …", "make a report out.md" (never "a summary *of* a.txt").
_KIND_OBJECT_RE = re.compile(
    rf"\b({_OBJECT_VERBS})s?\s+(?:a|an|the)\s+(?:new\s+|empty\s+|blank\s+)?(?!of\b)[A-Za-z]+\s+",
    re.IGNORECASE,
)
# The subject of a modal sentence saying what a file's text is ("count.txt should say how many
# …", "b.txt must contain …"): that file is written.
_CONTENT_SUBJECT_RE = re.compile(
    r"(?:\A|[.?!;]\s+)(?:the\s+(?:file\s+)?)?([\w./-]+\.[A-Za-z]\w*)\s+(?:should|must|shall|needs?\s+to|is\s+to)"
    r"\s+(?:say|contain|hold|list|show|give|state|record)\b",
    re.IGNORECASE,
)
_WORD_RE = re.compile(r"[A-Za-z0-9]+")
# A hyphenated word, whole ("south-westerly"): an abbreviation may stand for it.
_COMPOUND_RE = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)+")


@dataclass(frozen=True, slots=True)
class GoalLiteral:
    """One literal of the goal: its text, what kind it is, and where it starts in the goal."""

    text: str
    kind: LiteralKind
    start: int


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the plan misses. ``str()`` is the one line a user sees."""

    kind: FindingKind
    message: str
    literal: str | None = None
    step_id: str | None = None
    field: FieldPath = ()

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "message": self.message}
        if self.literal is not None:
            out["literal"] = self.literal
        if self.step_id is not None:
            out["step_id"] = self.step_id
        if self.field:
            out["field"] = list(self.field)
        return out


@dataclass(frozen=True, slots=True)
class Coverage:
    """The result of ``check_coverage``: ``covered`` is true exactly when ``missing`` is empty."""

    covered: bool
    missing: tuple[Finding, ...]
    literals: tuple[GoalLiteral, ...] = ()
    outputs: tuple[str, ...] = ()

    def of_kind(self, kind: FindingKind) -> list[Finding]:
        return [f for f in self.missing if f.kind == kind]

    def to_dict(self) -> dict[str, Any]:
        return {"covered": self.covered, "missing": [f.to_dict() for f in self.missing]}


# ----------------------------------------------------------------------------- the goal


# Words opening an indirect question: "write *how many* there are to a.txt", "save *which*
# hives were seen …" describe a value to work out, never the text to write.
_QUESTION_OPENERS = frozenset(
    {"how", "what", "which", "who", "whom", "whose", "when", "where", "why", "whether"}
)


def _possessive(word: str) -> bool:
    """Whether ``word`` is a possessive ("today's", "VAN-01's", "users'")."""
    return word.endswith(("'s", "’s", "s'", "s’"))


def _where(path: FieldPath) -> str:
    """A leaf's place in a step, as a message says it ("args.items[0]")."""
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)[1:]


def goal_literals(goal: str) -> tuple[GoalLiteral, ...]:
    """The literals of ``goal`` by the rules in the module docstring, in order of appearance."""
    # The spans taken, disjoint and in order (starts and ends apart, for bisect): a goal of
    # thousands of file names was quadratic when each span was tested against every other.
    starts: list[int] = []
    ends: list[int] = []
    found: list[GoalLiteral] = []

    def free(start: int, end: int) -> bool:
        before = bisect.bisect_left(starts, end)  # the spans that start before this one ends
        return before == 0 or ends[before - 1] <= start

    def take(start: int, end: int) -> None:
        at = bisect.bisect_left(starts, start)
        starts.insert(at, start)
        ends.insert(at, end)

    def add(text: str, kind: LiteralKind, start: int, end: int) -> None:
        text = text.strip()
        if text and free(start, end):
            take(start, end)
            found.append(GoalLiteral(text, kind, start))

    for m in _QUOTED_RE.finditer(goal):
        group = next(i for i in range(1, 5) if m.group(i) is not None)
        add(m.group(group), "quoted", m.start(), m.end())
    for m in _URL_RE.finditer(goal):
        add(m.group(0), "url", m.start(), m.end())
    for m in _EMAIL_RE.finditer(goal):
        add(m.group("email"), "email", m.start("email"), m.end("email"))
    for m in _PATH_RE.finditer(goal):
        if m.group(0).lower() not in _NOT_FILES:
            add(m.group(0), "path", m.start(), m.end())
    for m in _DIR_RE.finditer(goal):
        if m.group(1).lower() not in _DETERMINERS | {"current", "here"}:
            add(m.group(1), "path", m.start(1), m.end(1))
    for m in (
        *_CONTENT_RE.finditer(goal),
        *_NAMED_CONTENT_RE.finditer(goal),
        *_REPLACED_WITH_RE.finditer(goal),
    ):
        obj = m.group(1)
        # "Write it, in kilograms, to a.txt": the determiner's comma does not make it content.
        first = obj.split()[0].lower().rstrip(".,;:!?")
        # "write today's date to d.txt", "write Bob's address …": a possessive describes a
        # value to find, not the text to write (written as it stood, the run said succeeded).
        possessive = _possessive(first)
        named = _NAMED_TEXT_RE.match(obj)
        if first in _QUESTION_OPENERS:
            continue  # an indirect question ("write how many there are to a.txt"): a value to find
        if named is not None and free(m.start(1), m.end(1)):
            # "write the word hello to w.txt": the text is what follows the noun naming it.
            add(named.group(1), "content", m.start(1) + named.start(1), m.end(1))
        elif first not in _DETERMINERS and not possessive and free(m.start(1), m.end(1)):
            add(obj, "content", m.start(1), m.end(1))
    for m in _NUMBER_RE.finditer(goal):
        if not free(m.start(), m.end()):
            continue
        add(m.group(0), "number", m.start(), m.end())
        noun = _NOUN_AFTER_NUMBER_RE.match(goal, m.end())
        if noun and noun.group(1).lower() not in _GENERIC_NOUNS | _FUNCTION_WORDS:
            add(noun.group(1), "noun", noun.start(1), noun.end(1))
    # "under forty litres": a bound spelled as a word is the goal's number as "under 40" is, so a
    # plan leaving it out is missing it too (written as its digits, which a step would pass).
    for start, digits in bound_words(goal):
        if free(start, start + 1):
            take(start, start + 1)
            found.append(GoalLiteral(digits, "number", start))
    return tuple(sorted(found, key=lambda lit: lit.start))


def goal_outputs(
    goal: str,
    literals: tuple[GoalLiteral, ...] | None = None,
    *,
    content_subjects: bool = True,
    named_files: bool = True,
) -> tuple[str, ...]:
    """The outputs ``goal`` asks for (see ``missing_output`` in the module docstring). Without
    ``content_subjects``, not the file a modal sentence says the text of ("count.txt should say
    …"): the planner's ``Refinements.content_subjects`` off; without ``named_files``, not a file
    a writing verb names as its object ("post a notice named a.txt saying …"):
    ``Refinements.named_outputs`` off."""
    effects = _goal_effects(goal, literals, content_subjects=content_subjects, named_files=named_files)
    return tuple(dict.fromkeys(target for _, target in effects))


def _goal_effects(
    goal: str,
    literals: tuple[GoalLiteral, ...] | None,
    *,
    content_subjects: bool = True,
    outbound_nouns: bool = False,
    named_files: bool = True,
) -> list[tuple[str, str]]:
    """(how the goal says it, target) per output or effect, e.g. ("write to", "files.txt").
    With ``outbound_nouns``, an outbound verb used as a noun ("the email addresses … to
    emails.txt") is no effect: the capability check asks for an outbound tool per effect, where
    the coverage check only needs the file it names."""
    lits = goal_literals(goal) if literals is None else literals
    targets = {lit.start: lit for lit in lits if lit.kind in ("quoted", "url", "email", "path")}
    out: list[tuple[int, str, str]] = []
    # Where each sentence ends, found once (a search per verb was quadratic in a long goal).
    ends = [e.end() for e in _SENTENCE_END_RE.finditer(goal)]
    for m in _OUTPUT_RE.finditer(goal):
        if outbound_nouns and _is_noun(goal, m):
            continue
        hits = [p for p in _PREP_RE.finditer(goal, m.start(1), m.end(1)) if p.end() in targets]
        # "to/into/as X" names the destination wherever it stands; "in X" only when no such
        # phrase follows ("write the titles of the meetings in a.json to b.txt" reads a.json).
        directed = [p for p in hits if p.group(0).split()[0].lower() != "in"]
        # Named first, opening the verb's sentence ("Into pages.txt, write the total of the
        # books in a.json"): that is the destination, and "in a.json" is what is read.
        ended = bisect.bisect_right(ends, m.start())
        opening = ends[ended - 1] if ended else 0
        opening += len(goal[opening : m.start()]) - len(goal[opening : m.start()].lstrip())
        first = _PREP_RE.match(goal, opening, m.start())  # a phrase opening the sentence
        opens = first is not None and first.end() in targets and first.group(0).split()[0].lower() != "in"
        before = [first] if opens and first is not None else []
        chosen = directed or before[-1:] or hits
        if chosen:
            prep = chosen[0]
            verb = m.group(0).lower()
            out.append((m.start(), f"{verb} {prep.group(0).split()[0].lower()}", targets[prep.end()].text))
    for m in _OBJECT_RE.finditer(goal):
        if m.end() in targets:
            out.append((m.start(), m.group(1).lower(), targets[m.end()].text))
    for m in _KIND_OBJECT_RE.finditer(goal):
        if (
            m.end() in targets
            and targets[m.end()].kind == "path"
            and not any(p == m.start() for p, _, _ in out)
        ):
            out.append((m.start(), m.group(1).lower(), targets[m.end()].text))
    for m in _CONTENT_SUBJECT_RE.finditer(goal) if content_subjects else ():
        if m.start(1) in targets:
            out.append((m.start(1), "write", targets[m.start(1)].text))
    # "Post a notice named a.txt saying …", "write a memo b.txt: "…"": the verb's object is a
    # text and the file its name, with no preposition before it (``named_outputs``).
    paths = {lit.start: (lit.text, lit.start + len(lit.text)) for lit in lits if lit.kind == "path"}
    verbs_at = {p for p, _, _ in out}
    for start, verb, name in named_objects(goal, paths) if named_files else ():
        if start not in verbs_at:
            out.append((start, f"{verb} named", name))
    return [(how, target) for _, how, target in sorted(out)]


# Outbound verbs that are as often nouns: "the email addresses", "their posts", "an upload".
_NOUN_TOO = frozenset({"email", "emails", "post", "posts", "upload", "uploads", "send", "sends"})
_BEFORE_WORD_RE = re.compile(r"([A-Za-z]+)\W*\Z")
# A question's auxiliary and subject before the verb: "how many bytes *did the server* send".
_ASKED_RE = re.compile(
    r"\b(?:did|does|do|will|would|can|could|should|has|have|had)\s+(?:(?:the|a|an|this|that|our|its|their)\s+)?"
    r"[\w-]+\s+\Z",
    re.IGNORECASE,
)


def _is_noun(goal: str, m: re.Match[str]) -> bool:
    """Whether an outbound verb's match asks for no effect: one of ``_NOUN_TOO`` after a
    determiner ("write the email addresses … to emails.txt"), or a verb a question asks about
    ("how many bytes did the server send … according to access.log?")."""
    if m.group(0).lower() not in _NOUN_TOO:
        return False
    # Only the few words before the verb are read: a search from the goal's start per verb was
    # quadratic in a long goal.
    window = max(0, m.start() - 80)
    if _ASKED_RE.search(goal, window, m.start()):
        return True
    before = _BEFORE_WORD_RE.search(goal, window, m.start())
    return before is not None and before.group(1).lower() in _DETERMINERS | _QUANTIFIERS


_QUANTIFIERS = frozenset({"many", "few", "several", "more", "most", "some", "any", "no", "fewer"})


# ----------------------------------------------------------------------------- the plan


def _leaves(value: Any, path: FieldPath, out: list[tuple[FieldPath, Any]]) -> list[tuple[FieldPath, Any]]:
    # Plan arguments are JSON data: dicts, lists and scalars (plain type checks; this runs per value).
    if type(value) is dict:
        for k, v in value.items():
            _leaves(v, (*path, str(k)), out)
    elif type(value) is list or type(value) is tuple:
        for i, v in enumerate(value):
            _leaves(v, (*path, i), out)
    else:
        out.append((path, value))
    return out


def _step_texts(step: Step, leaves: list[tuple[FieldPath, Any]]) -> list[Any]:
    values = [v for _, v in leaves]
    if step.agent is not None:
        values.append(step.agent)
    return values


def _norm(text: str) -> str:
    text = text.strip().lower()
    if text.startswith("./"):
        text = text[2:]
    return text.rstrip("/") or text


def _singular(word: str) -> str:
    if len(word) > 3 and word.endswith("es") and word[-3] in "sxz":
        return word[:-2]
    if len(word) > 2 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _singulars(word: str) -> set[str]:
    """What ``word`` may be the plural of: "entries" of "entry" (``_singular`` says "entrie",
    right for "movies")."""
    return {_singular(word), word[:-3] + "y"} if len(word) > 4 and word.endswith("ies") else {_singular(word)}


def _plural_re(noun: str) -> str:
    """A regex for ``noun`` in the singular or the plural ("entry" or "entries")."""
    one = _singular(noun.lower())
    if one.endswith("y"):
        return rf"{re.escape(one[:-1])}(?:y|ies)\b"
    return rf"{re.escape(one)}(?:s|es)?\b"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _lowered(values: list[Any]) -> list[str]:
    return [v.lower() for v in values if isinstance(v, str)]


def _uses(values: list[Any], strings: list[str], keys: set[str], lit: GoalLiteral) -> bool:
    if lit.kind == "number":
        num = float(lit.text)
        if any(_is_number(v) and float(v) == num for v in values):
            return True
        pattern = re.compile(r"(?<![\d.])" + re.escape(lit.text) + r"(?![\d]|\.\d)")
        return any(pattern.search(s) for s in strings)
    if lit.kind == "noun":
        stem = _singular(lit.text.lower())
        return any(stem in s for s in strings) or any(stem in k.lower() for k in keys)
    needle = _norm(lit.text)
    return any(needle in s for s in strings)


def _unit_of_tool(
    lit: GoalLiteral, number: GoalLiteral | None, steps: Sequence[Step], tools: Mapping[str, ToolSpec] | None
) -> bool:
    """A noun after a number ("1 decimal") is used by a step that takes the number and whose
    tool says what the number counts ("… to the given number of decimal places")."""
    if lit.kind != "noun" or number is None or number.kind != "number" or tools is None:
        return False
    stem = _singular(lit.text.lower())
    num = float(number.text)
    for step in steps:
        spec = tools.get(step.tool or "")
        if spec is None or not any(_is_number(v) and float(v) == num for v in step.args.values()):
            continue
        if stem in (spec.description + " " + json.dumps(spec.input_schema)).lower():
            return True
    return False


# A list of words in a tool's text: two or more joined by commas, slashes, bars or "or"
# ("mm, cm, m, km", "asc or desc", "csv/json").
_WORD_LIST_RE = re.compile(r"[a-z][\w-]*(?:(?:\s*[,/|]\s*|,?\s+or\s+)[a-z][\w-]*)+")
_NEGATIONS = frozenset(("not", "no", "except", "excluding", "without", "nor"))


def _option_lists(spec: ToolSpec) -> list[frozenset[str]]:
    """The word lists a tool's description and parameter descriptions give, and its enums."""
    texts = [spec.description.lower()]
    lists: list[frozenset[str]] = []
    for prop in (spec.input_schema.get("properties") or {}).values():
        if isinstance(prop, Mapping):
            texts.append(str(prop.get("description", "")).lower())
            if isinstance(prop.get("enum"), list):
                lists.append(frozenset(str(v).lower() for v in prop["enum"]))
    for text in texts:
        for m in _WORD_LIST_RE.finditer(text):
            lists.append(frozenset(w for w in re.split(r"[\s,/|]+", m.group(0)) if w and w != "or"))
    return lists


def listed_words(spec: ToolSpec) -> set[str]:
    """Every word of the option lists a tool gives (``_option_lists``), lower case."""
    return set().union(*_option_lists(spec))


def _unchosen_options(
    steps: Sequence[Step], goal: str, tools: Mapping[str, ToolSpec] | None
) -> list[Finding]:
    """Goal words a step's tool lists as options ("mm, cm, m, km") that the step does not pass.

    Each argument takes one option, so a step whose k arguments take options from one list
    passes min(k, the goal's options from that list) of the goal's options, all different:
    "convert 5 km to m" with both units bound to "m" leaves "km" out. An option word right
    after a negation ("not closed") is no value the goal asks for; function words ("in", "or")
    are no options the goal names."""
    if tools is None:
        return []
    tokens = [t.lower() for t in _WORD_RE.findall(goal)]
    said = {
        t
        for i, t in enumerate(tokens)
        if t not in _FUNCTION_WORDS and not (i and tokens[i - 1] in _NEGATIONS)
    }
    findings: list[Finding] = []
    for step in steps:
        spec = tools.get(step.tool or "")
        if spec is None:
            continue
        passed = [v.lower() for v in step.args.values() if isinstance(v, str)]
        for options in _option_lists(spec):
            taking = [v for v in passed if v in options]
            wanted = said & options
            chosen = wanted & set(taking)
            if taking and len(chosen) < min(len(taking), len(wanted)):
                for word in sorted(wanted - chosen):
                    findings.append(
                        Finding(
                            "missing_literal",
                            f'goal word "{word}" is one of the options {step.tool} lists, but step '
                            f"{step.id!r} passes {', '.join(repr(v) for v in taking)}",
                            literal=word,
                            step_id=step.id,
                        )
                    )
    return findings


# A negation up to two words before ("do not append", "not yet paid", "haven't been paid").
_NEGATED_RE = re.compile(r"(?:\b(?:not|no|never|without|dont)|n't)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)


def flag_named(pname: str, goal: str) -> bool:
    """Whether ``goal`` says a boolean parameter's name as a word ("*append* 'done' to a.txt"
    for ``append``, "list hidden files" for ``hidden``; every word of a compound name), not right
    after a negation ("do not append")."""
    parts = [p for p in re.split(r"_+|(?<=[a-z])(?=[A-Z])", pname) if p]
    if not parts:
        return False
    for part in parts:
        found = [
            m
            # The word or an inflection of it ("appended", "recursively"), not a longer word
            # that starts the same ("appendix").
            for m in re.finditer(rf"\b{re.escape(part.lower())}(?:s|es|d|ed|ing|ly)?\b", goal.lower())
            if not _NEGATED_RE.search(goal[: m.start()])
        ]
        if not found:
            return False
    return True


def _specced(steps: Sequence[Step], tools: Mapping[str, ToolSpec]) -> Iterator[tuple[Step, ToolSpec]]:
    """Each step whose tool has a spec, with it (agent steps and unknown tools are not judged)."""
    for step in steps:
        spec = tools.get(step.tool or "")
        if spec is not None:
            yield step, spec


def _unset_flags(steps: Sequence[Step], goal: str, tools: Mapping[str, ToolSpec] | None) -> list[Finding]:
    """``missing_action`` findings: the goal says an optional boolean parameter's name ("append
    'done' to notes.txt") and the step calling its tool leaves it false (``write_file`` with
    ``append`` false replaced the file's content and reported success). A required one is a
    value the plan chose, true or false ("the bookings not yet paid": ``paid`` false)."""
    if tools is None:
        return []
    findings: list[Finding] = []
    for step, spec in _specced(steps, tools):
        required = set(spec.input_schema.get("required") or ())
        for pname, prop in (spec.input_schema.get("properties") or {}).items():
            if pname in required:
                continue  # a filter's true/false ("paid"): either is a value the goal may ask for
            if not isinstance(prop, Mapping) or prop.get("type") != "boolean" or not flag_named(pname, goal):
                continue
            if step.args.get(pname, prop.get("default", False)) is not False:
                continue  # true, or a reference the run decides
            findings.append(
                Finding(
                    "missing_action",
                    f"the goal says {pname!r}, but step {step.id!r} leaves {step.tool}'s {pname!r} false",
                    literal=pname,
                    step_id=step.id,
                )
            )
    return findings


_COUNT_ASKED_RE = re.compile(r"\b(?:how many|number of|count|counts|counting|tally)\b", re.IGNORECASE)


def _fed_from(
    steps: Sequence[Step], tools: Mapping[str, ToolSpec]
) -> Iterator[tuple[Step, refs.Reference, ToolSpec]]:
    """(side-effecting step, a reference in its arguments, the referenced step's tool spec) for
    every reference a side-effecting step takes from a step whose tool is known."""
    by_id = {s.id: s for s in steps}
    for step in steps:
        if _effect(step, tools) == "read_only":
            continue
        for r in refs.find_references(step.args):
            source = by_id.get(r.step_id)
            spec = tools.get(source.tool or "") if source is not None else None
            if spec is not None:
                yield step, r, spec


def _counts_for_items(
    steps: Sequence[Step], goal: str, tools: Mapping[str, ToolSpec] | None
) -> list[Finding]:
    """``missing_action`` findings: the goal asks for an item by its place ("the first line of
    notes.txt") and asks no count, but a side-effecting step is given a count of those items (an
    integer field named for them, ``${s2.lines}`` of ``text_stats``): "1" was written to
    first.txt, and the run reported success."""
    if tools is None:
        return []
    # "the first line", "its last word", "the longest sentence": one item picked by its place;
    # unless the goal counts those items too ("how many lines", "count the lines").
    items = {
        _singular(noun): f"{ordinal} {noun}"
        for ordinal, noun in asked_items(goal)
        if not re.search(
            rf"{_COUNT_ASKED_RE.pattern}\s+(?:the\s+|of\s+(?:the\s+)?)?{_plural_re(noun)}", goal, re.I
        )
    }
    if not items:
        return []
    findings: list[Finding] = []
    for step, r, spec in _fed_from(steps, tools):
        if not r.path or not isinstance(r.path[-1], str):
            continue
        field = r.path[-1]
        asked = next((items[f] for f in _singulars(field.lower()) if f in items), None)
        schema = _schema_at(spec.output_schema, tuple(r.path))
        if asked is None or schema is None or schema.get("type") != "integer":
            continue
        findings.append(
            Finding(
                "missing_action",
                f'the goal asks for "{asked}", but step {step.id!r} is given '
                f"{r.step_id}.{field}, a count of {field}",
                literal=asked,
                step_id=step.id,
            )
        )
    return findings


# Determiners that make what a writing verb takes a description of a value to find ("write
# *the* total", "*its* size", "*today's* date"); "a"/"an" ask for something made, "it"/"this"
# for an earlier result. Nouns that name literal text ("the word hello", "the number 42") say
# the words after them are the text.
_DEFINITE = frozenset({"the", "its", "their", "his", "her", "my", "our", "your"})
EMPTY_FILE_RE = re.compile(r"\b(?:empty|blank)\s+(?:text\s+)?(?:file|document|note)s?\b", re.IGNORECASE)
_TEXT_NOUNS = frozenset(
    {"word", "words", "text", "line", "lines", "message", "string", "phrase", "sentence", "note", "number"}
)


def _described_contents(
    steps: Sequence[Step], goal: str, literals: tuple[GoalLiteral, ...], tools: Mapping[str, ToolSpec] | None
) -> list[Finding]:
    """``invented_argument`` findings: the goal describes what to write ("write today's date to
    date.txt") and a side-effecting step writes the description's own words as the text
    ("date"), taken from no step. The words were the goal's, so no other rule saw it, and the
    run said succeeded."""
    described: list[tuple[str, set[str]]] = []
    for m in _CONTENT_RE.finditer(goal):
        words = m.group(1).split()
        first = words[0].lower().rstrip(".,;:!?")
        possessive = _possessive(first)
        if not (first in _DEFINITE or possessive or first in _QUESTION_OPENERS):
            continue
        if len(words) > 1 and words[1].lower() in _TEXT_NOUNS:
            continue
        described.append((m.group(1), {_singular(w.lower()) for w in _WORD_RE.findall(m.group(1))}))
    # "make an empty file called e.txt": the file's text is "", not the word that says so.
    described += [(m.group(0), {"empty", "blank"}) for m in EMPTY_FILE_RE.finditer(goal)]
    if not described:
        return []
    given = {lit.text for lit in literals}  # a file the goal names is no made-up text
    findings: list[Finding] = []
    for step in steps:
        if _effect(step, tools) == "read_only":
            continue
        for path, value in _leaves(step.args, ("args",), []):
            if not isinstance(value, str) or value in given or refs.find_references(value):
                continue
            words = {_singular(w.lower()) for w in _WORD_RE.findall(value)}
            for phrase, said in described:
                if words and words <= said:
                    where = _where(path)
                    findings.append(
                        Finding(
                            "invented_argument",
                            f'step {step.id!r} {where} = {value!r} is the goal\'s words for "{phrase}", '
                            "not its value: no step produces it",
                            step_id=step.id,
                            field=path,
                        )
                    )
                    break
    return findings


# Words a tool that counts is named by, and words a goal asks for a number with.
_COUNTING_TOOL_WORDS = frozenset({"count", "counts", "tally", "tallies"})
_NUMBER_ASKED_RE = re.compile(
    r"\b(?:how\s+(?:many|much|long|big|often)|number|numbers|count|counts|counted|counting|tally|"
    r"total|totals|sum|amount|size|length|average|mean|together|combined|altogether)\b",
    re.IGNORECASE,
)


def asks_number(goal: str) -> bool:
    """Whether the goal asks for a number at all ("how many", "the total", "average", …)."""
    return bool(_NUMBER_ASKED_RE.search(goal))


def counts_items(spec: ToolSpec) -> bool:
    """Whether the tool is named for counting ("count_tracks", "tally")."""
    return bool(words_of(spec.name) & _COUNTING_TOOL_WORDS)


def _counts(spec: ToolSpec, path: FieldPath) -> bool:
    """Whether ``path`` of ``spec``'s output is a count: any of it for a tool named for counting
    ("count_tracks"), an integer for one whose description opens with counting ("Count the
    lines, words and characters of a text": its ``lines``)."""
    if counts_items(spec):
        return True
    opening = spec.description.lstrip().lower()
    if not opening.startswith(("count ", "counts ", "how many ", "the number of ")):
        return False
    schema = _schema_at(spec.output_schema, path)
    return schema is not None and schema.get("type") == "integer"


def _unasked_counts(steps: Sequence[Step], goal: str, tools: Mapping[str, ToolSpec] | None) -> list[Finding]:
    """``missing_action`` findings: a side-effecting step is given what a counting tool
    returned ("count_tracks") while the goal asks for no number at all: "list the songs by X in
    x.txt" wrote "4" and said succeeded; "write the TODO lines of notes.txt to todo.txt" wrote
    text_stats' line count, 5."""
    if tools is None or asks_number(goal):
        return []
    findings: list[Finding] = []
    for step, r, spec in _fed_from(steps, tools):
        if spec.effect != "read_only" or not _counts(spec, tuple(r.path)):
            continue
        if any(f.step_id == step.id for f in findings):
            continue  # said once per step
        findings.append(
            Finding(
                "missing_action",
                f"step {step.id!r} is given what {r.step_id} ({spec.name}) counted, "
                "but the goal asks for no number",
                literal="count",
                step_id=step.id,
            )
        )
    return findings


_PLACES = ("path", "url", "email")


def _unnarrowed(
    steps: Sequence[Step], goal: str, literals: tuple[GoalLiteral, ...], tools: Mapping[str, ToolSpec] | None
) -> list[Finding]:
    """``missing_action`` findings: the goal names what to count or which items it means, and
    no step is given it. "How many times does alice appear in names.txt?" planned as text_stats
    wrote the file's word count (4) and said succeeded; "how many TODO lines are in notes.txt?"
    its line count; "write the TODO lines of notes.txt to todo.txt" the whole file. A term is
    given when a step's argument holds it; a narrowing word ("TODO") also when a tool the plan
    uses, a parameter or a field it takes, or the description of a tool working on another
    step's output is named for it ("count_todo_lines", "the lines that mention a term")."""
    # A file's name is no selection: "todo.txt" does not pick the TODO lines.
    places = {_norm(lit.text) for lit in literals if lit.kind in _PLACES}
    strings = [
        v.lower()
        for s in steps
        for v in _step_texts(s, _leaves(s.args, ("args",), []))
        if isinstance(v, str) and _norm(v) not in places
    ]
    quoted = {lit.text.lower() for lit in literals}  # an unused literal is said once, elsewhere
    findings = [
        Finding("missing_action", f'the goal counts "{term}", but no step is given it', literal=term)
        for term in counted_terms(goal)
        if term.lower() not in quoted and not any(term.lower() in s for s in strings)
    ]
    if tools is None or any(s.tool is None or s.tool not in tools for s in steps):
        return findings  # an agent step or a tool without a spec may do anything
    named: set[str] = set()
    for s in steps:
        named |= words_of(s.tool) | {_singular(str(k).lower()) for k in s.args}
        named |= {_singular(str(p).lower()) for r in refs.find_references(s.args) for p in r.path}
        if s.referenced_steps() and tools[s.tool or ""].effect == "read_only":
            named |= _with_stems(words_of(tools[s.tool or ""].description))

    # An unused literal is said elsewhere, once.
    given = set().union(*(words_of(lit.text) for lit in literals if lit.kind not in _PLACES))
    # A read-only step that takes another step's output and a value of its own narrows it by
    # something ("the wet days" by ``rain_at_least(5)``, "the long trips" by ``longer_than(300)``):
    # an adjective a value stands for cannot be told from its words, so the plan is not judged.
    filters = any(
        s.referenced_steps()
        and tools[s.tool or ""].effect == "read_only"
        and any(not refs.find_references(v) for _, v in _leaves(s.args, ("args",), []))
        for s in steps
    )

    def unsaid(words: list[str]) -> list[str]:
        out = []
        for w in words if not filters else ():
            forms = word_forms(w)
            stems = set().union(*(_with_stems({f}) | {_singular(f)} for f in forms))
            # A letter is said only as a value of its own ("a"), not inside any text.
            inside = any(f in s for f in forms for s in strings) if len(w) > 1 else w in strings
            # "capital" is said by a ``capitalized`` tool: a word five letters or more that starts
            # a word the plan is named by.
            begins = len(w) >= 5 and any(n.startswith(w) for n in named)
            if not (w in given or stems & named or inside or begins):
                out.append(w)
        return out

    for step, r, spec in _fed_from(steps, tools):
        schema = _schema_at(spec.output_schema, tuple(r.path))
        if not r.path or not isinstance(r.path[-1], str) or schema is None or schema.get("type") != "integer":
            continue
        field = r.path[-1]
        missing = unsaid(narrowing_words(goal, field))
        if missing:
            findings.append(
                Finding(
                    "missing_action",
                    f"the goal counts {' '.join(missing)} {field}, but step {step.id!r} is given "
                    f"{r.step_id}.{field}, a count of all {field}",
                    literal=missing[0],
                    step_id=step.id,
                )
            )
    if findings or not any(_effect(s, tools) != "read_only" for s in steps):
        return findings
    for phrase, words in described_items(goal):
        missing = unsaid(words)
        if missing:
            findings.append(
                Finding(
                    "missing_action",
                    f'the goal asks for the {phrase}, but no step picks them by "{" ".join(missing)}"',
                    literal=missing[0],
                )
            )
    return findings


def _whole_records(steps: Sequence[Step], goal: str, tools: Mapping[str, ToolSpec] | None) -> list[Finding]:
    """``missing_action`` findings: the goal names some of the numbers of a record of numbers
    (a tally: every field a number) and a side-effecting step is given the whole record. "Write
    the word count of a.txt and of b.txt to counts.txt" wrote text_stats' records ({"lines": 3,
    "words": 3, …}) and said succeeded. A record of mixed fields (an item a step picked, "the
    best match") written whole still holds the item asked for, and is not judged."""
    if tools is None:
        return []
    # "…, one per line" lays the result out: no ``lines`` field is named by it.
    goal_words = {_singular(w) for w in words_of(split_layout(goal)[0])}
    findings: list[Finding] = []
    for step, r, spec in _fed_from(steps, tools):
        schema = _schema_at(spec.output_schema, tuple(r.path))
        props = schema.get("properties") if schema is not None and schema.get("type") == "object" else None
        if not isinstance(props, Mapping) or len(props) < 2:
            continue
        if not all(isinstance(v, Mapping) and v.get("type") in ("integer", "number") for v in props.values()):
            continue
        named = [
            str(p)
            for p in props
            if (words := {_singular(w) for w in words_of(str(p))}) and words <= goal_words
        ]
        if named and len(named) < len(props):
            where = "".join(f".{p}" for p in r.path)
            findings.append(
                Finding(
                    "missing_action",
                    f"the goal asks for {', '.join(named)}, but step {step.id!r} is given all of "
                    f"{r.step_id}{where} ({', '.join(map(str, props))})",
                    literal=named[0],
                    step_id=step.id,
                )
            )
    return findings


_DESTINATION_RE = re.compile(r"\b(?:to|into)\s+$", re.IGNORECASE)
# A file named where a clause opens, before what goes into it: "Into pages.txt, write …", "and
# in r.txt the verse count".
_FRONTED_RE = re.compile(
    r"(?:^|[,;.:]\s*|\b(?:and|then)\s+)(?:to|into|in)\s+[\w./-]+\.[A-Za-z]\w{0,7}\b", re.IGNORECASE
)


_FIELD_FILLERS = frozenset({"count", "total", "number", "value", "amount", "name", "of", "the", "per"})


def _forms_of(words: set[str]) -> set[str]:
    """``words`` with the singulars a field or a goal may say them by ("verses": "verse")."""
    return words | {_singular(w) for w in words} | {w[:-1] for w in words if len(w) > 3 and w.endswith("s")}


def _fields_per_output(
    steps: Sequence[Step], goal: str, literals: tuple[GoalLiteral, ...], tools: Mapping[str, ToolSpec] | None
) -> list[Finding]:
    """``missing_action`` findings: the words before a file the goal writes name a field of a
    record ("write the *word* count of notes.txt to wc.txt and the *line* count to lc.txt") and
    the step writing that file is given another field of the same record. Both files had been
    given ``${s2.lines}`` and the run said succeeded. The words looked at run from the previous
    file the goal writes (or its start) to this one; a file named before what goes into it
    ("into x.txt, write …") has none, and is not judged."""
    if tools is None or _FRONTED_RE.search(goal):
        return []  # "into v.txt post …": what goes into a file is said after it
    # A file after "to"/"into" is written too when its verb is left out ("… and the line count
    # to lc.txt"), which ``goal_outputs`` does not read.
    written = set(goal_outputs(goal, literals))
    outputs = sorted(
        (
            lit
            for lit in literals
            if lit.kind == "path"
            and (lit.text in written or _DESTINATION_RE.search(goal[max(0, lit.start - 12) : lit.start]))
        ),
        key=lambda x: x.start,
    )
    if not outputs:
        return []
    findings: list[Finding] = []
    previous_end = 0
    by_id = {s.id: s for s in steps}
    for lit in outputs:
        said = _forms_of(words_of(goal[previous_end : lit.start]))
        previous_end = lit.start + len(lit.text)
        for step in steps:
            if _effect(step, tools) == "read_only" or not any(
                v == lit.text for _, v in _leaves(step.args, (), [])
            ):
                continue
            for r in refs.find_references(step.args):
                source = by_id.get(r.step_id)
                spec = tools.get(source.tool or "") if source is not None else None
                if spec is None or not r.path or not isinstance(r.path[-1], str):
                    continue
                record = _schema_at(spec.output_schema, tuple(r.path[:-1]))
                props = record.get("properties") if record is not None else None
                if not isinstance(props, Mapping) or len(props) < 2:
                    continue
                # A field is named by any of its words the goal says ("the weight of …" names
                # ``weight_kg``), words every field may hold aside.
                named = [str(p) for p in props if _forms_of(words_of(str(p)) - _FIELD_FILLERS) & said]
                if named and r.path[-1] not in named:
                    findings.append(
                        Finding(
                            "missing_action",
                            f"the goal asks for {', '.join(named)} in {lit.text}, but step {step.id!r} "
                            f"is given {r.step_id}.{r.path[-1]}",
                            literal=lit.text,
                            step_id=step.id,
                        )
                    )
    return findings


# A goal comparing with a value it computes: "more rain than the average", "as late as the first
# one", "above the median", "longer than Ann's".
_COMPARED_RE = re.compile(
    r"\b(?:than|as|same|like|above|below|over|under|exceed\w*|beyond|at\s+least|at\s+most)\b"
    r"(?:\s+[\w'-]+){0,3}?\s+(?:average|mean|median|total|sum|typical|first|last|previous|other|\w+est|\w+'s)\b",
    re.IGNORECASE,
)
_WHOLE_REF_RE = re.compile(r"\$\{[^{}]+\}")


def _derived_bounds(steps: Sequence[Step], goal: str, tools: Mapping[str, ToolSpec] | None) -> list[Finding]:
    """``invented_argument`` findings: a step keeping some of a list by a number (a threshold
    beside the list it takes) is given a number another step computed, while the goal compares
    with no computed value. "How much rain fell in total?" was planned as total_rainfall, then
    ``rain_at_least(readings, millimetres=${s2})``: the total became a bound nobody asked for,
    and the plan was called covered."""
    if tools is None or _COMPARED_RE.search(goal):
        return []
    findings: list[Finding] = []
    for step, spec in _specced(steps, tools):
        if spec.effect != "read_only":
            continue
        props = spec.input_schema.get("properties") or {}
        kinds = {
            name: (_schema_at(spec.input_schema, (name,)) or {}).get("type")
            for name, value in step.args.items()
            if isinstance(value, str) and _WHOLE_REF_RE.fullmatch(value) and name in props
        }
        if "array" not in kinds.values():
            continue  # no list kept by it: a number handed on as data ("round the average")
        for name, kind in kinds.items():
            if kind in ("integer", "number"):
                findings.append(
                    Finding(
                        "invented_argument",
                        f"step {step.id!r} args.{name} = {step.args[name]!r} takes a computed number as "
                        "a bound, but the goal compares with no computed value",
                        step_id=step.id,
                        field=("args", name),
                    )
                )
    return findings


_PLACE_WORDS = frozenset(
    {"path", "file", "filename", "dir", "directory", "folder", "location", "source", "root", "where"}
)


def _folders_as_text(steps: Sequence[Step], goal: str, tools: Mapping[str, ToolSpec] | None) -> list[Finding]:
    """``invented_argument`` findings: a folder the goal names as one ("the files in docs",
    "the folder reports") is the whole value of a parameter no word of which says it takes a
    place. "count the lines of every file in docs" was planned as ``text_stats(text="docs")``:
    the lines of the word "docs" were counted, and the run said succeeded. (A name with a slash
    is no folder by that alone: "the studio/north kiln" names a kiln.)"""
    # "the entries of a.log" names a file, not a folder.
    folders = {m.group(1) for m in _DIR_RE.finditer(goal) if "." not in m.group(1)}
    if tools is None or not folders:
        return []
    findings: list[Finding] = []
    for step, spec in _specced(steps, tools):
        props = spec.input_schema.get("properties") or {}
        for name, value in step.args.items():
            if value not in folders or not isinstance(props.get(name), Mapping):
                continue
            said = words_of(name) | words_of(str(props[name].get("description", "")))
            if not said & _PLACE_WORDS:
                findings.append(
                    Finding(
                        "invented_argument",
                        f"step {step.id!r} args.{name} = {value!r} is a folder the goal names, not a "
                        f"{name} of it",
                        step_id=step.id,
                        field=("args", name),
                    )
                )
    return findings


# "the names in people.json", "the prices of data.csv": a part of a structured file.
_PART_OF_STRUCTURED_RE = re.compile(
    r"\bthe\s+([a-z][a-z-]*[a-z]s)\s+(?:in|of|from)\s+(?:the\s+file\s+)?"
    r"([\w./-]+\.(?:json|jsonl|ndjson|csv|tsv|ya?ml|xml|toml))\b",
    re.IGNORECASE,
)
# Nouns a file's whole text is: "the lines of data.csv", "the contents of a.json".
_WHOLE_NOUNS = frozenset(
    {"contents", "lines", "rows", "records", "entries", "items", "bytes", "characters", "texts", "data"}
)
# Fields of a reader's output that are the file's text as it was read.
_RAW_FIELDS = frozenset({"content", "contents", "text", "body", "raw", "data"})


def _structured_copies(
    steps: Sequence[Step], goal: str, tools: Mapping[str, ToolSpec] | None
) -> list[Finding]:
    """``missing_action`` findings: the goal asks for a part of a structured file ("list the
    names in people.json in names.txt") and a side-effecting step is handed the file's text as
    a reading step read it. On the built-ins that plan copied the whole JSON into names.txt
    and said succeeded. A reader that parses (a list of records, a field) has done the work."""
    parts = [(m.group(1), m.group(2)) for m in _PART_OF_STRUCTURED_RE.finditer(goal)]
    parts = [(noun, file) for noun, file in parts if noun.lower() not in _WHOLE_NOUNS]
    if tools is None or not parts:
        return []
    by_id = {s.id: s for s in steps}
    findings: list[Finding] = []
    for step in steps:
        if _effect(step, tools) in (None, "read_only"):
            continue
        for ref in refs.find_references(step.args):
            source = by_id.get(ref.step_id)
            if source is None or _effect(source, tools) != "read_only":
                continue
            raw = (len(ref.path) == 1 and str(ref.path[0]).lower() in _RAW_FIELDS) or (
                not ref.path and _returns_text(tools.get(source.tool or ""))
            )
            read = {str(v) for v in source.args.values()}
            for noun, file in parts:
                if raw and file in read:
                    findings.append(
                        Finding(
                            "missing_action",
                            f'the goal asks for "the {noun}" of {file}, but step {step.id!r} is handed '
                            f"the file's text as step {source.id!r} read it",
                            literal=noun,
                            step_id=step.id,
                        )
                    )
    return findings


def _returns_text(spec: ToolSpec | None) -> bool:
    """Whether a tool's whole output is declared a string (a file's text, for a reader)."""
    schema = spec.output_schema if spec is not None else None
    return isinstance(schema, Mapping) and schema.get("type") == "string"


def _effect(step: Step, tools: Mapping[str, ToolSpec] | None) -> str | None:
    """The step's effect, or None when unknown (agent steps, tools without a spec)."""
    if step.tool is None or tools is None or step.tool not in tools:
        return None
    return tools[step.tool].effect


def _schema_at(schema: Mapping[str, Any] | None, path: FieldPath) -> Mapping[str, Any] | None:
    for part in path:
        if not isinstance(schema, Mapping):
            return None
        if isinstance(part, int):
            schema = schema.get("items")
        else:
            props = schema.get("properties")
            schema = props.get(part) if isinstance(props, Mapping) else None
    return schema if isinstance(schema, Mapping) else None


def _allowed(schema: Mapping[str, Any] | None) -> list[Any]:
    if schema is None:
        return []
    out: list[Any] = []
    if "default" in schema:
        out.append(schema["default"])
    if "const" in schema:
        out.append(schema["const"])
    if isinstance(schema.get("enum"), list):
        out.extend(schema["enum"])
    for key in ("anyOf", "oneOf"):
        for sub in schema.get(key) or ():
            if isinstance(sub, Mapping):
                out.extend(_allowed(sub))
    return out


def _from_goal(word: str, goal_words: set[str]) -> bool:
    """Whether ``word`` of an argument comes from the goal: one of its words, or a short code in
    capitals that is the start of one ("EUR" for "euros"; initials are not read)."""
    lowered = _singular(word.lower())
    if lowered in goal_words:
        return True
    code = word.lower()
    if word != code and any(abbreviation_of(g, {code}) == code for g in goal_words):
        return True  # a listed option the goal says in full ("W" for "west", "Thu" for "Thursday")
    return (
        word.isupper() and 2 <= len(word) <= 4 and any(g.startswith(code) and g != code for g in goal_words)
    )


def _invented(value: Any, allowed: list[Any], goal_words: set[str], goal_numbers: set[float]) -> bool:
    if value is None or isinstance(value, bool) or value in allowed:
        return False
    if _is_number(value):
        return float(value) not in goal_numbers
    if isinstance(value, str):
        if "${" in value and refs.find_references(value):
            return False
        # A number the goal's words stand for ("15% of 240" → "15 / 100 * 240") is the goal's.
        return not all(
            _from_goal(w, goal_words) or (w.isdigit() and float(w) in goal_numbers)
            for w in _WORD_RE.findall(value)
        )
    return False


def _unspelled(value: Any, spelled: Sequence[tuple[int, int, str]]) -> Any:
    """``value`` without the ISO texts of the days the goal spells ("1 April 2026" →
    "2026-04-01") or of days in a month it spells ("April 2026" → "2026-04-30"): those are
    the goal's words, written as a date parameter takes them."""
    if not isinstance(value, str):
        return value
    for _, _, iso in spelled:
        value = re.sub(rf"{iso}-\d\d" if len(iso) == 7 else iso, " ", value)
    return value


def check_coverage(
    plan: Plan,
    goal: str | None = None,
    tools: Mapping[str, ToolSpec] | None = None,
    *,
    abbreviations: bool = False,
) -> Coverage:
    """Compare ``plan`` with ``goal`` (default: the plan's own goal). Pure; never raises.

    ``tools`` gives each tool's effect and input schema; without a spec a step's effect is
    unknown, so it is neither called dead nor held to produce nothing, and its arguments are
    compared with the goal only. With ``abbreviations``, a written field whose name shortens a
    goal word ("delay_min" for "how many minutes") is a field the goal names.
    """
    goal = plan.goal if goal is None else goal
    literals = goal_literals(goal)
    effects = _goal_effects(goal, literals)
    outputs = tuple(dict.fromkeys(target for _, target in effects))
    steps = plan.steps
    findings: list[Finding] = []

    leaves = {id(s): _leaves(s.args, ("args",), []) for s in steps}
    all_values = [v for s in steps for v in _step_texts(s, leaves[id(s)])]
    all_keys = {str(path[-1]) for s in steps for path, _ in leaves[id(s)] if len(path) > 1}
    all_keys |= {str(k) for s in steps for k in s.args}
    all_strings = _lowered(all_values)
    # A date the goal spells ("1 April 2026", "April 2026") is used as the ISO text of its day,
    # or of a day of its month: its words and numbers are no literals of their own then.
    # So is a time of day spelled with am/pm ("between 7 and 9 am") or in words ("half past
    # ten"), as its 24-hour "HH:MM".
    spelled = sorted(
        spelled_dates(goal, ordinals=True, shared_year=True, month_runs=True)
        + spelled_times(goal, worded=True)
    )
    spelled += day_part_times(goal)  # "before noon": 00:00 and 11:59 are the goal's words
    dated = [(a, b) for a, b, iso in spelled if any(iso in v for v in all_strings)]
    for i, lit in enumerate(literals):
        before = literals[i - 1] if i else None
        if any(a <= lit.start < b for a, b in dated):
            continue
        if not _uses(all_values, all_strings, all_keys, lit) and not _unit_of_tool(lit, before, steps, tools):
            findings.append(
                Finding("missing_literal", f'goal literal "{lit.text}" is used by no step', literal=lit.text)
            )
    if tools is not None:
        said = {f.literal for f in findings}  # "under forty hours": found as a bound already
        # "rated four stars or more" for a tool's ``stars``: the number is the goal's as "4
        # stars" would be, and a plan giving no step 4 leaves it out.
        for phrase, number in counted_numbers(goal, unit_nouns(tools)):
            if str(number) in said:
                continue
            if not any((type(v) in (int, float) and v == number) or v == str(number) for v in all_values):
                findings.append(
                    Finding(
                        "missing_literal",
                        f'goal number "{phrase}" ({number}) is used by no step',
                        literal=phrase,
                    )
                )

    findings += _unchosen_options(steps, goal, tools)
    findings += _unset_flags(steps, goal, tools)
    findings += _counts_for_items(steps, goal, tools)
    findings += _described_contents(steps, goal, literals, tools)
    findings += _unasked_counts(steps, goal, tools)
    findings += _unnarrowed(steps, goal, literals, tools)
    findings += _whole_records(steps, goal, tools)
    findings += _fields_per_output(steps, goal, literals, tools)
    findings += _derived_bounds(steps, goal, tools)
    findings += _folders_as_text(steps, goal, tools)
    findings += _structured_copies(steps, goal, tools)

    effectful = [s for s in steps if _effect(s, tools) != "read_only"]
    effect_values = [v for s in effectful for v in _step_texts(s, leaves[id(s)])]
    effect_strings = _lowered(effect_values)
    if tools is not None and effectful:
        # "write the word hello to w.txt": the text the goal gives is what is written. Handed to
        # text_stats and its word count written instead, "1" landed in w.txt and the run said
        # succeeded, the literal being "used".
        unused = {f.literal for f in findings if f.kind == "missing_literal"}
        # A file's name is no text written: "hello.txt" does not write "hello".
        paths = {lit.text for lit in literals if lit.kind != "content"}
        texts = [v for v in effect_values if not (isinstance(v, str) and v in paths)]
        for lit in literals:
            if lit.kind != "content" or lit.text in unused:
                continue  # used by no step at all: said once, above
            if not _uses(texts, _lowered(texts), set(), lit):
                findings.append(
                    Finding(
                        "missing_literal",
                        f'the goal gives the text "{lit.text}" to write, '
                        "but no side-effecting step writes it",
                        literal=lit.text,
                    )
                )
    reported: set[str] = set()
    for how, target in effects:
        if target in reported:
            continue
        if not _uses(effect_values, effect_strings, set(), GoalLiteral(target, "path", 0)):
            reported.add(target)
            findings.append(
                Finding(
                    "missing_output",
                    f'the goal asks to {how} "{target}", but no side-effecting step does',
                    literal=target,
                )
            )

    used: set[str] = set()
    depended: set[str] = set()
    for s in (*steps, *plan.rollback):
        used |= s.referenced_steps()
        if s.compensate is not None:
            used |= {r.step_id for r in refs.find_references(s.compensate.args)}
        depended |= set(s.depends_on)
        if s.agent is not None:
            used |= set(s.depends_on)
    changes = bool(outputs) or any(_effect(s, tools) != "read_only" for s in steps)
    for s in steps:
        if _effect(s, tools) != "read_only" or s.id in used:
            continue
        sink = s.id not in depended
        if sink and not changes:
            continue
        why = "nothing depends on it" if sink else "no step uses its output"
        findings.append(
            Finding(
                "dead_step",
                f"step {s.id!r} ({s.tool}) is read-only and {why}; it does nothing toward the goal",
                step_id=s.id,
            )
        )

    actions = clause_actions(goal)
    findings += _missing_actions(plan, goal, actions, literals, tools, abbreviations)
    findings += _repeated_effects(plan, actions, tools)

    goal_words = {_singular(w.lower()) for w in _WORD_RE.findall(goal)}
    goal_words |= {w.lower() for w in _COMPOUND_RE.findall(goal)}  # "south-westerly" whole
    goal_numbers = {float(lit.text) for lit in literals if lit.kind == "number"}
    goal_numbers |= spelled_numbers(goal)  # "between two and five": 2 and 5 are the goal's
    goal_numbers |= implied_numbers(goal)  # "15% of 240": 15 / 100 * 240
    goal_numbers |= converted_numbers(goal)  # "longer than a second": 1000 (ms) is the goal's
    # "with twelve boxes": a number word is the goal's number too ("one" mostly is no number).
    goal_numbers |= {
        float(NUMBER_WORDS[w])
        for w in re.findall(r"[a-z]+(?:-[a-z]+)?", goal.lower())
        if w in NUMBER_WORDS and w != "one"
    }
    # "the second line": its place, counted from 1 or from 0, is the goal's number too.
    goal_numbers |= {
        float(w) for ordinal, _ in asked_items(goal) for w in ITEM_ORDINALS[ordinal] if w.isdigit()
    }
    allowed_at: dict[tuple[str, FieldPath], list[Any]] = {}
    for s in steps:
        if s.tool is None:
            continue
        spec = tools.get(s.tool) if tools is not None else None
        schema = spec.input_schema if spec is not None else None
        for path, value in leaves[id(s)]:
            key = (s.tool, tuple(p if isinstance(p, str) else 0 for p in path))
            allowed = allowed_at.get(key)
            if allowed is None:
                allowed = allowed_at[key] = _allowed(_schema_at(schema, path[1:]))
            if _invented(_unspelled(value, spelled), allowed, goal_words, goal_numbers):
                where = _where(path)
                source = f"{s.tool}'s defaults" if spec is not None else "the tool's defaults"
                findings.append(
                    Finding(
                        "invented_argument",
                        f"step {s.id!r} {where} = {value!r} appears neither in the goal nor in {source}",
                        step_id=s.id,
                        field=path,
                    )
                )
    return Coverage(not findings, tuple(findings), literals, outputs)


def _repeated_effects(
    plan: Plan, actions: Sequence[tuple[str, str]], tools: Mapping[str, ToolSpec] | None
) -> list[Finding]:
    """``missing_action`` findings: a side-effecting tool is called twice on the same plain
    texts (the same sku, the same file) while the goal says its action once: "restock sku
    A-100 with 3 units and write the new count to a.txt" restocked a second time, by the count.
    ``actions`` are the goal's (verb, object) pairs (``verbs.clause_actions``)."""
    if tools is None:
        return []
    verbs = [verb for verb, _ in actions]
    findings: list[Finding] = []
    seen: dict[tuple[str, str], str] = {}
    for step in plan.steps:
        spec = tools.get(step.tool) if step.tool is not None else None
        if spec is None or spec.effect == "read_only":
            continue
        # What the call acts on: its plain texts (a sku, a path), not its amounts or inputs.
        plain = json.dumps(
            {k: v for k, v in step.args.items() if isinstance(v, str) and not refs.find_references(v)},
            sort_keys=True,
        )
        key = (spec.name, plain)
        said = sum(names_action(verb, tool_tokens(spec)) for verb in verbs)
        if key in seen and said <= 1:
            findings.append(
                Finding(
                    "missing_action",
                    f"step {step.id!r} calls {spec.name} again on what step {seen[key]!r} did; "
                    "the goal asks for it once",
                    literal=spec.name,
                    step_id=step.id,
                )
            )
        seen.setdefault(key, step.id)
    return findings


# Verbs whose action only a tool named for it does: what a step named for their object does
# instead (adds, reads) is not it.
_DESTRUCTIVE_VERBS = frozenset(
    {"delete", "remove", "erase", "send", "email", "mail", "upload", "move", "rename"}
)


def _missing_actions(
    plan: Plan,
    goal: str,
    actions: Sequence[tuple[str, str]],
    literals: tuple[GoalLiteral, ...],
    tools: Mapping[str, ToolSpec] | None,
    abbreviations: bool = False,
) -> list[Finding]:
    """``missing_action`` findings: a verb of the goal, and its object, that no used tool names.
    ``actions`` are the goal's (verb, object) pairs (``verbs.clause_actions``)."""
    if tools is None or not plan.steps:
        return []
    specs: list[ToolSpec] = []
    for s in plan.steps:
        spec = tools.get(s.tool) if s.tool is not None else None
        if spec is None or s.agent is not None:
            return []  # an agent step or an unknown tool may do anything: not judged
        specs.append(spec)
    used = set().union(*(tool_tokens(spec) for spec in specs))
    # A file, URL or given text is what the plan works on ("open notes.txt"); a number in the
    # object ("remove *2* units") is no such thing.
    lowered = [lit.text.lower() for lit in literals if lit.kind not in ("number", "noun")]
    out: list[Finding] = []
    for verb, obj in actions:
        if verb.lower() in NUMBER_WORDS:
            continue  # "between two and *five* kilos": a number after "and", no verb
        if names_action(verb, used):
            continue  # a used tool does it
        if not obj or any(lit in obj.lower() for lit in lowered):
            continue  # its object is what the plan works on ("open notes.txt")
        if any(
            names_action(verb, tool_tokens(spec)) for spec in tools.values() if spec.effect != "read_only"
        ):
            # "restock sku C-300 with twelve units": a side-effecting tool is named for the verb
            # and the plan does not use it (it looked the stock up and said succeeded).
            out.append(
                Finding(
                    "missing_action",
                    f'the goal asks to {verb} "{obj}", and a tool is named for it, but no step uses one',
                    literal=verb,
                )
            )
            continue
        if verb.lower() not in _DESTRUCTIVE_VERBS and object_words(obj) & used:
            # A tool named for what it acts on ("total_hours" for "sum the hours"); never for
            # removing or sending: "remove 2 units of sku A-100" ran restock, named for units.
            continue
        out.append(
            Finding(
                "missing_action",
                f'the goal asks to {verb} "{obj}", but no step\'s tool is named for {verb!r} '
                f"or for what it acts on",
                literal=verb,
            )
        )
    # "count the words": the verb already reported is not reported again as a value to compute.
    said = {f.literal for f in out}
    out += [
        f for f in _uncomputed_quantities(plan, goal, literals, tools, abbreviations) if f.literal not in said
    ]
    return out


_FEW_LITERALS = 32


def _uncomputed_quantities(
    plan: Plan,
    goal: str,
    literals: tuple[GoalLiteral, ...],
    tools: Mapping[str, ToolSpec],
    abbreviations: bool = False,
) -> list[Finding]:
    """``missing_action`` findings: a value the goal asks to be computed ("the largest number in
    scores.csv", "the average qty") that no step of the plan is known to compute.

    A step is known to compute it when its tool's name or its own arguments (the goal's literals
    aside) are named for it (``largest_sample``, ``max(3, 5, 9)``, ``SELECT max(…)``), when it
    picks a field so named (``${s2.mean}``), or, for a read-only step that works on another
    step's output, when its tool's description says so ("the mean delay of some departures").
    A fetching step's description is not read: "at most max_bytes" finds no maximum in a file
    read whole. Parameter names are never read. A plan whose result is a field the goal names
    (``${s1.servings}`` for "how many servings") is not judged: the record holds the answer.
    """
    blanked = goal
    # "from the third to the twelfth of May 2026": days of a date, no item asked for.
    for start, end, _ in reversed(spelled_dates(goal, ordinals=True, shared_year=True, month_runs=True)):
        blanked = blanked[:start] + " " * (end - start) + blanked[end:]
    # Every literal's text blanked wherever it stands, in one pass (a pass per literal was
    # quadratic in a goal of thousands of file names); the longest first where two overlap.
    texts = sorted({lit.text for lit in literals if lit.text}, key=len, reverse=True)
    if len(texts) > _FEW_LITERALS:
        blanked = re.sub("|".join(map(re.escape, texts)), " ", blanked)
    else:  # a pattern of a few long texts costs more to compile than the passes do
        for text in texts:
            blanked = blanked.replace(text, " ")
    wanted = {word: QUANTITIES[word] for word in asked_quantities(blanked)}
    items = {f"{ordinal} {noun}": ITEM_ORDINALS[ordinal] for ordinal, noun in asked_items(blanked)}
    wanted |= items
    if not wanted:
        return []
    goal_words = words_of(blanked)
    literal_words = set().union(*(words_of(lit.text) for lit in literals))
    said: set[str] = set()
    processes = False
    named_field = False
    named_from: set[str] = set()  # the steps whose named fields are written
    for s in plan.steps:
        said |= words_of(s.tool or "")
        for value in _step_texts(s, _leaves(s.args, ("args",), [])):
            said |= words_of(value) - literal_words
            if _is_number(value) and float(value).is_integer():
                said.add(str(int(value)))  # a place by its number ("the second column": 2)
        effectful = _effect(s, tools) != "read_only"
        for r in refs.find_references(s.args):
            field = words_of(" ".join(str(p) for p in r.path))
            if effectful and (field & goal_words or (abbreviations and _shortens(field, goal_words))):
                named_field = True  # a field the goal names is picked ("how many servings" → ``.servings``)
                named_from.add(r.step_id)
            said |= field
        spec = tools.get(s.tool) if s.tool is not None else None
        # A step works on another's output when a parameter it needs takes it: a file read with
        # an optional ``max_bytes`` of another step's size is still only read ("the largest line
        # count of a.txt and b.txt" found a maximum in "at most max_bytes").
        required = spec.input_schema.get("required") or [] if spec is not None else []
        if (
            spec is not None
            and spec.effect == "read_only"
            and any(refs.find_references(s.args.get(str(p))) for p in required)
        ):
            processes = True
            said |= _with_stems(words_of(spec.description or ""))
    across = len(named_from) > 1
    how = (
        "no step's tool is named or described for it"
        if processes
        else "the plan passes on what it read unchanged"
    )
    return [
        Finding(
            "missing_action", f'the goal asks for "{word} …", but {how}: no step computes it', literal=word
        )
        for word, known_by in wanted.items()
        # A field the goal names holds the answer, unless the goal asks for the text reordered,
        # one value across results ("together"; "the average word count of a.txt and b.txt"
        # written as each file's count) or an item by its place: "how many words does the
        # second line have" is no ``${s2.words}`` of the file.
        if not set(known_by) & said
        and not (
            named_field
            and word not in REORDERINGS | ACROSS | SCALED
            and word not in items
            and not (across and word not in PER_RESULT)
        )
    ]


def _shortens(field: set[str], words: set[str]) -> bool:
    """Whether a word of a field's name is a short form, three letters or more, that a goal word
    starts with and is three letters or more longer than ("min" of "minutes", "temp" of
    "temperature"; "sample" is no short form of "samples")."""
    return any(len(f) >= 3 and len(w) >= len(f) + 3 and w.startswith(f) for f in field for w in words)


def _with_stems(words: set[str]) -> set[str]:
    """``words`` and their stems without a verb ending, as a description writes them: "added",
    "counted", "averaged", "summing" say "add", "count", "average", "sum"."""
    out = set(words)
    for w in words:
        if w.endswith("ed") and len(w) > 4:
            out |= {w[:-1], w[:-2], w[:-3]}  # "averaged", "added", "summed"
        elif w.endswith("ing") and len(w) > 5:
            out |= {w[:-3], w[:-4], w[:-3] + "e"}  # "adding", "summing", "averaging"
    return out
