"""Who may use the web UI, and which requests may change anything.

- **Bind**: loopback by default; any other address needs an access token (``check_bind``), because
  the UI can approve side effects.
- **Token**: when set, every request carries it — ``Authorization: Bearer T``, or the
  ``forethought_token`` cookie that opening ``/?token=T`` once sets (HttpOnly, SameSite=Strict).
- **CSRF**: every state-changing request (POST) must come from a page this server rendered: its
  ``Origin`` (else ``Referer``) must be this server, and it must carry the session's CSRF token
  (form field ``csrf`` or header ``X-CSRF-Token``), an HMAC of the session cookie under a
  per-process secret. A cross-site form post fails both checks.

Comparisons are constant-time. Nothing here logs a token.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from forethought.errors import UserError

SESSION_COOKIE = "forethought_session"
TOKEN_COOKIE = "forethought_token"  # noqa: S105 (a cookie name, not a secret)
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class BindRefused(UserError):
    """A non-loopback bind without a token (exit 2)."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """Refuse to serve beyond this machine without a token: anyone who can reach the port could
    approve side effects."""
    if not is_loopback(host) and not token:
        raise BindRefused(
            f"--host {host} exposes the UI beyond this machine; pass --token SECRET "
            "(or set FORETHOUGHT_UI_TOKEN) so only people who have it can use it"
        )


@dataclass
class Guard:
    """The access token (optional) and the CSRF secret of one server process."""

    token: str | None = None
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32))

    # ------------------------------------------------------------------ token

    def token_ok(self, presented: str | None) -> bool:
        if not self.token:
            return True
        return presented is not None and hmac.compare_digest(presented.encode(), self.token.encode())

    @staticmethod
    def presented_token(authorization: str | None, cookie: str | None, query: str | None) -> str | None:
        if authorization and authorization.lower().startswith("bearer "):
            return authorization[7:].strip()
        return query or cookie

    def host_ok(self, host: str | None) -> bool:
        """Without a token only loopback names are served: a page on another site whose name
        was rebound to 127.0.0.1 (DNS rebinding) must not be able to read or drive the UI."""
        if self.token:
            return True
        if not host:
            return False
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        return is_loopback(name.strip("[]"))

    # ------------------------------------------------------------------ CSRF

    @staticmethod
    def new_session() -> str:
        return secrets.token_urlsafe(24)

    def csrf_for(self, session: str) -> str:
        return hmac.new(self.secret, session.encode(), hashlib.sha256).hexdigest()

    def csrf_ok(self, session: str | None, presented: str | None) -> bool:
        if not session or not presented:
            return False
        return hmac.compare_digest(self.csrf_for(session), presented)

    @staticmethod
    def same_origin(origin: str | None, referer: str | None, host: str | None) -> bool:
        """The request comes from a page of this server (scheme-less host:port comparison: the
        server may sit behind a TLS proxy). A request with neither header is refused."""
        source = origin if origin and origin != "null" else referer
        if not source or not host:
            return False
        return urlsplit(source).netloc.lower() == host.lower()


__all__ = [
    "CSRF_FIELD",
    "CSRF_HEADER",
    "SAFE_METHODS",
    "SESSION_COOKIE",
    "TOKEN_COOKIE",
    "BindRefused",
    "Guard",
    "check_bind",
    "is_loopback",
]
