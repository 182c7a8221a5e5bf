"""Built-in tools, each off unless enabled, all confined to a workspace directory.

``read_file``, ``list_dir`` (read-only), ``write_file`` (mutating), ``http_get`` (read-only; refuses
private, loopback, link-local, multicast and reserved addresses, also after redirects) and
``calculate`` (the safe expression language of ``forethought.plan.expressions``; no ``eval``) and
``text_stats`` (lines, words and characters of a text).

Paths are resolved with symlinks followed and must stay inside the workspace; ``write_file`` also
refuses to write *through* a symlink (``O_NOFOLLOW``) so a link planted inside the workspace cannot
redirect a write outside it.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from forethought.errors import ToolError, UserError
from forethought.plan.expressions import ExprError, safe_eval
from forethought.tools._http import IPNetwork, fetch
from forethought.tools._params import confine
from forethought.tools.base import Tool
from forethought.tools.python import PythonTool

BUILTIN_NAMES = ("read_file", "list_dir", "write_file", "http_get", "calculate", "text_stats")
DEFAULT_BUILTINS = ("read_file", "list_dir", "write_file", "calculate", "text_stats")
MAX_READ_BYTES = 1024 * 1024
MAX_LIST_ENTRIES = 1000


class FileContent(BaseModel):
    path: str
    content: str
    size: int
    truncated: bool


class DirEntry(BaseModel):
    name: str
    type: Literal["file", "dir", "symlink", "other"]
    size: int


class DirListing(BaseModel):
    path: str
    entries: list[DirEntry]
    truncated: bool


class WriteResult(BaseModel):
    path: str
    bytes_written: int


class HttpResponse(BaseModel):
    url: str
    status: int
    headers: dict[str, str]
    text: str
    truncated: bool


class Calculation(BaseModel):
    value: Any


class TextStats(BaseModel):
    lines: int
    words: int
    characters: int


def _rel(workspace: Path, path: Path) -> str:
    return str(path.relative_to(workspace.resolve())) or "."


def _make_read_file(ws: Path) -> PythonTool:
    def read_file(path: str, max_bytes: int = MAX_READ_BYTES) -> FileContent:
        """Read a UTF-8 text file inside the workspace (at most max_bytes)."""
        target = confine(ws, path, name="path", must_exist=True)
        if not target.is_file():
            raise ToolError(f"{path!r} is not a file", retryable=False)
        limit = max(1, min(max_bytes, MAX_READ_BYTES))
        with target.open("rb") as fh:
            data = fh.read(limit + 1)
        return FileContent(path=_rel(ws, target), content=data[:limit].decode("utf-8", errors="replace"),
                           size=target.stat().st_size, truncated=len(data) > limit)

    return PythonTool(read_file, effect="read_only", idempotent=True, source="builtin")


def _make_list_dir(ws: Path) -> PythonTool:
    def list_dir(path: str = ".") -> DirListing:
        """List a directory inside the workspace (names, types, sizes; symlinks not followed)."""
        target = confine(ws, path, name="path", must_exist=True)
        if not target.is_dir():
            raise ToolError(f"{path!r} is not a directory", retryable=False)
        entries: list[DirEntry] = []
        names = sorted(p.name for p in target.iterdir())
        for name in names[:MAX_LIST_ENTRIES]:
            st = (target / name).lstat()
            kind: Literal["file", "dir", "symlink", "other"] = (
                "symlink" if (target / name).is_symlink() else "dir" if (target / name).is_dir()
                else "file" if (target / name).is_file() else "other")
            entries.append(DirEntry(name=name, type=kind, size=st.st_size))
        return DirListing(path=_rel(ws, target), entries=entries, truncated=len(names) > MAX_LIST_ENTRIES)

    return PythonTool(list_dir, effect="read_only", idempotent=True, source="builtin")


def _make_write_file(ws: Path) -> PythonTool:
    def write_file(path: str, content: str, append: bool = False) -> WriteResult:
        """Write (or append) UTF-8 text to a file inside the workspace; parent dirs are created."""
        target = confine(ws, path, name="path")
        if target == ws.resolve():
            raise ToolError("path must name a file, not the workspace itself", retryable=False)
        target.parent.mkdir(parents=True, exist_ok=True)
        confine(ws, str(target.parent), name="path", must_exist=True)  # re-check after mkdir
        flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | (os.O_APPEND if append else os.O_TRUNC)
        data = content.encode("utf-8")
        try:
            fd = os.open(target, flags, 0o644)
        except OSError as exc:
            raise ToolError(f"cannot write {path!r}: {exc.strerror}", retryable=False) from None
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        return WriteResult(path=_rel(ws, target), bytes_written=len(data))

    return PythonTool(write_file, effect="mutating", idempotent=False, source="builtin")


def _make_http_get(allow_private: bool, allow_networks: tuple[IPNetwork, ...]) -> PythonTool:
    async def http_get(url: str, max_bytes: int = MAX_READ_BYTES, timeout_s: float = 30.0) -> HttpResponse:
        """GET a public http(s) URL and return status, headers and the body as text."""
        result = await asyncio.to_thread(
            fetch, url, max_bytes=max(1, min(max_bytes, 10 * MAX_READ_BYTES)),
            timeout_s=max(0.1, min(timeout_s, 300.0)), allow_private=allow_private,
            allow_networks=allow_networks)
        return HttpResponse(url=result.url, status=result.status, headers=result.headers,
                            text=result.body.decode("utf-8", errors="replace"), truncated=result.truncated)

    return PythonTool(http_get, effect="read_only", idempotent=True, timeout_s=300.0, source="builtin")


def _make_calculate() -> PythonTool:
    def calculate(expression: str) -> Calculation:
        """Evaluate an arithmetic expression safely (no code runs): + - * / // % **, min, max, round."""
        try:
            return Calculation(value=safe_eval(expression, {}))
        except ExprError as exc:
            raise ToolError(f"cannot calculate {expression[:80]!r}: {exc}", retryable=False) from None

    return PythonTool(calculate, effect="read_only", idempotent=True, blocking=False, source="builtin")


def _make_text_stats() -> PythonTool:
    def text_stats(text: str) -> TextStats:
        """Count the lines, words and characters of a text (e.g. a file's content)."""
        return TextStats(lines=len(text.splitlines()), words=len(text.split()),
                         characters=len(text))

    return PythonTool(text_stats, effect="read_only", idempotent=True, blocking=False,
                      source="builtin")


def builtin_tools(
    workspace: Path,
    enabled: Iterable[str] | Literal["all"] | None = None,
    *,
    allow_private_http: bool = False,
    http_allow_networks: Iterable[str] = (),
) -> list[Tool]:
    """The enabled built-ins (``None``: the defaults, i.e. all but the network tool ``http_get``).

    ``http_allow_networks`` (CIDRs) opens specific private ranges to ``http_get``, e.g. for tests.
    """
    if enabled is None:
        names = list(DEFAULT_BUILTINS)
    else:
        names = list(BUILTIN_NAMES) if enabled == "all" else list(enabled)
    unknown = sorted(set(names) - set(BUILTIN_NAMES))
    if unknown:
        raise UserError(f"unknown built-in tool(s) {', '.join(unknown)}; "
                        f"available: {', '.join(BUILTIN_NAMES)}")
    ws = Path(workspace)
    if not ws.is_dir():
        raise UserError(f"workspace {ws} is not a directory; create it or pass another --workspace")
    try:
        networks = tuple(ipaddress.ip_network(n, strict=False) for n in http_allow_networks)
    except ValueError as exc:
        raise UserError(f"invalid network in the http allow-list: {exc}") from None
    makers = {
        "read_file": lambda: _make_read_file(ws),
        "list_dir": lambda: _make_list_dir(ws),
        "write_file": lambda: _make_write_file(ws),
        "http_get": lambda: _make_http_get(allow_private_http, networks),
        "calculate": _make_calculate,
        "text_stats": _make_text_stats,
    }
    return [makers[n]() for n in dict.fromkeys(names)]
