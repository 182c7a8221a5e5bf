"""What a goal's count or set of items is of: the term or the kind of item it is asked about.

"How many times does alice appear in names.txt?" asks a count of *alice*; "how many TODO lines
are in notes.txt?" a count of *TODO* lines; "write the lines of notes.txt that start with TODO"
(or "the days when the wind came from the west", "days with a gale warning") some of the items,
not all. A plan that counts or copies every line answers none of these, yet it used every literal
of the goal (there is none but the files), so the coverage check needs to know what the goal
picks. Pure text rules over English, no tool or goal recognised.
"""

from __future__ import annotations

import re

from forethought.plan.number_words import NUMBER_WORDS
from forethought.plan.verbs import QUANTITIES

# "how many times does X appear", "how often is X mentioned", "count the occurrences of X in".
_AUX = r"(?:does|do|did|is|are|was|were|has|have|will|would|can)"
_OCCURS = (
    r"(?:appears?|appeared|occurs?|occurred|shows?\s+up|comes?\s+up|turns?\s+up|recurs?"
    r"|(?:gets?\s+)?mentioned|used)"
)
_TIMES_RE = re.compile(
    rf"\bhow\s+(?:many\s+times|often)\s+(?:{_AUX}\s+)?(?P<term>.{{1,60}}?)\s+{_OCCURS}\b",
    re.IGNORECASE,
)
_OCCURRENCES_RE = re.compile(
    r"\b(?:count|counts|counting|number|how\s+many)\s+(?:of\s+)?(?:the\s+)?"
    r"(?:occurrences|instances|appearances|mentions)\s+(?:of\s+)?"
    r"(?P<term>.{1,60}?)(?=\s+(?:in|inside|within|across|from|throughout|on)\b|[,;:?!]|\.(?!\w)|$)",
    re.IGNORECASE,
)
# "the word alice", "the name 'Bob'": the words before the term say what it is.
_NAMING_RE = re.compile(r"^(?:the\s+)?(?:word|name|string|text|term|phrase|letter|character)\s+", re.I)
_QUOTES = "\"'`“”‘’"

# What a count's noun may stand after without narrowing it: "how many *total* words".
_NOT_NARROWING = frozenset(
    {
        *("total", "overall", "whole", "entire", "all", "in", "of", "the", "a", "an", "its", "their"),
        *("are", "is", "other", "remaining", "same", "following", "above", "below", "given", "named"),
        *("listed", "these", "those", "both", "each", "every", "individual", "separate", "various"),
        *("first", "second", "third", "last", "next", "previous", "my", "our", "your", "his", "her"),
        # Superlatives and kinds of value are asked quantities, judged by their own rule; and
        # negations, whose word follows them.
        *("most", "least", "more", "fewer", "less", "non", "not", "best", "worst", "better", "worse"),
        *("top", "bottom", "highest", "lowest"),
    }
)
_JOINS = frozenset({"and", "or", "nor", "plus", "versus", "vs"})
_BREAKS = frozenset(
    {"of", "by", "from", "to", "in", "with", "for", "on", "at", "into", "that", "which", "who", "as", "than"}
    | {"per", "is", "are", "was", "were", "has", "have", "goes", "go", "should", "will", "the", "a", "an"}
)
_CALENDAR = frozenset(
    {
        *("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
        *("january", "february", "march", "april", "may", "june", "july", "august"),
        *("september", "october", "november", "december", "today", "yesterday", "tomorrow"),
    }
)
_WORD_RE = re.compile(r"[a-z0-9]+")


# Words that say the same of items, one of which a tool may use for another ("count_distinct").
_SAME_SENSE = (frozenset({"unique", "distinct", "different", "dedupe", "deduplicate", "deduplicated"}),)


def word_forms(word: str) -> set[str]:
    """``word`` and what else a plan may say it by: without a negating prefix ("unpaid" by a
    ``paid`` flag) and its words of the same sense ("unique" by "distinct")."""
    forms = {word, word.removeprefix("un"), word.removeprefix("non")} - {""}
    for group in _SAME_SENSE:
        if word in group:
            forms |= group
    return forms


def counted_terms(goal: str) -> list[str]:
    """The terms whose occurrences ``goal`` asks to count ("alice" in "how many times does
    alice appear in names.txt"), without quotes or a naming noun ("the word …")."""
    terms: list[str] = []
    for regex in (_TIMES_RE, _OCCURRENCES_RE):
        for m in regex.finditer(goal):
            term = _NAMING_RE.sub("", m.group("term").strip()).strip(_QUOTES + " ")
            if term and term.lower() not in ("it", "they", "this", "that") and term not in terms:
                terms.append(term)
    return terms


# "the TODO lines", "the red placards": a definite plural noun after one to three words.
_DESCRIBED_RE = re.compile(r"\bthe\s+((?:[\w'-]+\s+){1,3}?)([a-z][a-z-]*[a-z](?<!ss)s)\b", re.IGNORECASE)


# "the lines of notes.txt that start with TODO": a relative clause after the plural noun (and
# where the items are), up to the end of the clause.
_RELATIVE_RE = re.compile(
    r"\b(?:the|how\s+many)\s+([a-z][a-z-]*[a-z](?<!ss)s)\b(?:\s+(?:of|in|from)\s+\S+?)?\s+"
    # "how many lines in notes.txt mention TODO": the clause without its "that".
    # "the days when the wind came from the west", "days with a south-westerly wind".
    r"(that|which|who|whose|when|where|with|(?<=[a-z]\s)(?=(?:mention|contain|include|start|begin|end|match|say)s?\b))\s*"
    # up to a question's auxiliary too ("… with a westerly wind *did* hilltop.txt record?").
    r"([^,;?!]{1,60}?)(?=\s+(?:to|into|and|then|as|did|do|does|is|are|was|were)\b|[,;?!]|\.(?!\w)|$)",
    re.IGNORECASE,
)
# The text after "start with" when it is no article ("with the", "with a dot") unless nothing
# follows it ("that start with a").
_EDGE_RE = re.compile(r"\b(?:start|begin|end)s?\s+with\s+[\"'“‘]?(?!(?:a|an|the)\s+\w)([a-z0-9]+)")
_ORDINAL_RE = re.compile(
    r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|\w+teenth|\w+ieth"
)
_FILE_RE = re.compile(r"[\w./-]+\.[a-z]\w{0,7}\b")
# What a relative clause says of its items apart from what it names: the relation, adverbs.
_RELATION_WORDS = frozenset(
    {
        *("start", "starts", "begin", "begins", "end", "ends", "contain", "contains", "mention"),
        *("mentions", "include", "includes", "match", "matches", "say", "says", "read", "reads"),
        *("have", "has", "had", "do", "does", "did", "with", "word", "words", "text", "string"),
        *("still", "already", "yet", "currently", "now", "ever", "also", "only", "just", "been"),
        *("be", "being", "were", "was", "appear", "appears", "occur", "occurs", "no", "any"),
        *("between", "after", "before", "since", "until", "over", "under", "than", "least", "or"),
        # the halves of "haven't", "isn't", "don't" as the word pattern splits them
        *("t", "haven", "hasn", "isn", "aren", "wasn", "weren", "don", "doesn", "didn", "never"),
    }
)


# "how many sentences", "count the paragraphs of", "the number of API requests": a count and the
# plural noun it is of, after at most two words that narrow it.
_COUNT_OF_RE = re.compile(
    # "count" as a verb only: "the count goes in c.txt" counts no goings.
    r"\b(?:how\s+many|number\s+of|(?<!\bthe\s)(?<!\ba\s)(?<!\bits\s)(?<!\btheir\s)"
    r"count(?:s|ing)?(?:\s+of)?(?:\s+(?:the|all(?:\s+the)?|its|their))?)\s+"
    r"((?:[a-z][\w'-]*\s+){0,2}?)([a-z][a-z-]*[a-z](?<!ss)s)\b",
    re.IGNORECASE,
)
# Nouns a count is of that say how it is counted rather than what: "how many times", "how many
# of them", "count the ones that …".
_COUNT_WAYS = frozenset({"times", "ones", "others", "occurrences", "instances", "appearances", "mentions"})
# Words ending in "s" that are no plural noun.
_FUNCTION_WORDS = frozenset(
    {"this", "thus", "its", "his", "hers", "ours", "yours", "plus", "us", "yes", "less"}
)


# Words ending in "s" after a count that are not its noun: verbs and words between clauses.
_NOT_NOUNS = (_RELATION_WORDS - {"word", "words", "text", "string"}) | _BREAKS | _FUNCTION_WORDS


def counted_nouns(goal: str) -> list[str]:
    """The plural nouns ``goal`` asks a count of, lower-cased, in order, each once: "how many
    sentences are in story.txt" → ["sentences"]; "count the API requests" → ["requests"]. Up
    to two words that narrow the noun may stand between; a count with a preposition, an article
    or a join there ("how many of the lines", "count the ones in a and the others") is not read."""
    out: list[str] = []
    for m in _COUNT_OF_RE.finditer(goal):
        between = _WORD_RE.findall(m.group(1).lower())
        if any(w in _BREAKS or w in _JOINS for w in between):
            continue  # "count the ones in a and the others": not words before one noun
        noun = m.group(2).lower()
        if noun in _NOT_NOUNS:
            continue  # "how many km was the trip": a verb, the count's noun was before it
        if noun not in _COUNT_WAYS and noun not in out:
            out.append(noun)
    return out


def described_items(goal: str) -> list[tuple[str, list[str]]]:
    """(phrase, narrowing words) for each set of items ``goal`` describes by words before their
    plural noun ("write the TODO lines of notes.txt" → ("TODO lines", ["todo"])) or by a relative
    clause after it ("the lines … that start with TODO" → ["todo"]). A plan handing on every line
    answers something else."""
    out: list[tuple[str, list[str]]] = []
    for m in _DESCRIBED_RE.finditer(goal):
        words = _narrowing(m.group(1))
        if words:
            out.append((f"{m.group(1).strip()} {m.group(2)}", words))
    for m in _RELATIVE_RE.finditer(goal):
        clause = _FILE_RE.sub(" ", m.group(3).lower())  # "appear in club_night.txt": where, not which
        words = [w for w in _WORD_RE.findall(clause) if _names_items(w)]
        # "that start with a": what follows "start with" is the text, a letter or an article.
        edge = _EDGE_RE.search(clause)
        if edge is not None and edge.group(1) not in words:
            words.insert(0, edge.group(1))
        if words:
            out.append((" ".join(filter(None, (m.group(1), m.group(2), m.group(3).strip()))), words))
    return out


def _names_items(word: str) -> bool:
    """Whether ``word`` of a relative clause may say which items are meant ("TODO" in "that
    start with TODO"), not how ("start", "still") or a number or day a filter takes."""
    return not (
        word in _RELATION_WORDS
        or word in _BREAKS
        or word in _JOINS
        or word in _NOT_NARROWING
        or word in _CALENDAR
        or word in NUMBER_WORDS
        or word.isdigit()
        or _ORDINAL_RE.fullmatch(word) is not None  # "the tenth of June": a day
    )


def _narrowing(said_before: str) -> list[str]:
    said = _WORD_RE.findall(said_before.lower())
    if _JOINS & set(said):
        return []  # "the number of words and lines": two things, neither narrowed
    if _BREAKS & set(said) or any(len(w) > 3 and w.endswith("s") and not w.endswith("ss") for w in said):
        return []  # "the number of tracks", "the tracks rated four stars": not words before a noun
    words: list[str] = []
    for word in said:
        if word in _NOT_NARROWING or word in _CALENDAR or word in NUMBER_WORDS or word.isdigit():
            continue
        if word in QUANTITIES or (len(word) > 4 and word.endswith("est")):
            continue  # "the largest amounts", "the total hours": a value to compute
        if word not in words:
            words.append(word)
    return words


def narrowing_words(goal: str, noun: str) -> list[str]:
    """The words that narrow a count of ``noun`` (a field a tool counts, e.g. "lines") where
    the goal asks it: "how many TODO lines" → ["todo"]; "the number of words" → []. Number
    words, digits and calendar words are left out (a filter takes them as numbers or dates)."""
    stem = noun.lower().rstrip("s")
    if len(stem) < 3:
        return []
    pattern = re.compile(
        r"\b(?:how\s+many|number\s+of|count\s+(?:of\s+)?(?:the\s+)?)\s*((?:[\w'-]+\s+){1,3}?)"
        + re.escape(stem)
        + r"s?\b",
        re.IGNORECASE,
    )
    words: list[str] = []
    for m in pattern.finditer(goal):
        words += [w for w in _narrowing(m.group(1)) if w not in words]
    return words
