"""A minimal HTTP(S) GET that refuses to reach private networks (SSRF guard) for the ``http_get`` tool.

Checking the URL's host string is not enough: a public name can resolve to 127.0.0.1, and a public
server can redirect to ``http://169.254.169.254/``. So we resolve the host ourselves, refuse if *any*
resolved address is private/loopback/link-local/multicast/reserved, then connect to the address we
checked (no second DNS lookup an attacker could answer differently), and repeat all of it for every
redirect hop.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from forethought.errors import ToolError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
MAX_REDIRECTS = 5


@dataclass(frozen=True)
class HttpResult:
    url: str
    status: int
    headers: dict[str, str]
    body: bytes
    truncated: bool


def is_forbidden(addr: IPAddress) -> bool:
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return is_forbidden(addr.ipv4_mapped)
    return (addr.is_private or addr.is_loopback or addr.is_link_local or addr.is_multicast
            or addr.is_reserved or addr.is_unspecified or not addr.is_global)


def resolve_checked(host: str, port: int, allow_private: bool, allow_networks: Sequence[IPNetwork]) -> str:
    """Resolve ``host`` and return one address to connect to; refuse if any address is forbidden."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise ToolError(f"cannot resolve host {host!r}: {exc.strerror}") from None
    addresses: list[str] = []
    for info in infos:
        raw = str(info[4][0]).split("%", 1)[0]
        addr = ipaddress.ip_address(raw)
        allowed = allow_private or any(addr in net for net in allow_networks)
        if not allowed and is_forbidden(addr):
            raise ToolError(f"refusing to fetch {host!r}: it resolves to {addr}, a private/loopback/"
                            "link-local/reserved address (http_get only reaches public hosts)",
                            retryable=False)
        addresses.append(raw)
    if not addresses:
        raise ToolError(f"host {host!r} has no addresses")
    return addresses[0]


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to a pre-checked IP while verifying the certificate for the real host name."""

    def __init__(self, host: str, ip: str, port: int, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._ip = ip

    def connect(self) -> None:
        sock = socket.create_connection((self._ip, self.port or 443), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


class _PinnedHTTPConnection(http.client.HTTPConnection):
    def __init__(self, host: str, ip: str, port: int, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._ip = ip

    def connect(self) -> None:
        self.sock = socket.create_connection((self._ip, self.port or 80), self.timeout)


def fetch(url: str, *, max_bytes: int, timeout_s: float, allow_private: bool = False,
          allow_networks: Sequence[IPNetwork] = ()) -> HttpResult:
    """Blocking GET with redirect following; every hop is resolved and checked before connecting."""
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        parts = urlsplit(current)
        if parts.scheme not in ("http", "https"):
            raise ToolError(f"only http and https URLs are allowed, got {parts.scheme or 'none'!r}",
                            retryable=False)
        if not parts.hostname:
            raise ToolError(f"URL {current!r} has no host", retryable=False)
        if parts.username or parts.password:
            raise ToolError("URLs with credentials are not allowed", retryable=False)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        ip = resolve_checked(parts.hostname, port, allow_private, allow_networks)
        conn_cls = _PinnedHTTPSConnection if parts.scheme == "https" else _PinnedHTTPConnection
        conn = conn_cls(parts.hostname, ip, port, timeout_s)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        try:
            conn.request("GET", path, headers={"User-Agent": "forethought-http_get", "Accept": "*/*"})
            resp = conn.getresponse()
            if resp.status in (301, 302, 303, 307, 308) and resp.getheader("Location"):
                current = urljoin(current, resp.getheader("Location", ""))
                continue
            body = resp.read(max_bytes + 1)
            headers = {k.lower(): v for k, v in resp.getheaders()}
            return HttpResult(current, resp.status, headers, body[:max_bytes], len(body) > max_bytes)
        except (OSError, http.client.HTTPException) as exc:
            raise ToolError(f"GET {current} failed: {type(exc).__name__}: {exc}") from None
        finally:
            conn.close()
    raise ToolError(f"too many redirects (more than {MAX_REDIRECTS}) starting at {url}", retryable=False)
