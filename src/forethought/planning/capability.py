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
from forethought.plan.verbs import (
    ACTIONS,
    CLAUSE_SPLIT,
    INFLECTION,
    LEAD_FILLERS,
    SYNONYMS,
    clause_verb,
    tool_tokens,
)


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
    action it asks for that no tool mentions (``missing_actions``), then each value of the
    moment it asks for that no tool mentions (``missing_live_values``)."""
    out = missing_effects(goal, specs)
    verbs = {m.verb for m in out}
    out += [m for m in missing_actions(goal, specs) if m.verb not in verbs]
    return out + missing_live_values(goal, specs)


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
    for clause in CLAUSE_SPLIT.split(goal):
        words = clause.split()
        while words and words[0].lower() in LEAD_FILLERS:
            words = words[1:]
        if not words:
            continue
        verb, rest = clause_verb(words)
        if verb not in ACTIONS or any(v.verb == verb for v in out):
            continue
        if any(set(ACTIONS[verb]) & tokens for tokens in known):
            continue
        target = " ".join(rest).strip(" \"'")
        out.append(MissingCapability(verb, target[:60] or verb, available))
    return out
