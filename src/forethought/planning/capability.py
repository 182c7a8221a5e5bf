"""Can any available tool do what the goal asks? Deterministic, model-free, tool-agnostic.

A goal that asks for an effect ("delete notes.txt", "send an email to bob@example.com") needs a
side-effecting tool able to produce it. Without one, any plan the model writes is a plan for
something else, and running it would end in a "succeeded" that did nothing asked for. So before
planning, each output the goal asks for (``plan.coverage.goal_outputs``, with how the goal says
it) is matched against the side-effecting tools by plain token matching over each tool's name,
description and parameter names, with the small verb → synonyms table below. No tool or goal is
recognised by name; an unknown verb matches itself only.

The same holds for what a goal asks to be *done* ("translate notes.txt", "restart the server",
"zip the docs folder"): the verb that opens each of its clauses must be mentioned, or one of its
synonyms, by some tool, read-only ones included. Only verbs of the lexicon below are judged: a
clause that opens with a word it does not know as a verb (a question, a noun) is never called
impossible; a generic verb ("list", "show") needs no tool named for it, and a verb that only
says a value is worked out ("compute the average of …") is done by a tool named for a word of
its clause. A change of a text said as a manner ("in upper case") needs a tool as its verb
does, and so do items picked by a word ("the TODO lines") when no tool can be given the word.

Both ways of being wrong are measured: ``bench/planning/capability_sweep.py`` runs the check
over every planning suite's goals (all achievable) and the outcomes bench's impossible ones.

The check is conservative in one direction: a match only says "some tool mentions this kind of
effect", never that the plan will use it (that is the coverage check's job).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from forethought.plan._schema import types_of
from forethought.plan.counted import (
    counted_nouns,
    counted_terms,
    described_items,
    narrowing_words,
    word_forms,
)
from forethought.plan.coverage import _goal_effects, counts_items, goal_literals
from forethought.plan.tool_spec import ToolSpec
from forethought.plan.unit_quantities import UNITS
from forethought.plan.verbs import (
    ACTIONS,
    CLAUSE_SPLIT,
    GENERIC_VERBS,
    INFLECTION,
    LEAD_FILLERS,
    SYNONYMS,
    asked_quantities,
    clause_verb,
    object_words,
    tool_tokens,
    words_of,
)
from forethought.planning.bm25 import STOP_WORDS
from forethought.planning.grammar import goal_literals as literals_of
from forethought.planning.tool_roles import is_dir_param, is_path_param


@dataclass(frozen=True, slots=True)
class MissingCapability:
    """A goal effect no available tool can produce. ``str()`` is the line a user sees."""

    verb: str
    target: str
    available: tuple[str, ...]

    def __str__(self) -> str:
        tools = ", ".join(self.available) if self.available else "none"
        return f'no tool can {self.verb} "{self.target}"; available: {tools}'


def _base_verb(how: str) -> str:
    word = how.split()[0].lower()
    if word in SYNONYMS:
        return word
    if word.endswith("ies") and word[:-3] + "y" in SYNONYMS:
        return word[:-3] + "y"
    stem = INFLECTION.sub("", word)
    for candidate in (stem, word[:-1]):
        if candidate in SYNONYMS:
            return candidate
    return word


# Effects a goal can ask for with an object that is no literal ("delete the memo titled x",
# "erase all memos"): destructive or outbound verbs only, and only where an instruction starts
# (the goal's first word, or after "and", "then", a comma or a semicolon). Verbs that also name
# pure transformations ("remove duplicates", "write the sum") stay with the literal-target rule.
_CLAUSE_VERBS = ("delete", "erase", "move", "rename", "send", "email", "upload")
_CLAUSE_RE = re.compile(
    r"(?:^|[,;]\s*|\b(?:and|then)\s+)(" + "|".join(_CLAUSE_VERBS) + r")\s+([^,;.]+)", re.IGNORECASE
)
_OBJECT_END = re.compile(r"\s+(?:and|then|to|into|from|with|as|on|in|at)\b.*$", re.IGNORECASE)


def _clause_effects(goal: str) -> list[tuple[str, str]]:
    """(verb, object phrase) per instruction that starts with a destructive or outbound verb."""
    out = []
    for m in _CLAUSE_RE.finditer(goal.strip()):
        target = _OBJECT_END.sub("", m.group(2)).strip()
        if target:
            out.append((m.group(1).lower(), target))
    return out


def missing_capabilities(goal: str, specs: Mapping[str, ToolSpec]) -> list[MissingCapability]:
    """Each effect ``goal`` asks for that no side-effecting tool in ``specs`` mentions, then each
    action it asks for that no tool mentions (``missing_actions``), each change of a text it
    asks for as a manner, "in upper case" (``missing_manners``), each value of the moment
    (``missing_live_values``) and each kind of item it counts that no tool knows
    (``missing_counts``); or, when none is missing, each set of items it picks by a word
    no tool can be given (``missing_selections``)."""
    out = missing_effects(goal, specs)
    verbs = {m.verb for m in out}
    out += [m for m in missing_actions(goal, specs) if m.verb not in verbs]
    verbs = {m.verb for m in out}
    out += [m for m in missing_manners(goal, specs) if m.verb not in verbs]
    out += missing_live_values(goal, specs)
    out += missing_counts(goal, specs)
    # Items picked by a word are judged only when nothing else is missing: "delete the old
    # memos" with no tool to delete is not also a goal no tool can pick "old memos" for.
    return out or missing_selections(goal, specs)


# Changes of a text the goal may say as a manner, not a verb ("write notes.txt in upper case",
# "the lines in reverse order"): the action each asks for (``plan.verbs.ACTIONS``).
_MANNERS = {"uppercase": "uppercase", "lowercase": "lowercase", "reverse": "reverse", "backwards": "reverse"}


def missing_manners(goal: str, specs: Mapping[str, ToolSpec]) -> list[MissingCapability]:
    """Each change of a text ``goal`` asks for as a manner ("in upper case", "in reverse
    order") that no tool mentions: a plan over these tools copies the text and calls it done.
    The target is the first file the goal names (the text changed), else the goal."""
    known = [tool_tokens(s) for s in specs.values()]
    files = [lit.text for lit in goal_literals(goal) if lit.kind == "path"]
    out: list[MissingCapability] = []
    for word in asked_quantities(goal):
        verb = _MANNERS.get(word)
        if verb is None or any(v.verb == verb for v in out):
            continue
        if any(set(ACTIONS[verb]) & tokens for tokens in known):
            continue
        out.append(MissingCapability(verb, files[0] if files else goal[:60], tuple(sorted(specs))))
    return out


def missing_selections(goal: str, specs: Mapping[str, ToolSpec]) -> list[MissingCapability]:
    """Each set of items ``goal`` picks by a word ("the TODO lines of notes.txt", "the lines
    … that start with delta") or term whose occurrences it counts ("how many times does alpha
    appear") where no tool can be told the word: none is named for it, and no read-only tool
    takes a short text besides its data (a filter's ``word``, a search's ``pattern``, a
    look-up's ``film``). A plan over such tools can only hand on or count every item."""
    if any(_takes_a_value(spec) for spec in specs.values()):
        return []
    known = set().union(*(tool_tokens(s) for s in specs.values())) if specs else set()
    available = tuple(sorted(specs))
    out: list[MissingCapability] = []
    for term in counted_terms(goal):
        if not _forms(term.lower().split()) & known:
            out.append(MissingCapability("count the occurrences of", term, available))
    # A folder the goal names is where the items are ("the files that are in docs"), not which;
    # text it gives to write is what a writer takes ("replace the contents of a.txt with hello").
    places = {d.lower() for d in literals_of(goal).directories}
    places |= {w.lower() for lit in goal_literals(goal) if lit.kind == "content" for w in lit.text.split()}
    # "how many unique words are in notes.txt": a count of the words picked by "unique".
    for noun in counted_nouns(goal):
        narrowing = [w for w in narrowing_words(goal, noun) if w not in places]
        if narrowing and not any(word_forms(w) & known for w in narrowing):
            out.append(MissingCapability("pick", f"{' '.join(narrowing)} {noun}", available))
    for phrase, words in described_items(goal):
        content = [w for w in words if w not in _DATA_WORDS and w not in STOP_WORDS and w not in places]
        if content and not _forms(content) & known:
            out.append(MissingCapability("pick", phrase, available))
    # "count the blank lines": one set of items, however many rules found it.
    return list({(m.verb, m.target.lower()): m for m in out}.values())


def _forms(words: Sequence[str]) -> set[str]:
    """``words`` and their singulars and plurals, as a tool's words may say them."""
    out: set[str] = set()
    for w in words:
        out |= {w, w + "s", w.removesuffix("s"), w.removesuffix("es")} - {""}
    return out


# The names of a read-only tool's data parameter: the text, list or expression it works on
# whole, which takes no word to pick by.
_DATA_PARAM_RE = re.compile(
    r"(?:text|texts|content|contents|body|data|document|passage|input|expression|code|source|lines)",
    re.IGNORECASE,
)


def _takes_a_value(spec: ToolSpec) -> bool:
    """Whether a read-only tool takes a short text besides its data: a word it could pick by."""
    if spec.effect != "read_only":
        return False
    props = spec.input_schema.get("properties")
    if not isinstance(props, Mapping):
        return False
    for pname, prop in props.items():
        types = types_of(prop, spec.input_schema) if isinstance(prop, Mapping) else None
        if types is not None and "string" not in types:
            continue
        if is_path_param(spec, pname) or is_dir_param(spec, pname) or _DATA_PARAM_RE.fullmatch(pname):
            continue
        return True
    return False


# A value of the moment the goal describes rather than gives: "today's date", "the current
# time", "the latest price of X". Only a tool can know it; words that name the same kind of
# value count as one ("the current time" from a clock tool that gives "now").
_LIVE_RE = re.compile(
    r"\b(?:today|tonight|tomorrow|yesterday)(?:'s|’s)\s+([a-z]+)(?![\w.-])"
    r"|\bthe\s+(?:current|latest|live|present)\s+((?:(?!of\b|in\b)[a-z]+\s+){0,2}?[a-z]+)"
    # "the current value *of x in a.txt*": a value of something the goal names, not of the moment.
    r"(?=\s+(?:to|into|in|at|as)\b|[,;:?!]|\.(?!\w)|$)",
    re.IGNORECASE,
)
_MOMENT_WORDS = frozenset({"date", "day", "time", "clock", "now", "today", "calendar", "timestamp", "hour"})


def missing_live_values(goal: str, specs: Mapping[str, ToolSpec]) -> list[MissingCapability]:
    """Each value of the moment ``goal`` describes ("write today's date to d.txt") whose noun
    no tool mentions: no plan over these tools can know it, and one that writes the goal's own
    words for it ("date") is no answer."""
    known = set().union(*(tool_tokens(s) for s in specs.values())) if specs else set()
    out: list[MissingCapability] = []
    for m in _LIVE_RE.finditer(goal):
        phrase = m.group(0).strip()
        noun = (m.group(1) or m.group(2)).split()[-1].lower()
        nouns = {noun, noun.rstrip("s"), noun.removesuffix("ing")}
        if nouns & _MOMENT_WORDS:
            nouns |= _MOMENT_WORDS
        if nouns & known or any(o.target == phrase for o in out):
            continue
        out.append(MissingCapability("give", phrase, tuple(sorted(specs))))
    return out


# Nouns a count may be of without any tool naming them: units a number is said in ("how many
# minutes", "how many kilobytes") and spans of the calendar, which arithmetic may give.
_MEASURES = frozenset(
    {spelling for unit in UNITS for spelling in unit.spellings}
    | {"days", "weeks", "months", "years", "nights", "decades", "centuries"}
)


def missing_counts(goal: str, specs: Mapping[str, ToolSpec]) -> list[MissingCapability]:
    """Each kind of item ``goal`` asks a count of ("how many sentences are in story.txt",
    "count the paragraphs of report.md") that no tool names in its name, description,
    parameters or output fields, when no tool is named for counting: a plan over these tools
    counts something else (the lines) and calls it done. Words of any text or data ("lines",
    "words", "files") and units are not judged: every reading tool is about them, and
    arithmetic converts units."""
    if not specs or any(counts_items(s) for s in specs.values()):
        # A tool named for counting ("count_transactions") counts whatever items a filter picks,
        # whatever the goal calls them ("how many utility bills").
        return []
    known = set().union(*(tool_tokens(s) | _output_tokens(s) for s in specs.values()))
    out: list[MissingCapability] = []
    for noun in counted_nouns(goal):
        if noun in _DATA_WORDS or noun in _MEASURES or _forms(sorted(words_of(noun))) & known:
            continue
        out.append(MissingCapability("count", noun, tuple(sorted(specs))))
    return out


def _output_tokens(spec: ToolSpec) -> set[str]:
    """The words of a tool's output fields ("lines", "characters" of a text's counts), and of
    the fields of the records in a list it returns."""
    names: list[str] = []
    schemas: list[object] = [spec.output_schema]
    while schemas and len(names) < 200:
        schema = schemas.pop()
        if not isinstance(schema, Mapping):
            continue
        props = schema.get("properties")
        if isinstance(props, Mapping):
            names += [str(k) for k in props]
            schemas += list(props.values())
        defs = schema.get("$defs")
        schemas += [schema.get("items"), *(defs.values() if isinstance(defs, Mapping) else ())]
    return set(words_of(" ".join(names)))


def missing_effects(goal: str, specs: Mapping[str, ToolSpec]) -> list[MissingCapability]:
    """Each effect ``goal`` asks for that no side-effecting tool in ``specs`` mentions."""
    effects = _goal_effects(goal, goal_literals(goal), outbound_nouns=True)
    verbs = {_base_verb(how) for how, _ in effects}
    effects += [(verb, target) for verb, target in _clause_effects(goal) if verb not in verbs]
    if not effects:
        return []
    effectful = [tool_tokens(s) for s in specs.values() if s.effect != "read_only"]
    writes_files = any(_writes_files(s) for s in specs.values())
    available: Sequence[str] = tuple(sorted(specs))
    out: list[MissingCapability] = []
    seen: set[str] = set()
    for how, target in effects:
        verb = _base_verb(how)
        words = set(SYNONYMS.get(verb, (verb,)))
        if any(words & tokens for tokens in effectful) or target in seen:
            continue
        if writes_files and verb in _WRITING and verb != "append":
            continue  # "save it to w.txt" with ``file_report(report_file, report_body)``
        seen.add(target)
        out.append(MissingCapability(verb, target, tuple(available)))
    return out


def _writes_files(spec: ToolSpec) -> bool:
    """Whether a mutating tool takes a file's name and something more: whatever its words
    ("File a harbour report: report_body goes into report_file"), it writes a file."""
    props = spec.input_schema.get("properties")
    if spec.effect != "mutating" or not isinstance(props, Mapping) or len(props) < 2:
        return False
    return any(is_path_param(spec, str(p)) for p in props)


def missing_actions(goal: str, specs: Mapping[str, ToolSpec]) -> list[MissingCapability]:
    """Each clause of ``goal`` opening with an action verb that no tool in ``specs`` mentions.

    A verb that only says a value is worked out ("compute the average of …", "convert 754.5
    seconds to a clock time", "order readings.txt ascending") is done by a tool named for what
    it works out, so a tool named for a word of the clause after the verb will do; so is a
    removal of parts of a text whose result the goal writes elsewhere ("remove the blank lines
    from notes.txt and write the result to compact.txt"). Any other verb ("translate",
    "restart", "delete") needs a tool named for it. A generic verb ("list", "show") asks for
    nothing a tool must name."""
    known = [tool_tokens(s) for s in specs.values()]
    available = tuple(sorted(specs))
    writes_elsewhere = any(_base_verb(how) in _WRITING for how, _ in _goal_effects(goal, goal_literals(goal)))
    out: list[MissingCapability] = []
    for clause in CLAUSE_SPLIT.split(goal):
        words = clause.split()
        while words and words[0].lower() in LEAD_FILLERS:
            words = words[1:]
        if not words:
            continue
        verb, rest = clause_verb(words)
        if verb not in ACTIONS or verb in GENERIC_VERBS or any(v.verb == verb for v in out):
            continue
        if any(set(ACTIONS[verb]) & tokens for tokens in known):
            continue
        if verb in _WRITING and verb != "append" and any(_writes_files(s) for s in specs.values()):
            continue  # a tool given a file's name and a text writes it, whatever its words
        said = " ".join(rest)
        worked_out = verb in _WORKED_OUT or (
            verb in _REMOVALS and writes_elsewhere and not _FILE_RE.search(_OBJECT_END.sub("", said))
        )
        if worked_out and any(_clause_words(said) & tokens for tokens in known):
            continue
        target = said.strip(" \"'")
        out.append(MissingCapability(verb, target[:60] or verb, available))
    return out


# Verbs whose object or result says what is worked out (no effect outside the data).
_WORKED_OUT = frozenset(
    {"compute", "calculate", "evaluate", "convert", "count", "order", "sort", "search", "record"}
    | {"add", "subtract", "multiply", "divide", "add up", "sum up", "total up", "tot up"}
)
_REMOVALS = frozenset({"remove", "delete", "erase", "strip", "drop"})
_WRITING = frozenset({"write", "save", "store", "put", "copy", "export", "dump", "output", "append"})
_FILE_RE = re.compile(r"[\w/-]+\.[A-Za-z]\w{0,7}\b")
# Words of any text or file, which every reading tool is named for: no tool is named for
# what a clause works out by one of them ("reverse the lines": a line counter reverses none).
_DATA_WORDS = frozenset(
    {"file", "files", "text", "texts", "line", "lines", "word", "words", "content", "contents"}
    | {"data", "value", "values", "number", "numbers", "result", "results", "folder", "directory"}
    | {"list", "item", "items", "entry", "entries", "character", "characters", "name", "names"}
)


def _clause_words(said: str) -> set[str]:
    """The words of a clause after its verb a tool may be named for: no file names, numbers,
    determiners or words of any data."""
    words = object_words(_FILE_RE.sub(" ", said))
    return {w for w in words if w not in _DATA_WORDS and w not in STOP_WORDS and len(w) > 2}
