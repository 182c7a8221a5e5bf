"""What a secret looks like: shared by redaction (``oversight.redaction``) and plan validation.

Kept at the bottom layer so the validator can refuse a plan holding a literal secret with the
very detectors that would otherwise redact it from the run database: a valid plan is one the
redactor leaves unchanged, so the plan that is stored, hashed and approved is the plan that runs.

Also home of ``${env.NAME}`` policy: which environment variables a plan may reference.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

# (kind, regex). Order matters where shapes overlap: sk-ant- before sk-; specific shapes before
# the generic ``password = value`` assignment.
PATTERNS: tuple[tuple[str, str], ...] = (
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

# ``password: X``, ``pw=X``, ``"password": "X"``, ``DB_PASSWORD='X'``, ``client_secret = X``.
# The value is quoted (to its closing quote) or a run of non-separator characters of at least 4
# (``token: 5`` and ``pw=on`` are not credentials). A ``${...}`` reference or an already
# redacted value is not a secret.
ASSIGNMENT_KEYS = r"password|passwd|passphrase|pwd|pw|secret|api_?key|apikey|token|credentials?"
ASSIGNMENT_PREFIX = r"(?i:\b(?:[a-z0-9]+[_-])*(?:" + ASSIGNMENT_KEYS + r"))[\"']?\s*[:=]\s*"
_NOT_VALUE = r"(?!\$\{|\[REDACTED)"
ASSIGNMENT = (
    "password",
    ASSIGNMENT_PREFIX
    + r"(?:\""
    + _NOT_VALUE
    + r"[^\"\n]{1,256}\"|'"
    + _NOT_VALUE
    + r"[^'\n]{1,256}'|"
    + _NOT_VALUE
    + r"(?![\"'])[^\s\"'&;,<>]{4,256})",
)
# Lower-cased literals, one of which every match of an ASSIGNMENT contains (for the JSON screen).
ASSIGNMENT_ANCHORS: tuple[str, ...] = ("pass", "pw", "secret", "api", "token", "credential")

# A cheap screen, lower-cased: every match of PATTERNS or ASSIGNMENT contains one of these.
ANCHORS: tuple[str, ...] = (
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
    *ASSIGNMENT_ANCHORS,
)

# Names whose values we treat as secrets; any name containing one of these words.
SECRET_NAME_RE = re.compile(
    r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|PRIVATE|AUTH", re.IGNORECASE
)
# Environment variables that match SECRET_NAME_RE but hold no secret (paths, sockets, layouts).
NOT_SECRET_NAMES = frozenset(
    {"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "XAUTHORITY", "KEYTIMEOUT", "XKB_DEFAULT_LAYOUT", "KEYMAP"}
)
# Shorter values would redact ordinary words ("true", "admin"); env secrets are longer than this.
MIN_ENV_SECRET_LEN = 8
CONFIG_ENV = "FORETHOUGHT_REDACT_ENV"
# The environment variables a plan may reference as ``${env.NAME}``: none unless listed here.
SECRETS_ENV = "FORETHOUGHT_SECRETS"
ENV_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _names(text: str) -> set[str]:
    return {n.strip() for n in text.split(",") if n.strip()}


def allowed_env_names(env: Mapping[str, str] | None = None) -> frozenset[str]:
    """Names a plan may reference as ``${env.NAME}``: those listed in ``$FORETHOUGHT_SECRETS``.

    Fail closed: a plan is untrusted input, and ``${env.AWS_SECRET_ACCESS_KEY}`` passed to a tool
    that talks to the network would hand the key to whoever wrote the plan. Only the operator,
    through their own environment, decides which variables a plan may use.
    """
    env = os.environ if env is None else env
    return frozenset(_names(env.get(SECRETS_ENV, "")))


def secret_env_values(env: Mapping[str, str] | None = None, names: Iterable[str] = ()) -> dict[str, str]:
    """Name → value of the environment variables whose values must never be stored.

    Secret-looking names, names in ``$FORETHOUGHT_REDACT_ENV``, names a plan may reference
    (``$FORETHOUGHT_SECRETS``) and ``names``.
    """
    env = os.environ if env is None else env
    wanted = {n.strip() for n in names if n.strip()}
    wanted |= _names(env.get(CONFIG_ENV, "")) | _names(env.get(SECRETS_ENV, ""))
    out: dict[str, str] = {}
    for name, value in env.items():
        if name in (CONFIG_ENV, SECRETS_ENV) or len(value) < MIN_ENV_SECRET_LEN:
            continue
        if name in wanted or (SECRET_NAME_RE.search(name) and name not in NOT_SECRET_NAMES):
            out[name] = value
    return out


_SHAPES_RE = re.compile("|".join(f"(?P<g{i}>{rx})" for i, (_, rx) in enumerate((*PATTERNS, ASSIGNMENT))))
_SHAPE_KINDS = tuple(k for k, _ in (*PATTERNS, ASSIGNMENT))


class SecretDetector:
    """Finds literal secrets in (nested) plan data; built once per validation."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._values = sorted(secret_env_values(env).items(), key=lambda kv: -len(kv[1]))
        # Each value as it may appear inside the repr of a container (see ``find``).
        forms: set[str] = set()
        for _, value in self._values:
            inner = repr(value)[1:-1]
            forms |= {value, inner, inner.replace("'", "\\'"), inner.replace('"', '\\"')}
        self._forms = tuple(forms)

    def might_contain(self, text: str) -> bool:
        """False only if no secret can be in ``text``, or in the data whose ``str()`` it is.

        No anchor and no known value (as such, or as the repr of a string shows it) → clean.
        """
        low = text.lower()
        # Plain loops: validation screens every step, and ``any()`` over a generator cost
        # twice as much per anchor.
        for anchor in ANCHORS:
            if anchor in low:
                return True
        for form in self._forms:  # noqa: SIM110 - see above
            if form in text:
                return True
        return False

    def kind(self, text: str) -> str | None:
        low = text.lower()
        if any(a in low for a in ANCHORS):
            m = _SHAPES_RE.search(text)
            if m is not None:
                return _SHAPE_KINDS[int((m.lastgroup or "g0")[1:])]
        for name, value in self._values:
            if value in text:
                return f"env:{name}"
        return None

    def find(
        self, value: object, location: tuple[str | int, ...] = ()
    ) -> list[tuple[tuple[str | int, ...], str]]:
        """(location, kind) of every string (dict keys included) that holds a secret.

        A key that is itself a secret is shown as ``[secret]`` in locations, never verbatim.
        """
        found: list[tuple[tuple[str | int, ...], str]] = []
        if not self.might_contain(value if isinstance(value, str) else str(value)):
            return found
        stack: list[tuple[object, tuple[str | int, ...]]] = [(value, location)]
        while stack:
            item, loc = stack.pop()
            if isinstance(item, str):
                kind = self.kind(item)
                if kind is not None:
                    found.append((loc, kind))
            elif isinstance(item, Mapping):
                for k, v in item.items():
                    key = str(k)
                    kind = self.kind(key)
                    if kind is not None:
                        key = "[secret]"
                        found.append(((*loc, key), kind))
                    stack.append((v, (*loc, key)))
            elif isinstance(item, (list, tuple)):
                stack.extend((v, (*loc, i)) for i, v in enumerate(item))
        found.sort(key=lambda f: [str(p) for p in f[0]])
        return found


__all__ = ["PATTERNS", "SECRETS_ENV", "SecretDetector", "allowed_env_names", "secret_env_values"]
