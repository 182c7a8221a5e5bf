"""Value filters: which of a goal's words are values to select by ("dairy items", "entries for
carol", "the 800 m", "by Ursula K. Le Guin") rather than words a tool explains, and what kind of
value each is ("date", "time", "text")."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from forethought.plan.dates import spelled_dates, spelled_times, weekday_start
from forethought.plan.day_parts import day_part_times
from forethought.plan.verbs import GENERIC_VERBS, SYNONYMS
from forethought.planning.bm25 import HOW_MANY_RE, STOP_WORDS, stem, terms, tool_terms
from forethought.planning.boolean_values import flag_param, prefixed_flag
from forethought.planning.candidates import goal_names, labelled_files
from forethought.planning.filter_fit import example_shapes, text_filters, value_shape
from forethought.planning.goal_facts import GoalFacts
from forethought.planning.refinements import Refinements
from forethought.planning.tool_roles import (
    is_dir_param,
    param_kind,
    properties,
    range_params,
    takes_prefix,
    value_param,
)
from forethought.planning.word_classes import (
    QUANTIFIERS,
    after_number,
    amount_before,
    irregular_grade,
    is_superlative,
    never_value,
    regular_grades,
    same_word,
    singular,
    strip_possessive,
    verb_after_subject,
)
from forethought.tools.base import ToolSpec

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


# Personal pronouns stand for someone the goal names elsewhere: never a value themselves.
PRONOUNS = frozenset(
    ("i", "me", "he", "him", "she", "her", "hers", "his", "it", "its", "they", "them", "their", "theirs")
)


# Nouns that stand in for whatever the goal asks about ("the first *thing* sown"): no value.
PLACEHOLDER_NOUNS = frozenset(("thing", "things", "stuff", "one", "ones", "something", "anything"))


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
# Negations and contrasts: closed-class words that join or deny values, never one themselves.
NEGATION_WORDS = frozenset(("not", "but", "nor", "except", "excluding", "without", "unless", "neither"))


_NEGATION_RE = re.compile(r"\b(?:not|never|except|excluding|other\s+than)\b|n't", re.IGNORECASE)


def _negated(value: str) -> re.Pattern[str]:
    """The value right after a negation ("not", "never", "except", "other than", "excluding",
    with "yet", "been", "be" between)."""
    return re.compile(
        r"\b(?:not|never|except|excluding|other\s+than|n't)\s+(?:(?:yet|been|be|being)\s+)*"
        + re.escape(value)
        + r"(?![\w-])",
        re.IGNORECASE,
    )


# A code: capital letters then digits, maybe joined by hyphens ("ONC-7", "CARD-2", "AB12",
# "X-9-B"): an identifier, never a word a tool explains.
CODE_RE = re.compile(r"[A-Z][A-Z]*-?\d+(?:-[A-Z0-9]+)*|[A-Z]{2,}(?:-[A-Z]+)*-\d+[A-Z0-9]*")
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
    said = set(terms(spec.name)) | set(terms(rest)) | set(terms(" ".join(properties(spec))))
    return set(terms(examples)) - said


# A description's list of a parameter's allowed values: after a colon, "one of" or an opening
# parenthesis, words joined by commas and a final "or" ("status: open, waiting or closed",
# "one of low, high"); "and" lists name fields, not options, so they do not count.
_OPTIONS_RE = re.compile(
    r"(:|\bone of|\()\s*([A-Za-z][\w-]*(?:(?:\s*[,/|]\s*|,?\s+or\s+)[A-Za-z][\w-]*)+)(?=\s*[).;]|\s*$)",
    re.IGNORECASE,
)
# A quoted one-word option in a description ('"open"', "'closed'").
_QUOTED_OPTION_RE = re.compile(r"[\"'`“]([A-Za-z][\w-]*)[\"'`”]")


# A gloss in parentheses ("received (waiting to be processed), processed or discarded").
_GLOSS_RE = re.compile(r"\s*\([^()]*\)")


def enumerated_options(spec: ToolSpec, *, glossed: bool = False) -> set[str]:
    """The lower-case words a tool enumerates as a parameter's allowed values: a schema
    ``enum``, a list of options in its or a parameter's description ("status: open, waiting or
    closed", "one of low, high"), a quoted option. Such a goal word is a value to filter by, not
    a word the tool explains. With ``glossed``, a list whose options carry a gloss in
    parentheses ("received (waiting to be processed), processed or discarded") counts too."""
    texts = [spec.description]
    if glossed:
        texts.append(_GLOSS_RE.sub("", spec.description))
    options: set[str] = set()
    for prop in (spec.input_schema.get("properties") or {}).values():
        if not isinstance(prop, dict):
            continue
        texts.append(str(prop.get("description", "")))
        if glossed:
            texts.append(_GLOSS_RE.sub("", texts[-1]))
        options |= {str(v).lower() for v in prop.get("enum") or () if re.fullmatch(r"[A-Za-z][\w-]*", str(v))}
    for text in texts:
        for m in _OPTIONS_RE.finditer(text):
            if m.group(1).lower() != "one of" and not re.search(r"/|\||\bor\b", m.group(2)):
                continue  # "name, date": fields, not options
            options |= {w.lower() for w in re.split(r"[\s,/|]+", m.group(2)) if w.lower() != "or"}
        options |= {w.lower() for w in _QUOTED_OPTION_RE.findall(text)}
    named = set(terms(spec.name)) | set(terms(" ".join(properties(spec))))
    return {o for o in options if o not in STOP_WORDS and not set(terms(o)) & named}


def document_words(spec: ToolSpec) -> set[str]:
    """The lower-case words of a tool's name, parameters and description, each with a plural
    "s" dropped (as ``stem`` does) but not cut: ``value_words`` compares whole words."""
    text = " ".join((spec.name, " ".join(properties(spec)), spec.description))
    words = re.findall(r"[A-Za-z]+", re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text.replace("_", " ")))
    return {singular(w.lower()) for w in words}


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


# Words joined by a slash, no file (no extension) and no URL: "feature/login", "team-a/api".
# A path from the root ("/api/checkout", "/images/"), and the file name that ends one.
# Segments are split by a "/" that must be there: an optional one let a long word split into
# segments in every way, and a path that failed to end ("/aaaa…a:") took exponential time.
_ROOTED_RE = re.compile(r"(?<![\w./:-])/[A-Za-z0-9][\w.-]*(?:/[A-Za-z0-9][\w.-]*)*/?(?![\w/:-])")
_FILE_NAME_RE = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,5}$")
_SLASHED_RE = re.compile(r"(?<![\w./:-])[A-Za-z][\w-]*(?:/[A-Za-z0-9][\w-]*)+(?![\w/:-]|\.\w)")


def _named_by_param(text: str, value: str, params: set[str]) -> bool:
    """Whether ``value`` stands right before or after a word naming one of ``params`` ("the
    feature/login *branch*", "*branch* feature/login"), up to an inflection's ending."""
    v = re.escape(value)
    after = re.search(rf"(?<![\w./-]){v}(?![\w/-])\s+([A-Za-z]+)", text)
    before = re.search(rf"\b([A-Za-z]+)\s+(?:the\s+)?{v}(?![\w/-])", text)
    words = [m.group(1).lower() for m in (after, before) if m is not None]
    return any(singular(w) == p or w == p for w in words for p in params)


def _takes_time_range(tools: Mapping[str, ToolSpec], formats: bool = False) -> bool:
    """Whether a tool keeps items between two times of day ("earliest", "latest" as HH:MM)."""
    return any(
        (pair := range_params(spec, times=True, formats=formats)) is not None
        and param_kind(spec, pair[0], formats=formats) == "time"
        for spec in tools.values()
    )


def _without_overlaps(
    spelled: list[tuple[int, int, str]], more: list[tuple[int, int, str]]
) -> list[tuple[int, int, str]]:
    """``spelled`` and those of ``more`` that overlap none of it, in order."""
    return sorted(spelled + [t for t in more if not any(a < t[1] and t[0] < b for a, b, _ in spelled)])


_CUT_NEGATION_RE = re.compile(r"['’]t\b")


def _ends_sentence(text: str, at: int) -> bool:
    """Whether the text before ``at`` ends a sentence (".", "?" or "!", then only spaces)."""
    j = at - 1
    while j >= 0 and text[j].isspace():
        j -= 1
    return j >= 0 and text[j] in ".?!"


def value_words(
    facts: GoalFacts,
    docs: Mapping[str, set[str]],
    refinements: Refinements | None = None,
    tools: Mapping[str, ToolSpec] | None = None,
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
    codes = refinements is not None and refinements.code_values
    negations = refinements is not None and refinements.negated_values
    leading = whole and refinements is not None and refinements.leading_names
    classes = refinements is not None and refinements.value_classes
    forms = refinements is not None and refinements.value_forms
    subjects = refinements is not None and refinements.fallback_classes
    pronouns = PRONOUNS if refinements is not None and refinements.pronouns else frozenset()
    heads = refinements is not None and refinements.head_nouns
    camels = refinements is not None and refinements.camel_case_names
    if heads:
        pronouns = pronouns | PLACEHOLDER_NOUNS
    known = set().union(*docs.values()) if docs else set()
    # Words a tool enumerates as a parameter's options ("open, waiting or closed") are values
    # wherever the goal says them ("tickets that are still open"), never explained.
    options: set[str] = set()
    if tools is not None and refinements is not None and refinements.enumerated_values:
        glossed = refinements.option_values
        options = set().union(*(enumerated_options(spec, glossed=glossed) for spec in tools.values()))
    # A goal word is explained only by a tool word of the same word, not one sharing its
    # 5-letter stem ("transport" is not "transactions").
    tool_words: set[str] | None = None
    if tools is not None and refinements is not None and refinements.whole_word_terms:
        tool_words = {w for spec in tools.values() for w in document_words(spec)}

    def explains(word: str) -> bool:
        lowered = word.lower()
        if lowered in options:
            return False
        if not set(terms(word)) & known:
            return False
        if tool_words is None:
            return True
        # Each part of a compound ("one-sentence") is compared on its own, as ``terms`` does.
        parts = [p for p in re.findall(r"[a-z]+", lowered) if stem(p) in known]
        return any(
            stem(t) == stem(part) and same_word(singular(part), t) for part in parts for t in tool_words
        )

    # The shapes a text filter's examples give ("e.g. JK": initials), with ``fitting_filters``.
    sample_shapes: set[str] = set()
    if tools is not None and refinements is not None and refinements.fitting_filters:
        filters = text_filters(tools, places=refinements.place_params)
        sample_shapes = set().union(*(example_shapes(tools[n], p) for n, p in filters.items()))
    masked = HOW_MANY_RE.sub(" ", facts.goal)  # its "count number" is no word of the goal's
    found: list[str] = []
    if whole:
        dated: list[tuple[int, str]] = []
        if refinements is not None and refinements.spelled_dates:
            # "1 April 2026" is the day 2026-04-01, "April 2026" the month 2026-04: one value each.
            spelled = spelled_dates(
                masked,
                ordinals=refinements.spelled_ordinals,
                shared_year=refinements.shared_years,
                month_runs=refinements.month_runs,
            )
            if refinements.spelled_times:  # "between 7 and 9 am": the times 07:00 and 09:00
                spelled = sorted(spelled + spelled_times(masked, worded=refinements.worded_times))
            if (
                refinements.day_parts
                and tools is not None
                and _takes_time_range(tools, refinements.time_formats)
            ):
                # "the morning high waters", "before noon": the times 00:00 and 11:59.
                spelled = _without_overlaps(spelled, day_part_times(masked))
            for start, end, iso in reversed(spelled):
                dated.append((start, iso))
                if refinements.dated_weekdays and len(iso) == 10:
                    # "Sunday the sixth of September 2026": the weekday is part of the date.
                    start = weekday_start(masked, start)
                masked = masked[:start] + " @ " + " " * (end - start - 3) + masked[end:]
        dated += [(m.start(), m.group(0)) for m in _SEPARATED_RE.finditer(masked)]
        found += [v for _, v in sorted(dated)]
        masked = _SEPARATED_RE.sub(" @ ", masked)
    if classes:  # a number with a unit's symbol is one value ("the 800 m", "5 km")
        found += [
            m.group(0)
            for m in _MEASURE_RE.finditer(masked)
            if not (forms and amount_before(masked[: m.start()]))  # "over 600 km": an amount
        ]
        masked = _MEASURE_RE.sub(" @ ", masked)
    if tools is not None and refinements is not None and refinements.slashed_values:
        # "the feature/login branch": a name with a slash beside the word of a value parameter
        # is that value, whole, not a folder to read.
        params = {
            p.lower()
            for spec in tools.values()
            if (p := value_param(spec, places=refinements.place_params)) is not None
        }
        # No tool taking a folder, a name with a slash is no folder wherever it stands.
        folders = any(is_dir_param(spec, p) for spec in tools.values() for p in properties(spec))
        slashed = [m.group(0) for m in _SLASHED_RE.finditer(masked)]
        for d in dict.fromkeys([*facts.literals.directories, *slashed]):
            if "/" in d and (not folders or _named_by_param(masked, d, params)):
                found.append(d)
                masked = re.sub(rf"(?<![\w./-]){re.escape(d)}(?![\w/-])", " @ ", masked)
    # "paths under /images/", "the /api/checkout requests": a path from the root that names no
    # file is the start a tool taking a prefix keeps items by, whole.
    if (
        tools is not None
        and refinements is not None
        and refinements.prefix_values
        and any(takes_prefix(spec, p) for spec in tools.values() for p in properties(spec))
    ):
        for m in list(_ROOTED_RE.finditer(masked)):
            if not _FILE_NAME_RE.search(m.group(0)):
                found.append(m.group(0))
        masked = _ROOTED_RE.sub(lambda m: m.group(0) if _FILE_NAME_RE.search(m.group(0)) else " @ ", masked)
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
        # Each token's index by where it starts, and each name's sentence end found by walking
        # back over spaces: a search of the whole text before each was quadratic in the goal.
        index_at = {t.start(): i for i, t in enumerate(spans)}
        for m in _NAME_RUN_RE.finditer(masked):
            first = index_at.get(m.start())
            words = m.group(0).split()
            opens = first == 0 or _ends_sentence(masked, m.start())
            if first is None or (opens and not (leading and _leading_name(words, facts, explains))):
                continue  # a sentence's first word is capitalized anyway
            last = first + sum(1 for w in words if len(w.rstrip(".")) > 1) - 1
            name = m.group(0).rstrip(".") if len(words[-1]) > 2 else m.group(0)
            runs[first] = (last, strip_possessive(name) if forms else name)

    def explained(i: int) -> bool:
        if not 0 <= i < len(tokens):
            return False
        w = tokens[i].lower()
        return w != "@" and w not in STOP_WORDS and w not in facts.verbs and explains(w)

    def candidate(i: int) -> bool:
        word = tokens[i]
        lowered = word.lower()
        if word == "@" or lowered in STOP_WORDS or lowered in facts.verbs or lowered in _NOT_VALUES:
            return False
        if lowered in pronouns:
            return False
        if negations and lowered in NEGATION_WORDS:
            return False  # "received *but not* processed"
        if negations and _CUT_NEGATION_RE.match(masked, spans[i].end()):
            return False  # "weren't", "didn't": a negated verb cut at its apostrophe
        if whole and lowered in _FUNCTION_VERBS:
            return False
        if classes and never_value(
            word, tokens[i - 1] if i >= 1 else "", tokens[i + 1] if i + 1 < len(tokens) else ""
        ):
            return False
        if (
            forms
            and word == lowered
            and (
                irregular_grade(lowered)
                or after_number(masked[max(0, spans[i].start() - 64) : spans[i].start()])
            )
        ):
            return False  # "the best score", "80 points": a grade, a unit -- no value
        if subjects and verb_after_subject(word, tokens[i - 1] if i >= 1 else ""):
            return False  # "who opened …": the clause's verb
        if camels and _CAMEL_NAME_RE.fullmatch(word):
            return True  # "ParcelLine": a name, whatever words its parts are
        return bool(terms(word)) and not explains(word)

    def adjacent(i: int, j: int) -> bool:  # only spaces between the two tokens
        return 0 <= i < j < len(spans) and not masked[spans[i].end() : spans[j].start()].strip()

    # Where the run of value words from each token ends, found once per run: a run that does
    # not qualify is tried again from each of its words, which had made a long one quadratic.
    run_end: dict[int, int] = {}
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
            if i in run_end:
                end = run_end[i]
            else:
                while (
                    end + 1 < len(tokens)
                    and end + 1 not in runs
                    and candidate(end + 1)
                    and adjacent(end, end + 1)
                ):
                    end += 1
                run_end.update(dict.fromkeys(range(i, end + 1), end))
            if end > i and not (explained(end + 1) and adjacent(end, end + 1)):
                end = i  # only a qualifying run counts whole
        word = tokens[i] if end == i else masked[spans[i].start() : spans[end].end()]
        before = tokens[i - 1].lower() if i >= 1 else ""
        after_of = i >= 2 and before == "of" and explained(i - 2)
        after_prep = whole and before in _VALUE_PREPOSITIONS and before != "of"
        relative = (
            whole
            and explained(i - 1)
            # "the first seeds were sown": the noun an ordinal grades, not a value
            and not (heads and (before in QUANTIFIERS or is_superlative(before)))
            and end + 1 < len(tokens)
            and (tokens[end + 1].lower().endswith("ed") or tokens[end + 1].lower() in _FUNCTION_VERBS)
        )
        enumerated = end == i and tokens[i].lower() in options
        code = codes and end == i and bool(CODE_RE.fullmatch(tokens[i]))
        # "observer MB": capital initials where a text filter's examples are initials ("e.g. JK").
        initials = end == i and "initials" in sample_shapes and value_shape(tokens[i]) == "initials"
        if (
            explained(end + 1)
            or after_of
            or after_prep
            or relative
            or tokens[i] in names
            or enumerated
            or code
            or initials
        ):
            found.append(word)
        i = end + 1
    if tools is not None and refinements is not None and refinements.label_values:
        found += label_values(masked, tools, places=refinements.place_params)
    # A one-word text the goal quotes ("start with "a"") is a value as it stands.
    if refinements is not None and refinements.bare_contents:
        # "Write *it,* in kilograms, to a.txt": unquoted, a pronoun with its comma is no value.
        found += [c for c in (_bare_content(c, facts.goal) for c in facts.contents) if c]
    else:
        found += [c for c in facts.contents if len(c.split()) == 1]
    if refinements is not None and refinements.negated_values:
        # "received but not processed", "other than discarded": what the goal excludes is
        # nothing to select by.
        # Each value once, and only where the goal negates anything at all (a value said
        # thousands of times had searched the whole goal each time).
        negated = (
            {v for v in set(found) if _negated(v).search(facts.goal)}
            if _NEGATION_RE.search(facts.goal)
            else set()
        )
        found = [v for v in found if v not in negated]
    if refinements is not None and refinements.file_named_values:
        # "the Parkway board (parkway.json)": the word names the file read, not a value in it.
        stems = {re.sub(r"\.[^.]*$", "", f.rsplit("/", 1)[-1]).lower() for f in facts.inputs}
        found = [v for v in found if v.lower() not in stems or v in facts.contents]
    if refinements is not None and refinements.file_word_values:
        # "the north depot (north_depot.jsonl)": a word of the file's name names the file read.
        parts = {w for f in facts.inputs for w in re.split(r"[^a-z0-9]+", _file_stem(f)) if w}
        found = [v for v in found if v in facts.contents or not _all_words_in(v, parts)]
    if refinements is not None and refinements.labelled_files and len(labelled_files(facts.goal)) >= 2:
        # "March (march_log.jsonl) against April (fuel_log.jsonl)": files told apart by their
        # labels; a label says which file is read, it is no value in it. (One file in
        # parentheses is a source note: "for CAR-04 (fuel_log.jsonl)" filters by CAR-04.)
        labels = {label.lower() for label, _ in labelled_files(facts.goal)}
        found = [v for v in found if v in facts.contents or v.lower() not in labels]
    if tools is not None and refinements is not None and refinements.negated_flags:
        # "the unpaid bookings": a flag filter's word with a negating prefix sets its flag false.
        prefixed = {
            w.lower()
            for spec in tools.values()
            if (pname := flag_param(spec)) is not None and (w := prefixed_flag(facts.goal, pname))
        }
        found = [v for v in found if v.lower() not in prefixed or v in facts.contents]
    return list(dict.fromkeys(found))


# A CamelCase name: capitalized parts run together ("ParcelLine", "QuickShip").
_CAMEL_NAME_RE = re.compile(r"[A-Z][a-z]+(?:[A-Z][a-z0-9]*)+")


def _file_stem(path: str) -> str:
    """A file's name without folders and extension, lower case ("in/north_depot.jsonl" → north_depot)."""
    return re.sub(r"\.[^.]*$", "", path.rsplit("/", 1)[-1]).lower()


def _all_words_in(value: str, parts: set[str]) -> bool:
    """Whether every word of a value is one of ``parts`` ("north" of north_depot)."""
    words = [strip_possessive(w).lower() for w in re.findall(r"[A-Za-z0-9][\w'’]*", value)]
    return bool(words) and all(w in parts for w in words)


def _bare_content(content: str, goal: str) -> str:
    """A one-word text the goal gives as a value: as quoted, or, unquoted, stripped of
    punctuation; "" for more words, or an unquoted pronoun or stop word ("write *it,* to …")."""
    if len(content.split()) != 1:
        return ""
    if re.search(rf"[\"'`“]{re.escape(content)}[\"'`”]", goal):
        return content
    word = content.strip(".,;:!?")
    return "" if word.lower() in PRONOUNS or word.lower() in STOP_WORDS else word


# Verbs a goal opens a sentence with ("List …", "Count …", "Copy …"): no name's first word.
_COMMAND_VERBS = frozenset(
    [
        *GENERIC_VERBS,
        *SYNONYMS,
        *(v for vs in SYNONYMS.values() for v in vs),
        "count",
        "sort",
        "compute",
        "sum",
    ]
)


def _leading_name(words: list[str], facts: GoalFacts, explains: Callable[[str], bool]) -> bool:
    """Whether capitalized words opening a sentence are a name ("Tom Okafor's", "Priya
    Shah"): two or more, none a stop word, a command verb ("Count", "List"), a closed-class
    word or a word a tool explains ("Bed A's" is a bed's label, "Write The …" a command)."""
    plain = [strip_possessive(w).rstrip(".:,") for w in words]
    return len(plain) >= 2 and all(
        len(w) > 1
        and w.lower() not in STOP_WORDS
        and w.lower() not in _COMMAND_VERBS
        and w.lower() not in _FUNCTION_VERBS
        and not never_value(w.lower())
        and not explains(w)
        for w in plain
    )


# A label: a capital letter, maybe with digits ("B", "C2"), right after a word, and maybe
# possessive ("Bed A's").
_LABEL_RE = re.compile(r"(?<![\w'’])([A-Za-z]+)\s+([A-Z]\d*)(?:['’]s)?(?![\w'’])")


def _name_words(name: str) -> list[str]:
    """A parameter's name as lower-case words ("fromDate" → from, date; "bed_id" → bed, id)."""
    return [w.lower() for w in re.findall(r"[A-Za-z][a-z]*", re.sub(r"[_\-]+", " ", name))]


def label_values(text: str, tools: Mapping[str, ToolSpec], *, places: bool = False) -> list[str]:
    """Capital letters (with digits) the text puts right after a word naming a tool's value
    parameter: "in bed B" → "B" for a ``bed`` parameter, "Bed A's" → "A". A one-letter word is
    otherwise no value (an article, a stray possessive "s"); after the parameter's noun it is
    the value that noun is labelled by. "I" is a pronoun, never a label."""
    params = {
        singular(w)
        for spec in tools.values()
        if (p := value_param(spec, places=places))
        for w in _name_words(p)
    }
    found = []
    for m in _LABEL_RE.finditer(text):
        noun, label = m.group(1).lower(), m.group(2)
        if label != "I" and noun not in STOP_WORDS and singular(noun) in params:
            found.append(label)
    return found


def no_value_words(goal: str) -> set[str]:
    """The goal's words (lower case) that cannot be a value wherever they stand: stop words,
    function verbs, verb particles and pronouns, the closed classes of ``never_value``
    (quantifiers, common verbs, regular superlatives such as "biggest"), irregular grades
    ("best"), and a verb right after its subject ("who *opened*"). A word that is a possible
    value at one of its places ("the *closed* tickets") is not in the set."""
    # Numbers are tokens too, so a word's neighbours are the goal's ("of 38.5 *litres*").
    tokens = re.findall(r"[A-Za-z0-9][A-Za-z0-9_.-]*[A-Za-z0-9]|[A-Za-z0-9]", regular_grades(goal))
    never: set[str] = set()
    possible: set[str] = set()
    for i, word in enumerate(tokens):
        lowered = word.lower()
        before = tokens[i - 1] if i >= 1 else ""
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        closed = (
            lowered in STOP_WORDS
            or lowered in _NOT_VALUES
            or lowered in _FUNCTION_VERBS
            or never_value(word, before, after)
            or (word == lowered and irregular_grade(lowered))
            or verb_after_subject(word, before)
        )
        (never if closed else possible).add(lowered)
    return never - possible
