"""Secret redaction, applied to every event before it is stored and to anything we print.

Tool outputs and model transcripts routinely contain credentials (a `cat .env`, an HTTP client
echoing its headers, a model repeating a key it was shown). Once a secret is in the run database
it is in backups, bug reports and `forethought show` screenshots, so we scrub it on the way in:
the store never sees it, and its WAL file never holds it either.

Two sources of truth:

- well-known token shapes (OpenAI, Anthropic, GitHub, AWS, Slack, Google, Stripe, bearer tokens,
  JWTs, PEM private keys, passwords in URLs) and assignments such as ``password: X``, ``pw=X``
  or ``"password": "X"`` (``forethought.plan.secret_shapes``, shared with plan validation), and
- the *values* of environment variables whose names look secret (``KEY``, ``TOKEN``, ``SECRET``,
  ``PASSWORD``, …) plus any configured names (``FORETHOUGHT_REDACT_ENV=NAME1,NAME2``), the names
  plans may reference (``FORETHOUGHT_SECRETS``) and values registered at run time
  (``register_secret``, for every resolved ``${env.NAME}``): whatever the value looks like, if a
  tool prints it, plainly, base64- or URL-encoded, it is replaced.

Each match becomes ``[REDACTED:<kind>]``. Redaction is deliberately over-eager: a false positive
costs a few characters of an audit log, a false negative leaks a credential.
"""

from __future__ import annotations

import base64
import json
import re
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from forethought.events.kinds import Event, event_from_dict, event_to_dict
from forethought.plan.model import Plan
from forethought.plan.secret_shapes import (
    ANCHORS,
    ASSIGNMENT,
    ASSIGNMENT_PREFIX,
    MIN_ENV_SECRET_LEN,
    PATTERNS,
    secret_env_values,
)

_PATTERNS = PATTERNS

# Fields of an event that are structure, not payload: never rewritten (they key the store).
_STRUCTURAL = frozenset({"kind", "run_id", "seq", "ts", "plan_version"})

# A cheap screen over an event's JSON text, lower-cased: every pattern above starts with (or
# contains) one of these literals, and JSON escaping only touches quotes, backslashes and control
# characters, which none of them contain. No anchor in the text → the event is clean and passes
# through unwalked (the common case, ~10x cheaper); an anchor (or a false positive such as
# "task-" for "sk-") → the full walk. Substring tests beat a regex alternation here by ~10x.
_ANCHORS = ANCHORS

_PREFIXED = {
    "bearer": re.compile(r"(?i:\bbearer\s+)"),
    "aws_secret_access_key": re.compile(r"(?i:aws_?secret_?access_?key)[\"']?\s*[:=]\s*[\"']?"),
}
_ASSIGNMENT_PREFIX = re.compile(ASSIGNMENT_PREFIX)
# Mappings up to this size are screened entry by entry rather than encoded whole first.
_SCREEN_EACH_UP_TO = 32
_ASSIGNMENT = re.compile(ASSIGNMENT[1])
# Strings up to this length are redacted once per ``Redactor.redact`` call (``Redactor._text``).
_MEMO_UP_TO_CHARS = 256
_NO_TEXT = frozenset({int, float, bool, type(None)})
# Rows of a table (a run summary's steps) screened per JSON text (``Redactor._clean_table``).
_TABLE_SLICE_ROWS = 2048


@dataclass(frozen=True)
class Redactor:
    """Replaces secrets in strings and JSON-like data; immutable and safe to share."""

    regex: re.Pattern[str]
    kinds: tuple[str, ...]
    anchors: tuple[str, ...] | None = None  # None: no screen, always walk
    # ``password = value`` assignments: a second pass over what ``regex`` left, so a known
    # secret in an assignment is removed whole (and named) by the first, and the second skips it.
    assignment: re.Pattern[str] | None = None

    def might_contain_secret(self, json_text: str) -> bool:
        """False only if no secret can be inside this JSON text (see ``_ANCHORS``)."""
        if self.anchors is None:
            return True
        # casefold, not lower: it maps what the patterns' case-blind matching equates with ASCII
        # letters (the long s, the Kelvin sign) to them, so the screen sees those too.
        low = json_text.casefold()
        for anchor in self.anchors:  # noqa: SIM110 (any() over a generator costs ~2x per event)
            if anchor in low:
                return True
        return False

    def redact_text(self, text: str) -> str:
        # The screen holds for plain text as for JSON: the anchors include each literal as is.
        if not self.might_contain_secret(text):
            return text
        text = self.regex.sub(self._replace, text)
        if self.assignment is not None:
            text = self.assignment.sub(self._replace_assignment, text)
        return text

    def _replace(self, match: re.Match[str]) -> str:
        group = match.lastgroup or ""
        kind = self.kinds[int(group[1:])]
        text = match.group(0)
        prefix = _PREFIXED.get(kind)
        if prefix is not None:
            # Keep "Bearer " / "aws_secret_access_key=" so the reader sees what was removed.
            head = prefix.match(text)
            if head:
                return text[: head.end()] + f"[REDACTED:{kind}]"
        return f"[REDACTED:{kind}]"

    @staticmethod
    def _replace_assignment(match: re.Match[str]) -> str:
        """``password: "X"`` → ``password: "[REDACTED:password]"`` (key and quotes kept)."""
        text = match.group(0)
        head = _ASSIGNMENT_PREFIX.match(text)
        cut = head.end() if head else 0
        value = text[cut:]
        quote = value[0] if len(value) >= 2 and value[0] in "\"'" and value[-1] == value[0] else ""
        return text[:cut] + quote + f"[REDACTED:{ASSIGNMENT[0]}]" + quote

    def redact(self, value: Any) -> Any:
        """A redacted copy of JSON-like data (dict keys included); unchanged parts are shared.

        Screened like events, level by level: a part whose JSON text holds no anchor is clean
        and passes unwalked, so a run summary of 100,000 steps whose only anchor is its
        ``tokens`` key costs one pass of the JSON encoder per level, not a regex per string.
        """
        return self._screened(value, {})[0]

    def _text(self, value: str, memo: dict[str, str]) -> tuple[str, bool]:
        # Redacting a string is a pure function of the string (for this redactor), and the
        # strings of one piece of data repeat: the same dozen keys and statuses in every entry
        # of a run summary. Short ones are redacted once per ``redact`` call.
        if len(value) > _MEMO_UP_TO_CHARS:
            new = self.redact_text(value)
        else:
            known = memo.get(value)
            if known is None:
                known = memo[value] = self.redact_text(value)
            new = known
        return new, new != value

    def _screened(self, value: Any, memo: dict[str, str]) -> tuple[Any, bool]:
        if not isinstance(value, (dict, list, tuple)):
            return self._walk(value, memo)
        if isinstance(value, dict) and len(value) <= _SCREEN_EACH_UP_TO:
            # A small mapping (a run summary, an event's payload) is screened key by key and
            # value by value: encoding it whole first would encode its big values twice whenever
            # a key alone trips the screen ("tokens" holds the anchor "token").
            return self._walk_mapping(value, memo)
        if isinstance(value, dict):
            rows = list(value.values())
            if all(type(row) is dict for row in rows):
                # A table (a run summary's steps): its rows' keys trip the screen in every row.
                if self._clean_table(value, rows, memo):
                    return value, False
                return self._walk_mapping(value, memo)
        try:
            text = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError, RecursionError):  # not JSON-like after all: walk it all
            return self._walk(value, memo)
        if not self.might_contain_secret(text):
            return value, False
        if isinstance(value, dict):
            return self._walk_mapping(value, memo)
        items = [self._screened(v, memo) for v in value]
        if any(c for _, c in items):
            return [v for v, _ in items], True
        return value, False

    def _clean_table(self, table: dict[Any, Any], rows: list[dict[Any, Any]], memo: dict[str, str]) -> bool:
        """Whether a mapping of mappings holds no secret, its keys screened apart from its values.

        Its keys and its rows' keys are few distinct strings (``tokens`` trips the screen in
        every row of a run summary): each distinct one is redacted exactly, once. The rows'
        values are screened as one JSON text without their keys. Any doubt: False (walk it).
        """
        keys = [k for k in table if isinstance(k, str)]
        # Every key stands verbatim in the joined text: no anchor there, none in any key.
        if keys and self.might_contain_secret("\n".join(keys)) and any(self._text(k, memo)[1] for k in keys):
            return False
        if any(self._text(k, memo)[1] for k in set().union(*rows) if isinstance(k, str)):
            return False
        # A slice of rows at a time: each value lies whole in one slice's text, so no anchor in
        # any slice means none in any value; and the text of a 100,000-step summary's values, its
        # casefolded copy and the lists they come from are never held at once (~35 MB).
        for start in range(0, len(rows), _TABLE_SLICE_ROWS):
            try:
                text = json.dumps(
                    [list(row.values()) for row in rows[start : start + _TABLE_SLICE_ROWS]],
                    ensure_ascii=False,
                    default=str,
                )
            except (TypeError, ValueError, RecursionError):
                return False
            if self.might_contain_secret(text):
                return False
        return True

    def _walk(self, value: Any, memo: dict[str, str]) -> tuple[Any, bool]:
        if isinstance(value, str):
            return self._text(value, memo)
        if isinstance(value, dict):
            changed = False
            out: dict[Any, Any] = {}
            for k, v in value.items():
                nk, ck = self._text(k, memo) if isinstance(k, str) else (k, False)
                nv, cv = self._walk(v, memo)
                out[nk] = nv
                changed = changed or ck or cv
            return (out, True) if changed else (value, False)
        if isinstance(value, (list, tuple)):
            items = [self._walk(v, memo) for v in value]
            if any(c for _, c in items):
                return [v for v, _ in items], True
            return value, False
        return value, False

    def _walk_mapping(self, value: dict[Any, Any], memo: dict[str, str]) -> tuple[Any, bool]:
        changed = False
        out: dict[Any, Any] = {}
        for k, v in value.items():
            nk, ck = self._text(k, memo) if isinstance(k, str) else (k, False)
            # Numbers, booleans and None hold no text: most values of a run summary's entries.
            nv, cv = (v, False) if type(v) in _NO_TEXT else self._screened(v, memo)
            out[nk] = nv
            changed = changed or ck or cv
        return (out, True) if changed else (value, False)

    def redact_event(self, event: Event, texts: Mapping[str, str] | None = None) -> Event:
        """The event with secrets removed from every payload field; the same object if clean.

        Each payload field's JSON text is screened on its own (the argument of ``_ANCHORS``
        holds per field as for the whole text): a short field holding an anchor (a
        plan_proposed's ``source: "api"``) does not send a 10,000-step plan through the walk,
        and a clean event is encoded once, field by field, as the store's screen encodes it.

        ``texts``: JSON text of some fields' values that the caller has already (any key order,
        ``ensure_ascii`` off or on), screened instead of encoding those fields again — a
        ``plan_proposed``'s plan is the plan's canonical text (``Plan.canonical_json``).
        """
        given = texts or {}
        tripped = {
            key
            for key in type(event).model_fields
            if key not in _STRUCTURAL
            and self.might_contain_secret(
                given[key] if key in given else event.model_dump_json(include={key})
            )
        }
        if not tripped:
            return event
        memo: dict[str, str] = {}
        news: dict[str, Any] = {}
        for key, value in event.model_dump(mode="json", include=tripped).items():
            new, c = self._screened(value, memo)
            if c:
                news[key] = new
        if not news:
            return event
        return event_from_dict({**event_to_dict(event), **news})


def _base64_cores(value: bytes) -> set[str]:
    """The base64 text that ``value`` always encodes to, wherever it sits in a larger stream.

    Base64 works on 3-byte groups, so a value at offset 0, 1 or 2 (mod 3) encodes differently;
    for each offset keep the characters made only of the value's own bits. Both alphabets.
    """
    out: set[str] = set()
    for k in range(3):
        enc = base64.b64encode(b"\0" * k + value + b"\0\0").decode()
        first = -(-8 * k // 6)
        last = (8 * (k + len(value)) - 6) // 6
        core = enc[first : last + 1]
        if len(core) >= MIN_ENV_SECRET_LEN:
            out.add(core)
            out.add(core.replace("+", "-").replace("/", "_"))
    whole = base64.b64encode(value).decode()
    out |= {whole, base64.urlsafe_b64encode(value).decode()}
    return out


def _encoded_forms(kind: str, value: str) -> list[tuple[str, str]]:
    """``value`` as a tool may print it: base64 (any alignment, either alphabet), URL-encoded."""
    raw = value.encode()
    forms = [(f"{kind}:base64", form) for form in _base64_cores(raw)]
    forms += [
        (f"{kind}:url", form)
        for form in {
            urllib.parse.quote(value, safe=""),
            urllib.parse.quote(value),
            urllib.parse.quote_plus(value),
        }
    ]
    return [(k, f) for k, f in forms if f != value]


def make_redactor(
    *,
    env: Mapping[str, str] | None = None,
    env_names: Iterable[str] = (),
    values: Mapping[str, str] | None = None,
    patterns: bool = True,
) -> Redactor:
    """Build a redactor from the token patterns, secret-looking env vars and explicit values.

    ``values`` maps a kind name to a literal secret (e.g. a key read from a config file). Each
    literal is also found base64- and URL-encoded.
    """
    plain: list[tuple[str, str]] = [
        (f"env:{name}", value) for name, value in secret_env_values(env, env_names).items()
    ]
    plain += [(kind, v) for kind, v in (values or {}).items() if v]
    literals = list(plain)
    for kind, v in plain:
        literals += _encoded_forms(kind, v)
    # Longest literal first, so a secret containing another secret is removed whole.
    literals = sorted(dict.fromkeys(literals), key=lambda kv: -len(kv[1]))
    alternatives: list[tuple[str, str]] = [(k, re.escape(v)) for k, v in literals]
    if patterns:
        alternatives += list(_PATTERNS)
    if not alternatives:
        alternatives = [("never", r"(?!x)x")]
    kinds = tuple(k for k, _ in alternatives)
    regex = re.compile("|".join(f"(?P<g{i}>{rx})" for i, (_, rx) in enumerate(alternatives)))
    # Literals as they appear inside JSON text too (quotes, backslashes, control characters).
    anchors = {
        form.lower()
        for _, v in literals
        for form in (v, json.dumps(v, ensure_ascii=False)[1:-1], json.dumps(v)[1:-1])
    }
    if patterns:
        anchors |= set(_ANCHORS)
    return Redactor(
        regex=regex,
        kinds=kinds,
        anchors=tuple(sorted(anchors, key=len)),
        assignment=_ASSIGNMENT if patterns else None,
    )


_default: Redactor | None = None
_registered: dict[str, str] = {}
# Shorter registered values would redact ordinary fragments of every output.
MIN_REGISTERED_LEN = 4


def register_secret(name: str, value: str) -> None:
    """Treat ``value`` as a secret for the rest of this process (e.g. a ``${env.NAME}`` value).

    From now on the default redactor removes it, and its base64 and URL-encoded forms, from
    everything stored or printed, as ``[REDACTED:env:NAME]``.
    """
    global _default
    if len(value) < MIN_REGISTERED_LEN or _registered.get(name) == value:
        return
    _registered[name] = value
    _default = None


def default_redactor() -> Redactor:
    """The process-wide redactor: patterns, this process's secret env vars, registered secrets.

    Built once, and again after ``register_secret`` adds a value.
    """
    global _default
    if _default is None:
        _default = make_redactor(values={f"env:{n}": v for n, v in _registered.items()})
    return _default


def redact_text(text: str) -> str:
    """Scrub one string for printing (CLI output, logs)."""
    return default_redactor().redact_text(text)


RedactFn = Callable[[Event], Event]


def redact_goal(goal_or_plan: str | Plan) -> str | Plan:
    """A goal (or a plan's goal) as it may be stored, shown and sent to a model.

    Goals are free text from a person or a pull request; the token someone pasted into one is
    removed before the run is created, so the plan, its hash and its approval are of the
    redacted goal and nothing downstream ever sees the secret.
    """
    if isinstance(goal_or_plan, str):
        return redact_text(goal_or_plan)
    goal = redact_text(goal_or_plan.goal)
    if goal == goal_or_plan.goal:
        return goal_or_plan
    return Plan.model_validate({**goal_or_plan.to_data(), "goal": goal})


__all__ = [
    "Redactor",
    "default_redactor",
    "make_redactor",
    "redact_goal",
    "redact_text",
    "register_secret",
    "secret_env_values",
]
