"""Secret redaction, applied to every event before it is stored and to anything we print.

Tool outputs and model transcripts routinely contain credentials (a `cat .env`, an HTTP client
echoing its headers, a model repeating a key it was shown). Once a secret is in the run database
it is in backups, bug reports and `forethought show` screenshots, so we scrub it on the way in:
the store never sees it, and its WAL file never holds it either.

Two sources of truth:

- well-known token shapes (OpenAI, Anthropic, GitHub, AWS, Slack, Google, Stripe, bearer tokens,
  JWTs, PEM private keys, passwords in URLs), and
- the *values* of environment variables whose names look secret (``KEY``, ``TOKEN``, ``SECRET``,
  ``PASSWORD``, …) plus any configured names (``FORETHOUGHT_REDACT_ENV=NAME1,NAME2``): whatever
  the value looks like, if a tool prints it, it is replaced.

Each match becomes ``[REDACTED:<kind>]``. Redaction is deliberately over-eager: a false positive
costs a few characters of an audit log, a false negative leaks a credential.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from forethought.events.kinds import Event, event_from_dict, event_to_dict

# (kind, regex). Order matters where shapes overlap: sk-ant- before sk-.
_PATTERNS: tuple[tuple[str, str], ...] = (
    (
        "pem_private_key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    ),
    ("anthropic_key", r"sk-ant-[A-Za-z0-9_\-]{16,}"),
    ("openai_key", r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    ("github_token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"),
    ("aws_access_key_id", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    ("aws_secret_access_key", r"(?i:aws_?secret_?access_?key)[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9/+=]{40}"),
    ("slack_token", r"\bxox[abposre]-[A-Za-z0-9\-]{10,}"),
    ("slack_webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]+"),
    ("google_api_key", r"\bAIza[0-9A-Za-z_\-]{35}"),
    ("stripe_key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("jwt", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    ("bearer", r"(?i:\bbearer\s+)[A-Za-z0-9\-._~+/]{16,}=*"),
    ("url_password", r"(?<=://)[^/\s:@]{1,128}:[^/\s@]{1,256}(?=@)"),
)

# Names whose values we treat as secrets; any name containing one of these words.
SECRET_NAME_RE = re.compile(
    r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|PRIVATE|AUTH", re.IGNORECASE
)
# Environment variables that match SECRET_NAME_RE but hold no secret (paths, sockets, layouts).
_NOT_SECRET_NAMES = frozenset(
    {"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "XAUTHORITY", "KEYTIMEOUT", "XKB_DEFAULT_LAYOUT", "KEYMAP"}
)
# Shorter values would redact ordinary words ("true", "admin"); env secrets are longer than this.
MIN_ENV_SECRET_LEN = 8
CONFIG_ENV = "FORETHOUGHT_REDACT_ENV"

# Fields of an event that are structure, not payload: never rewritten (they key the store).
_STRUCTURAL = frozenset({"kind", "run_id", "seq", "ts", "plan_version"})

# A cheap screen over an event's JSON text, lower-cased: every pattern above starts with (or
# contains) one of these literals, and JSON escaping only touches quotes, backslashes and control
# characters, which none of them contain. No anchor in the text → the event is clean and passes
# through unwalked (the common case, ~10x cheaper); an anchor (or a false positive such as
# "task-" for "sk-") → the full walk. Substring tests beat a regex alternation here by ~10x.
_ANCHORS: tuple[str, ...] = (
    "private key",
    "sk-",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "akia",
    "asia",
    "abia",
    "acca",
    "aws",
    "xox",
    "hooks.slack.com",
    "aiza",
    "k_live_",
    "k_test_",
    "eyj",
    "bearer",
    "://",
)

_PREFIXED = {
    "bearer": re.compile(r"(?i:\bbearer\s+)"),
    "aws_secret_access_key": re.compile(r"(?i:aws_?secret_?access_?key)[\"']?\s*[:=]\s*[\"']?"),
}


@dataclass(frozen=True)
class Redactor:
    """Replaces secrets in strings and JSON-like data; immutable and safe to share."""

    regex: re.Pattern[str]
    kinds: tuple[str, ...]
    anchors: tuple[str, ...] | None = None  # None: no screen, always walk

    def might_contain_secret(self, json_text: str) -> bool:
        """False only if no secret can be inside this JSON text (see ``_ANCHORS``)."""
        if self.anchors is None:
            return True
        low = json_text.lower()
        return any(a in low for a in self.anchors)

    def redact_text(self, text: str) -> str:
        return self.regex.sub(self._replace, text)

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

    def redact(self, value: Any) -> Any:
        """A redacted copy of JSON-like data (dict keys included); unchanged parts are shared."""
        return self._walk(value)[0]

    def _walk(self, value: Any) -> tuple[Any, bool]:
        if isinstance(value, str):
            new = self.regex.sub(self._replace, value)
            return new, new != value
        if isinstance(value, dict):
            changed = False
            out: dict[Any, Any] = {}
            for k, v in value.items():
                nk, ck = self._walk(k) if isinstance(k, str) else (k, False)
                nv, cv = self._walk(v)
                out[nk] = nv
                changed = changed or ck or cv
            return (out, True) if changed else (value, False)
        if isinstance(value, (list, tuple)):
            items = [self._walk(v) for v in value]
            if any(c for _, c in items):
                return [v for v, _ in items], True
            return value, False
        return value, False

    def redact_event(self, event: Event) -> Event:
        """The event with secrets removed from every payload field; the same object if clean."""
        if not self.might_contain_secret(event.model_dump_json()):
            return event  # the common case, ~10x cheaper than walking the payload
        data = event_to_dict(event)
        changed = False
        for key, value in data.items():
            if key in _STRUCTURAL:
                continue
            new, c = self._walk(value)
            if c:
                data[key] = new
                changed = True
        return event_from_dict(data) if changed else event


def secret_env_values(env: Mapping[str, str] | None = None, names: Iterable[str] = ()) -> dict[str, str]:
    """Name → value of the environment variables whose values must never be stored."""
    env = os.environ if env is None else env
    wanted = {n.strip() for n in names if n.strip()}
    wanted |= {n.strip() for n in env.get(CONFIG_ENV, "").split(",") if n.strip()}
    out: dict[str, str] = {}
    for name, value in env.items():
        if name == CONFIG_ENV or len(value) < MIN_ENV_SECRET_LEN:
            continue
        if name in wanted or (SECRET_NAME_RE.search(name) and name not in _NOT_SECRET_NAMES):
            out[name] = value
    return out


def make_redactor(
    *,
    env: Mapping[str, str] | None = None,
    env_names: Iterable[str] = (),
    values: Mapping[str, str] | None = None,
    patterns: bool = True,
) -> Redactor:
    """Build a redactor from the token patterns, secret-looking env vars and explicit values.

    ``values`` maps a kind name to a literal secret (e.g. a key read from a config file).
    """
    literals: list[tuple[str, str]] = [
        (f"env:{name}", value) for name, value in secret_env_values(env, env_names).items()
    ]
    literals += [(kind, v) for kind, v in (values or {}).items() if v]
    # Longest literal first, so a secret containing another secret is removed whole.
    literals.sort(key=lambda kv: -len(kv[1]))
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
    return Redactor(regex=regex, kinds=kinds, anchors=tuple(sorted(anchors, key=len)))


_default: Redactor | None = None


def default_redactor() -> Redactor:
    """The process-wide redactor (patterns + this process's secret env vars), built once."""
    global _default
    if _default is None:
        _default = make_redactor()
    return _default


def redact_text(text: str) -> str:
    """Scrub one string for printing (CLI output, logs)."""
    return default_redactor().redact_text(text)


RedactFn = Callable[[Event], Event]

__all__ = ["Redactor", "default_redactor", "make_redactor", "redact_text", "secret_env_values"]
