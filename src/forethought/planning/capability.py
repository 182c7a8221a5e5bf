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
impossible.

The check is conservative in one direction: a match only says "some tool mentions this kind of
effect", never that the plan will use it (that is the coverage check's job).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from forethought.plan.coverage import _goal_effects, goal_literals
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
}
# Verbs that open a clause and ask for an action, with the words a tool that does it would be
# known by. A verb absent from this table is not judged. Generic verbs ("get", "show", "tell",
# "give", "print", "read", "do") ask for nothing a tool must name ("print" mostly means "show";
# a tool that fetches, loads or queries also "reads"), so they are absent too.
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
}
_CLAUSE_SPLIT = re.compile(r"(?:[,;]|:(?=\s)|\.(?=\s|$)|\b(?:and then|and|then)\b)", re.IGNORECASE)
_LEAD_FILLERS = frozenset({"please", "then", "also", "now", "first", "finally", "next", "just", "and"})
_TOKEN = re.compile(r"[a-z0-9]+")
_INFLECTION = re.compile(r"(?:ies|es|s)$")


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
    stem = _INFLECTION.sub("", word)
    for candidate in (stem, word[:-1]):
        if candidate in SYNONYMS:
            return candidate
    return word


def _tokens(text: str) -> set[str]:
    out: set[str] = set()
    for token in _TOKEN.findall(text.lower().replace("_", " ").replace("-", " ")):
        out.add(token)
        if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
            out.add(token[:-1])  # "sends" -> "send", "deletes" -> "delete"
    return out


def _schema_names(schema: object) -> list[str]:
    if not isinstance(schema, Mapping):
        return []
    props = schema.get("properties")
    return [str(k) for k in props] if isinstance(props, Mapping) else []


def tool_tokens(spec: ToolSpec) -> set[str]:
    """The words a tool is known by: its name, description and parameter names."""
    return _tokens(" ".join([spec.name, spec.description or "", *_schema_names(spec.input_schema)]))


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
    action it asks for that no tool mentions (``missing_actions``)."""
    out = missing_effects(goal, specs)
    verbs = {m.verb for m in out}
    return out + [m for m in missing_actions(goal, specs) if m.verb not in verbs]


def missing_effects(goal: str, specs: Mapping[str, ToolSpec]) -> list[MissingCapability]:
    """Each effect ``goal`` asks for that no side-effecting tool in ``specs`` mentions."""
    effects = _goal_effects(goal, goal_literals(goal))
    verbs = {_base_verb(how) for how, _ in effects}
    effects += [(verb, target) for verb, target in _clause_effects(goal) if verb not in verbs]
    if not effects:
        return []
    effectful = [tool_tokens(s) for s in specs.values() if s.effect != "read_only"]
    available: Sequence[str] = tuple(sorted(specs))
    out: list[MissingCapability] = []
    seen: set[str] = set()
    for how, target in effects:
        verb = _base_verb(how)
        words = set(SYNONYMS.get(verb, (verb,)))
        if any(words & tokens for tokens in effectful) or target in seen:
            continue
        seen.add(target)
        out.append(MissingCapability(verb, target, tuple(available)))
    return out


def missing_actions(goal: str, specs: Mapping[str, ToolSpec]) -> list[MissingCapability]:
    """Each clause of ``goal`` opening with an action verb that no tool in ``specs`` mentions."""
    known = [tool_tokens(s) for s in specs.values()]
    available = tuple(sorted(specs))
    out: list[MissingCapability] = []
    for clause in _CLAUSE_SPLIT.split(goal):
        words = clause.split()
        while words and words[0].lower() in _LEAD_FILLERS:
            words = words[1:]
        if not words:
            continue
        verb = words[0].lower()
        if verb not in ACTIONS or any(v.verb == verb for v in out):
            continue
        if any(set(ACTIONS[verb]) & tokens for tokens in known):
            continue
        target = " ".join(words[1:]).strip(" \"'")
        out.append(MissingCapability(verb, target[:60] or verb, available))
    return out
