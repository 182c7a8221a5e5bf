"""A minimal HTTP(S) GET that refuses to reach private networks (SSRF guard) for the ``http_get`` tool.

Checking the URL's host string is not enough: a public name can resolve to 127.0.0.1, and a public
server can redirect to ``http://169.254.169.254/``. So we resolve the host ourselves, refuse if *any*
resolved address is private/loopback/link-local/multicast/reserved, then connect to the address we
checked (no second DNS lookup an attacker could answer differently), and repeat all of it for every
redirect hop.

A socket timeout bounds each read, not the request: a server that trickles a byte at a time holds
a read forever, and a blocked read used to keep ``forethought exec`` alive long after its step had
timed out (the loop's default executor joins its threads at exit). So a request has one deadline
for connect, headers and body together, enforced by shutting the socket down when it passes, and
``fetch_async`` runs it in a daemon thread and shuts the socket down as soon as the awaiter gives
up (a step timeout, an abort), waiting briefly for the thread to close it: no socket and no
non-daemon thread outlives the call. (A DNS lookup cannot be interrupted; it runs in that daemon
thread and cannot hold the process either.)
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from forethought.errors import ToolError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
MAX_REDIRECTS = 5
_DRAIN_S = 2.0  # how long a given-up call waits for its thread to close the (shut down) socket


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
    return (
        addr.is_private
        or addr.is_loopback
        or addr.is_link_local
        or addr.is_multicast
        or addr.is_reserved
        or addr.is_unspecified
        or not addr.is_global
    )


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
            raise ToolError(
                f"refusing to fetch {host!r}: it resolves to {addr}, a private/loopback/"
                "link-local/reserved address (http_get only reaches public hosts)",
                retryable=False,
            )
        addresses.append(raw)
    if not addresses:
        raise ToolError(f"host {host!r} has no addresses")
    return addresses[0]


class Request:
    """One request's deadline and its way to stop: ``abort`` shuts the current socket down.

    ``shutdown`` (not ``close``) from another thread: it wakes a blocked read at once, and the fd
    stays owned by the thread using it, so it cannot be reused under that thread's feet. The
    request holds its own duplicate of the socket for that, closed when the request ends.
    """

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self.deadline = time.monotonic() + timeout_s
        self._lock = threading.Lock()
        self._ctl: socket.socket | None = None
        self.aborted = False
        self.expired = False

    def remaining(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            self.expire()
        self.raise_if_stopped()
        return left

    def raise_if_stopped(self) -> None:
        if self.expired:
            raise ToolError(
                f"the request did not finish within {self.timeout_s:g}s (connect, headers and body together)"
            )
        if self.aborted:
            raise ToolError("the request was abandoned by its caller")

    def attach(self, sock: socket.socket) -> None:
        with self._lock:
            self._close_ctl()
            if self.aborted:
                sock.close()
            else:
                self._ctl = sock.dup()
        self.raise_if_stopped()

    def expire(self) -> None:
        self.expired = True
        self.abort()

    def abort(self) -> None:
        with self._lock:
            self.aborted = True
            if self._ctl is not None:
                with contextlib.suppress(OSError):
                    self._ctl.shutdown(socket.SHUT_RDWR)

    def finish(self) -> None:
        with self._lock:
            self._close_ctl()

    def _close_ctl(self) -> None:
        if self._ctl is not None:
            self._ctl.close()
            self._ctl = None


def _connect(ip: str, port: int, request: Request) -> socket.socket:
    sock = socket.create_connection((ip, port), min(request.timeout_s, request.remaining()))
    request.attach(sock)
    return sock


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to a pre-checked IP while verifying the certificate for the real host name."""

    def __init__(self, host: str, ip: str, port: int, request: Request) -> None:
        super().__init__(host, port, timeout=request.timeout_s, context=ssl.create_default_context())
        self._ip = ip
        self._request = request

    def connect(self) -> None:
        sock = _connect(self._ip, self.port or 443, self._request)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


class _PinnedHTTPConnection(http.client.HTTPConnection):
    def __init__(self, host: str, ip: str, port: int, request: Request) -> None:
        super().__init__(host, port, timeout=request.timeout_s)
        self._ip = ip
        self._request = request

    def connect(self) -> None:
        self.sock = _connect(self._ip, self.port or 80, self._request)


def fetch(
    url: str,
    *,
    max_bytes: int,
    timeout_s: float,
    allow_private: bool = False,
    allow_networks: Sequence[IPNetwork] = (),
    request: Request | None = None,
) -> HttpResult:
    """Blocking GET with redirect following; every hop is resolved and checked before connecting.

    ``timeout_s`` bounds the whole request, redirects included; ``request`` lets another thread
    abort it (see ``fetch_async``).
    """
    req = request or Request(timeout_s)
    watchdog = threading.Timer(max(0.0, req.deadline - time.monotonic()), req.expire)
    watchdog.daemon = True
    watchdog.start()
    try:
        return _fetch(url, max_bytes, allow_private, allow_networks, req)
    finally:
        watchdog.cancel()
        req.finish()


def _fetch(
    url: str, max_bytes: int, allow_private: bool, allow_networks: Sequence[IPNetwork], req: Request
) -> HttpResult:
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        parts = urlsplit(current)
        if parts.scheme not in ("http", "https"):
            raise ToolError(
                f"only http and https URLs are allowed, got {parts.scheme or 'none'!r}", retryable=False
            )
        if not parts.hostname:
            raise ToolError(f"URL {current!r} has no host", retryable=False)
        if parts.username or parts.password:
            raise ToolError("URLs with credentials are not allowed", retryable=False)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        ip = resolve_checked(parts.hostname, port, allow_private, allow_networks)
        req.remaining()
        conn_cls = _PinnedHTTPSConnection if parts.scheme == "https" else _PinnedHTTPConnection
        conn = conn_cls(parts.hostname, ip, port, req)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        try:
            conn.request("GET", path, headers={"User-Agent": "forethought-http_get", "Accept": "*/*"})
            resp = conn.getresponse()
            if resp.status in (301, 302, 303, 307, 308) and resp.getheader("Location"):
                current = urljoin(current, resp.getheader("Location", ""))
                continue
            body = resp.read(max_bytes + 1)
            req.raise_if_stopped()  # a shut-down socket reads as a short body, not an error
            headers = {k.lower(): v for k, v in resp.getheaders()}
            return HttpResult(current, resp.status, headers, body[:max_bytes], len(body) > max_bytes)
        except (OSError, http.client.HTTPException) as exc:
            req.raise_if_stopped()
            raise ToolError(f"GET {current} failed: {type(exc).__name__}: {exc}") from None
        finally:
            conn.close()
    raise ToolError(f"too many redirects (more than {MAX_REDIRECTS}) starting at {url}", retryable=False)


async def fetch_async(url: str, *, timeout_s: float, **options: Any) -> HttpResult:
    """``fetch`` in a daemon thread; when the awaiter gives up, the socket is shut down at once."""
    loop = asyncio.get_running_loop()
    req = Request(timeout_s)
    fut: asyncio.Future[HttpResult] = loop.create_future()

    def settle(outcome: HttpResult | BaseException) -> None:
        if fut.done():  # the awaiter gave up; its outcome goes nowhere
            return
        if isinstance(outcome, BaseException):
            fut.set_exception(outcome)
        else:
            fut.set_result(outcome)

    def target() -> None:
        outcome: HttpResult | BaseException
        try:
            outcome = fetch(url, request=req, timeout_s=req.timeout_s, **options)
        except BaseException as exc:  # delivered to the awaiter
            outcome = exc
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody is waiting
            loop.call_soon_threadsafe(settle, outcome)

    threading.Thread(target=target, name="forethought-http_get", daemon=True).start()
    try:
        return await asyncio.shield(fut)
    except asyncio.CancelledError:
        req.abort()
        # The read is woken at once; let the thread close its socket before we return.
        await asyncio.wait({fut}, timeout=_DRAIN_S)
        if fut.done() and not fut.cancelled():
            fut.exception()  # retrieved: the abandoned call's error is expected, not news
        raise
