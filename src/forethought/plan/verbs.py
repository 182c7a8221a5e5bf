"""The small verb lexicon the goal checks share, and the words a tool is known by.

Both the capability check (``planning.capability``: can any available tool do what the goal
asks?) and the coverage check (``plan.coverage``: does this plan do it?) compare the verbs of a
goal with the words of tools. They share this one table so that they never disagree about what
"send" or "count" needs. No tool or goal is recognised by name: a tool is known only by its name,
description and parameter names, and a verb absent from the table matches itself only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from forethought.plan.tool_spec import ToolSpec

# What a tool must mention (name, description or parameter names) to produce the effect a goal's
# verb asks for. Copying or exporting needs something that writes; sending needs something that
# sends or mails. Keys are the verbs ``plan.coverage`` recognises as outputs or effects.
_WRITE = ("write", "save", "store", "put", "create", "append", "copy", "export", "dump", "output", "upload")
SYNONYMS: Mapping[str, tuple[str, ...]] = {
    "write": _WRITE,
    "save": _WRITE,
    "store": _WRITE,
    "put": _WRITE,
    "copy": (*_WRITE, "duplicate", "cp"),
    "export": _WRITE,
    "append": ("append", "write"),
    "dump": _WRITE,
    "output": _WRITE,
    "create": (*_WRITE, "make", "touch", "mkdir", "new"),
    "make": (*_WRITE, "make", "touch", "mkdir", "new"),
    "overwrite": ("write", "overwrite", "save", "put"),
    "truncate": ("truncate", "write", "overwrite", "clear"),
    "move": ("move", "mv", "rename"),
    "rename": ("rename", "move", "mv"),
    "delete": ("delete", "remove", "rm", "unlink", "erase", "del", "purge", "trash", "rmdir"),
    "remove": ("delete", "remove", "rm", "unlink", "erase", "del", "purge", "trash", "rmdir"),
    "erase": ("delete", "remove", "rm", "unlink", "erase", "del", "purge", "trash"),
    "send": ("send", "mail", "email", "smtp", "post", "notify", "message", "deliver"),
    "email": ("send", "mail", "email", "smtp"),
    "post": ("post", "send", "publish", "http", "request", "upload"),
    "upload": ("upload", "put", "post", "send", "publish"),
    # "replace the contents of a.txt with hello": a file written anew.
    "replace": ("replace", *_WRITE, "overwrite"),
}
# Verbs that open a clause and ask for an action, with the words a tool that does it would be
# known by. A verb absent from this table is not judged. Generic verbs ("get", "show", "tell",
# "give", "print", "read", "do") ask for nothing a tool must name ("print" mostly means "show";
# a tool that fetches, loads or queries also "reads"), so they are absent too.
_UPPER = (
    "uppercase",
    "upper",
    "capital",
    "capitals",
    "caps",
    "capitalize",
    "capitalized",
    "capitalise",
    "capitalised",
)
_UNIQUE = ("dedupe", "deduplicate", "deduplicated", "unique", "duplicate", "distinct", "uniq")
_ARITHMETIC = ("calculate", "compute", "evaluate", "arithmetic", "expression", "math", "sum", "add")
ACTIONS: Mapping[str, tuple[str, ...]] = {
    **{verb: (*words, verb) for verb, words in SYNONYMS.items()},
    "add": (*_ARITHMETIC, "append", "write", "insert", "plus"),
    "archive": ("archive", "zip", "tar", "compress"),
    "book": ("book", "booking", "reserve", "reservation"),
    "buy": ("buy", "purchase", "order", "checkout"),
    "calculate": _ARITHMETIC,
    "cancel": ("cancel", "cancellation", "abort"),
    "compress": ("compress", "zip", "gzip", "tar", "archive"),
    "compute": _ARITHMETIC,
    "convert": ("convert", "conversion", "transform"),
    "count": ("count", "counts", "tally", "number", "statistics", "stats"),
    "decrypt": ("decrypt", "decryption"),
    "deploy": ("deploy", "deployment", "release", "rollout"),
    "divide": (*_ARITHMETIC, "divide", "division"),
    "download": ("download", "fetch", "http", "url"),
    "encrypt": ("encrypt", "encryption", "cipher"),
    "evaluate": _ARITHMETIC,
    "fetch": ("fetch", "download", "http", "url", "get"),
    "install": ("install", "installer", "package"),
    "kill": ("kill", "terminate", "signal", "process"),
    "list": ("list", "ls", "entries", "directory", "enumerate"),
    "mail": SYNONYMS["email"],
    "multiply": (*_ARITHMETIC, "multiply", "product"),
    "order": ("order", "buy", "purchase"),
    "pay": ("pay", "payment", "charge", "invoice"),
    "publish": ("publish", "post", "release", "upload"),
    "reboot": ("reboot", "restart"),
    "record": ("record", "log", "write", "save", "store"),
    "refund": ("refund", "reimburse"),
    "restart": ("restart", "reboot", "reload"),
    "schedule": ("schedule", "calendar", "cron", "book"),
    "search": ("search", "find", "grep", "query", "lookup", "match"),
    "shutdown": ("shutdown", "poweroff", "halt"),
    "sort": ("sort", "sorted", "order", "rank"),
    "subtract": (*_ARITHMETIC, "subtract", "minus", "difference"),
    "summarize": ("summarize", "summarise", "summary", "summarizes"),
    "summarise": ("summarize", "summarise", "summary"),
    "translate": ("translate", "translation", "translator"),
    "tweet": ("tweet", "twitter", "post"),
    "uninstall": ("uninstall", "remove", "package"),
    "unzip": ("unzip", "extract", "decompress", "archive"),
    "zip": ("zip", "compress", "archive"),
    # Transformations of text no generic reader or writer does: a plan of read_file and
    # write_file for "uppercase notes.txt into upper.txt" copied the file and said succeeded.
    # A tool's words are not stemmed past a plural, so the inflections a name or a description
    # uses ("capitalized", "reversed") are listed.
    "uppercase": _UPPER,
    "capitalize": (*_UPPER, "title"),
    "capitalise": (*_UPPER, "title"),
    "lowercase": ("lowercase", "lowercased", "lower"),
    "reverse": ("reverse", "reversed", "reverses", "reversing", "backwards", "invert", "inverted"),
    "shuffle": ("shuffle", "shuffled", "random", "randomize", "randomise", "randomly"),
    "hash": ("hash", "hashes", "hashed", "digest", "sha256", "sha1", "md5", "checksum"),
    "encode": ("encode", "encoded", "encoder", "encoding", "base64", "escape"),
    "decode": ("decode", "decoded", "decoder", "decoding", "base64", "unescape"),
    "dedupe": _UNIQUE,
    "deduplicate": _UNIQUE,
}
# Phrasal verbs whose meaning is not their verb's: "add up the numbers" asks for a sum, which a
# tool that appends lines does not do, though it is named for "add". Keyed "verb particle"; the
# clause's verb is the pair when its next word is the particle. Only pairs that change what a
# tool must be named for are here: a new action verb ("clean up", "set up") would also make the
# capability check call goals impossible that a generic tool (a shell) may well do. Pairs that
# mean "show" or "find out" ask for nothing a tool must name, as the generic verbs below.
PHRASAL: Mapping[str, tuple[str, ...]] = {
    "add up": (*_ARITHMETIC, "total"),
    "total up": (*_ARITHMETIC, "total"),
    "tot up": (*_ARITHMETIC, "total"),
    "sum up": (*_ARITHMETIC, "total", *ACTIONS["summarize"]),
}
GENERIC_PHRASAL = frozenset({"print out", "find out", "figure out", "read out", "check out", "point out"})
ACTIONS = {**ACTIONS, **PHRASAL}
# Words of a goal that ask for a value to be computed from the data ("the largest number in
# scores.csv", "the average of …", "how many lines"), with the words a step that computes it
# would be known by (``plan.coverage._uncomputed_quantities`` says where it looks: a tool's name,
# a step's arguments, a field it picks, a processing step's description). "first", "last" and
# "most" are left out: they mostly order the goal's own clauses or qualify a word ("most
# recent") rather than ask for a value.
_ORDERING = ("sort", "sorted", "rank", "order")
_MAX = ("max", "maximum", "largest", "biggest", "highest", "greatest", "top", *_ORDERING)
_MORE = ("larger", "bigger", "greater", "higher", "longer")
_LESS = ("smaller", "lower", "lesser", "shorter")
_SCALINGS = ("double", "triple", "halve", "twice")
_MIN = ("min", "minimum", "smallest", "lowest", "least", "fewest", *_ORDERING)
_EARLY = ("earliest", "oldest", "first", "min", "minimum", *_ORDERING)
_LATE = ("latest", "newest", "last", "recent", "max", "maximum", *_ORDERING)
_MEAN = ("average", "mean", "median", "avg", *_ARITHMETIC)
_TOTAL = (*_ARITHMETIC, "total", "sum")
_COUNT = ("count", "counts", "number", "tally", "stats", "statistics", "len", "length", "total", "size")
_TOGETHER = ("together", "combined", "altogether")
_SIZE = ("size", "sizes", "bytes", "byte", "big", "large", "length", "characters", "chars", "stats")
_REVERSE = ("reverse", "reversed", "reverses", "backwards", "invert", "inverted")
# Of QUANTITIES, the words asking for the text reordered rather than for a number: a field the
# goal names ("the lines") answers no such word.
REORDERINGS = frozenset({"reverse", "reversed", "backwards", "alphabetical", "alphabetically", "sorted"})
# Of QUANTITIES, the words asking one value across several results: each result's field the
# goal names ("the lines of a.txt and of b.txt") answers no such word either.
ACROSS = frozenset(_TOGETHER)
# Of QUANTITIES, those a count per result answers ("how many words are in a.txt and b.txt"):
# every other one ("the average word count of a.txt and b.txt") is one value of them all.
PER_RESULT = frozenset({"how many", "number of", "count", "length"})
QUANTITIES: Mapping[str, tuple[str, ...]] = {
    **dict.fromkeys(("largest", "biggest", "highest", "greatest", "maximum"), _MAX),
    **dict.fromkeys(("smallest", "lowest", "fewest", "minimum"), _MIN),
    **dict.fromkeys(("earliest", "oldest"), _EARLY),
    **dict.fromkeys(("latest", "newest"), _LATE),
    **dict.fromkeys(("average", "mean", "median"), _MEAN),
    **dict.fromkeys(("total", "sum"), _TOTAL),
    # "the difference between the line counts of a.txt and b.txt": one number of two.
    "difference": (*_ARITHMETIC, "difference", "diff", "minus", "subtract", "subtraction"),
    **dict.fromkeys(("how many", "number of"), _COUNT),
    # "how many lines do a.txt and b.txt have together": one total, not a count per file. Only
    # beside a count ("merge a.txt and b.txt together" asks for no number).
    **dict.fromkeys(_TOGETHER, _TOTAL),
    # "write the length of notes.txt": a number, not the text ("length" was written as the
    # whole file). "In reverse", "in alphabetical order": the text changed, not copied.
    "length": _COUNT,
    # "what percentage of the lines are empty": a share worked out, not the counts it is of.
    **dict.fromkeys(
        ("percentage", "proportion", "ratio"), (*_ARITHMETIC, "percentage", "percent", "ratio", "share")
    ),
    # "how big is report.md": its size, a number, not its text (the text was written, "succeeded").
    **dict.fromkeys(("how big", "how large"), _SIZE),
    **dict.fromkeys(("reverse", "reversed", "backwards"), _REVERSE),
    **dict.fromkeys(
        ("alphabetical", "alphabetically", "sorted"), (*_ORDERING, "alphabetical", "alphabetically")
    ),
    # "Count the guests …, save the count": the verb and its noun ask for a number as "how
    # many" does; "how many nights do they add up to" asks for a sum, wherever "add up" stands.
    "count": _COUNT,
    **dict.fromkeys(("add up", "sum up", "total up", "tot up"), _TOTAL),
    # "the larger of the line counts of a.txt and b.txt": one of two, as "the largest" is of
    # many. Only in that construction (``_COMPARED_RE``): "files larger than 5 KB" asks no value.
    **dict.fromkeys(_MORE, _MAX),
    **dict.fromkeys(_LESS, _MIN),
    # "double the line count of notes.txt", "twice the total": the value scaled, not as it is.
    # Only as a verb or before "the" (``_SCALED_RE``): "double rooms" asks for nothing.
    **dict.fromkeys(_SCALINGS, (*_ARITHMETIC, "double", "triple", "multiply", "times", "product", "half")),
    # "write notes.txt in upper case to up.txt": the text changed, not copied (it was copied
    # and the run said succeeded). Said as a manner (``_CASED_RE``), not only as a verb.
    "uppercase": _UPPER,
    "lowercase": ("lowercase", "lowercased", "lower"),
}
_COMPARED_RE = re.compile(rf"\bthe\s+({'|'.join((*_MORE, *_LESS))})\s+(?:one\s+)?of\b")
_SCALED_RE = re.compile(rf"\b({'|'.join(_SCALINGS)})\s+(?:the|its|their|that|this|it)\b")
# Of QUANTITIES, the words asking a value scaled, or a text's case changed: a field the goal
# names answers none of them.
SCALED = frozenset((*_SCALINGS, "uppercase", "lowercase"))
# A text's case said as a manner: "in upper case", "in capital letters", "to lowercase".
_CASED_RE = re.compile(
    r"\b(?:in|to|into)\s+(?:all\s+)?(?:(upper|lower)[\s-]?case|(capitals|capital\s+letters|caps))\b"
)
_QUANTITY_RE = re.compile(
    r"\b(how many|how big|how large|number of"
    r"|(?:add|sum|total|tot)(?:s|ed|ted|med|ing|ting|ming)? up|[a-z]+)\b"
)
# A phrasal verb's inflected form ("adds up", "added up") asks what its base form does.
_PHRASAL_BASE_RE = re.compile(r"^(add|sum|total|tot)\w* up$")
# An item picked by its place ("the first line of notes.txt", "its last word"): the ordinal
# before a noun, with the words a step that picks it would be known by. Before a verb or a
# comma "first" orders the goal's clauses ("first read a.txt, then …") and asks for nothing.
_FIRST = ("first", "head", "top", "start", "begin", "beginning", "earliest", "opening", "leading")
_LAST = ("last", "tail", "end", "final", "latest", "closing", "trailing")
ITEM_ORDINALS: Mapping[str, tuple[str, ...]] = {
    "first": _FIRST,
    "last": _LAST,
    "final": _LAST,
    # Counted from 1 or from 0 (a column's index): either number names the place.
    **{
        w: (w, str(n), str(n - 1), "nth", "index")
        for n, w in enumerate(("second", "third", "fourth", "fifth"), 2)
    },
    "longest": ("longest", "long", "length", *_MAX),
    "shortest": ("shortest", "short", "length", *_MIN),
}
_ITEM_RE = re.compile(r"\b(" + "|".join(ITEM_ORDINALS) + r")\s+([a-z]+)\b")


def asked_quantities(text: str) -> list[str]:
    """The words of ``text`` (a goal with its literals blanked) that ask for a computed value,
    in order, each once."""
    out: list[str] = []
    lowered = _CASED_RE.sub(lambda m: f" {(m.group(1) or 'upper')}case ", text.lower())
    compared = {m.start(1) for m in _COMPARED_RE.finditer(lowered)}
    scaled = {m.start(1) for m in _SCALED_RE.finditer(lowered)}
    for match in _QUANTITY_RE.finditer(lowered):
        word = _PHRASAL_BASE_RE.sub(r"\1 up", match.group(1))
        if word in (*_MORE, *_LESS) and match.start(1) not in compared:
            continue  # "larger than 5 KB": a bound, no value asked for
        if word in _SCALINGS and match.start(1) not in scaled:
            continue  # "double rooms": a kind of room, no value asked for
        if word in QUANTITIES and word not in out:
            out.append(word)
    counted = any(w in out for w in ("how many", "number of", "count"))
    return [w for w in out if w not in _TOGETHER or counted]


def asked_items(text: str) -> list[tuple[str, str]]:
    """(ordinal, noun) pairs of ``text`` (a goal with its literals blanked) that pick an item by
    its place ("first line"), in order; not before a verb ("first read …")."""
    out: list[tuple[str, str]] = []
    lowered = text.lower()
    for match in _ITEM_RE.finditer(lowered):
        ordinal, noun = match.groups()
        if noun in ("line", "lines") and re.search(r"\bon\s+(?:the\s+)?\Z", lowered[: match.start()]):
            continue  # "write it on the first line of out.txt": where it goes, no line asked for
        if noun in ACTIONS or noun in NOT_ACTIONS or noun in GENERIC_VERBS or noun in LEAD_FILLERS:
            continue
        if (ordinal, noun) not in out:
            out.append((ordinal, noun))
    return out


# A full stop after a single capital is an initial ("Ursula K. Le Guin"), not a sentence's end.
CLAUSE_SPLIT = re.compile(r"(?:[,;]|:(?=\s)|(?<!\b[A-Z])\.(?=\s|$)|\b(?:and then|and|then)\b)", re.IGNORECASE)
LEAD_FILLERS = frozenset({"please", "then", "also", "now", "first", "finally", "next", "just", "and"})
_TOKEN = re.compile(r"[a-z0-9]+")
INFLECTION = re.compile(r"(?:ies|es|s)$")


def _tokens(text: str) -> set[str]:
    out: set[str] = set()
    for token in _TOKEN.findall(text.lower().replace("_", " ").replace("-", " ")):
        out.add(token)
        if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
            out.add(token[:-1])  # "sends" -> "send", "deletes" -> "delete"
    return out


def words_of(value: object) -> set[str]:
    """The words of a plan value as ``tool_tokens`` reads a tool's (none unless a string)."""
    return _tokens(value) if isinstance(value, str) else set()


def _schema_names(schema: object) -> list[str]:
    if not isinstance(schema, Mapping):
        return []
    props = schema.get("properties")
    return [str(k) for k in props] if isinstance(props, Mapping) else []


def tool_tokens(spec: ToolSpec) -> set[str]:
    """The words a tool is known by: its name, description and parameter names."""
    return _tokens(" ".join([spec.name, spec.description or "", *_schema_names(spec.input_schema)]))


# Words that open a clause without asking for an action: questions, auxiliaries, pronouns and
# determiners ("what is 2 ** 10", "how many lines …", "is there …"), and generic verbs that ask
# for nothing a tool must name ("show", "read", "list": any tool that returns something does it).
NOT_ACTIONS = frozenset(
    """
    what how which who whom whose where when why whether is are was were be do does did can
    could would should will shall may might must i we you me my our your the a an there it its
    this that these those if all each every some any no one
    including excluding regarding concerning
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
GENERIC_VERBS = frozenset(
    """
    get show tell give print read display return find look see view report output list
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
# Where a verb's object ends: the first preposition or conjunction after it.
_OBJECT_END = re.compile(
    r"\s+(?:in|inside|from|of|for|to|into|with|as|on|at|by|about|and|then|using|via)\b.*$",
    re.IGNORECASE,
)


# A capitalised word closing a name that labels its sentence: "Shah:", "Okafor's".
_NAME_LABEL = re.compile(r"[A-Z][\w-]*(?::|['’]s)")


_QUOTED_TEXT_RE = re.compile(r'"[^"\n]*"|“[^”\n]*”')


def clause_actions(goal: str) -> list[tuple[str, str]]:
    """(verb, object phrase) for each clause of ``goal`` that opens with a word asking for an
    action: not a question word, auxiliary, pronoun or determiner, and not a generic verb."""
    out: list[tuple[str, str]] = []
    start = 0
    # Quoted text is what is written, not clauses of the goal ("that says "Side B, track 3"").
    quoted = [m.span() for m in _QUOTED_TEXT_RE.finditer(goal)]
    splits = [d for d in CLAUSE_SPLIT.finditer(goal) if not any(a < d.start() < b for a, b in quoted)]
    for delimiter in [*splits, None]:
        end = len(goal) if delimiter is None else delimiter.start()
        clause, opens_sentence = goal[start:end], start == 0 or goal[start - 1] in ".;:!?"
        # A clause that opens with quoted text is that text ('a.txt: "Feed the cat"'), no action.
        lead = start + len(clause) - len(clause.lstrip())
        start = end if delimiter is None else delimiter.end()
        if any(a <= lead < b for a, b in quoted):
            continue
        words = clause.split()
        while words and words[0].lower() in LEAD_FILLERS:
            words = words[1:]
        if not words:
            continue
        if words[0][:1].isupper() and not opens_sentence:
            continue  # a capitalised word inside a sentence is a name ("Paris, Berlin and Rome together")
        labels = delimiter is not None and delimiter.group(0).strip() == ":"
        if (
            len(words) > 1
            and words[0][:1].isupper()
            and (_NAME_LABEL.fullmatch(words[1]) or (labels and all(w[:1].isupper() for w in words)))
        ):
            continue  # a name labelling its sentence ("Priya Shah: how many …", "Tom Okafor's loans")
        verb, rest = clause_verb(words)
        if not verb.replace(" ", "").isalpha() or verb in NOT_ACTIONS or verb in GENERIC_VERBS:
            continue
        obj = _OBJECT_END.sub("", " ".join(rest)).strip(" \"'?!.")
        out.append((verb, obj))
    return out


def clause_verb(words: list[str]) -> tuple[str, list[str]]:
    """The verb a clause opens with (lower-cased; a phrasal verb as "verb particle") and the
    words after it. A phrasal verb that only shows or finds out is reported as "show"."""
    verb = words[0].lower().strip("\"'?!.")
    if len(words) > 1:
        pair = f"{verb} {words[1].lower().strip(',.;:!?')}"
        if pair in PHRASAL:
            return pair, words[2:]
        if pair in GENERIC_PHRASAL:
            return "show", words[2:]
    return verb, words[1:]


def names_action(verb: str, tokens: set[str]) -> bool:
    """Whether a tool known by ``tokens`` is named for ``verb`` (or one of its synonyms)."""
    words = set(ACTIONS.get(verb, (verb,)))
    stem = INFLECTION.sub("", verb)
    words |= {verb, stem} if len(stem) > 2 else {verb}
    return bool(words & tokens)


_OBJECT_STOP = frozenset(
    """
    the a an of all every each some any this that these those it its their them my our your
    """.split()  # noqa: SIM905 (a word list reads better as words)
)


def object_words(obj: str) -> set[str]:
    """The words of a verb's object a tool could be named for (no determiners, no numbers)."""
    return {w for w in _tokens(obj) if w not in _OBJECT_STOP and not w.isdigit()}
