"""Built-in tools, each off unless enabled, all confined to a workspace directory.

``read_file``, ``list_dir`` (read-only), ``write_file`` (mutating), ``http_get`` (read-only; refuses
private, loopback, link-local, multicast and reserved addresses, also after redirects) and
``calculate`` (the safe expression language of ``forethought.plan.expressions``; no ``eval``) and
``text_stats`` (lines, words and characters of a text).

The file tools never hand a path to the kernel to resolve. They walk it one component at a time
from a directory fd, opening each with ``O_NOFOLLOW``, so what they check is what they open: a
component swapped for a symlink between a check and an open cannot lead outside (a check-then-open
design let 25 of 3000 racing reads escape). A symlink met on the way is read and followed by the
walk itself, and only while it stays inside the workspace; ``..`` never climbs above it.

They also refuse forethought's own files, whatever name reaches them (a hard link or a symlink
included, compared by device and inode): the approval key (whoever reads it can forge approvals),
the configuration directory and the data directory with the run databases. With the default
workspace ``.`` run from ``$HOME``, all of them are inside the workspace.
"""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import platformdirs
from pydantic import BaseModel

from forethought.errors import ToolError, UserError
from forethought.plan.expressions import ExprError, safe_eval
from forethought.tools.base import Tool
from forethought.tools.python import PythonTool

if TYPE_CHECKING:
    from forethought.tools._http import IPNetwork

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


# ------------------------------------------------------------------------------- safe paths

_MAX_LINKS = 40  # like the kernel's limit on symlinks followed in one lookup
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
_DB_SIDECARS = ("", "-wal", "-shm", "-journal")
# How an O_NOFOLLOW open reports a symlink (ELOOP; ENOTDIR with O_DIRECTORY; EMLINK on BSDs).
_NOT_FOLLOWED = (errno.ELOOP, errno.ENOTDIR, errno.EMLINK)


def forethought_paths(extra: Iterable[Path] = ()) -> list[tuple[str, Path]]:
    """forethought's own files and directories (label, path), as the rest of forethought finds them.

    Computed per call: the environment variables that move them are read at use, not import.
    """
    config = Path(platformdirs.user_config_dir("forethought"))
    data = Path(platformdirs.user_data_dir("forethought"))
    # The files are named as well as their directories, so a hard link elsewhere is caught too.
    found: list[tuple[str, Path]] = [
        ("configuration directory (approval key)", config),
        ("data directory (run databases)", data),
        ("approval key", config / "approval.key"),
    ]
    key = os.environ.get("FORETHOUGHT_APPROVAL_KEY_FILE")
    if key:
        found.append(("approval key", Path(key)))
    db = os.environ.get("FORETHOUGHT_DB")
    dbs = [data / "runs.db", data / "plan_memory.sqlite"]
    dbs.extend([Path(db).expanduser()] if db else [])
    dbs.extend(Path(p) for p in extra)
    found.extend(("run database", Path(f"{p}{suffix}")) for p in dbs for suffix in _DB_SIDECARS)
    return found


@dataclass
class _Walk:
    """One path walked from the workspace: open fds of the directories on the way, and names."""

    value: str  # the path as the caller gave it (for messages)
    root: Path
    protected: dict[tuple[int, int], str]
    fds: list[int]
    names: list[str]

    @property
    def rel(self) -> str:
        return "/".join(self.names) or "."

    def fail(self, why: str) -> ToolError:
        return ToolError(f"argument 'path': path {self.value!r} {why}", retryable=False)

    def outside(self) -> ToolError:
        return self.fail(f"is outside the allowed root {self.root}")

    def check(self, fd: int) -> os.stat_result:
        st = os.fstat(fd)
        label = self.protected.get((st.st_dev, st.st_ino))
        if label is not None:
            raise self.fail(
                f"is inside forethought's own {label}; built-in tools never read or "
                "write forethought's approval key, configuration or run databases"
            )
        return st

    def push(self, fd: int, name: str) -> None:
        self.fds.append(fd)
        self.names.append(name)
        self.check(fd)

    def up(self) -> None:
        if not self.names:
            raise self.outside()
        os.close(self.fds.pop())
        self.names.pop()

    def to_root(self) -> None:
        while self.names:
            self.up()


class _Workspace:
    """The race-free path walk shared by ``read_file``, ``list_dir`` and ``write_file``."""

    def __init__(self, root: Path, protect: Iterable[Path] = ()) -> None:
        self.root = root.resolve()
        self.bases = list(dict.fromkeys([_parts(str(self.root)), _parts(str(root.absolute()))]))
        self.protect = [Path(p) for p in protect]

    def _protected(self) -> dict[tuple[int, int], str]:
        found: dict[tuple[int, int], str] = {}
        for label, path in forethought_paths(self.protect):
            with contextlib.suppress(OSError, ValueError):
                st = path.stat()
                found.setdefault((st.st_dev, st.st_ino), label)
                real = path.resolve()
                if self.root == real or self.root.is_relative_to(real):
                    raise ToolError(
                        f"workspace {self.root} is inside forethought's own {label} "
                        f"({path}); choose another --workspace",
                        retryable=False,
                    )
        return found

    def _relative(self, walk: _Walk, path: str) -> tuple[str, ...]:
        """Components of ``path`` below the workspace (an absolute path must start inside it)."""
        if "\x00" in path:
            raise walk.fail("contains a NUL byte")
        if not path.startswith("/"):
            return _parts(path)
        parts = _parts(path)
        for base in self.bases:
            if parts[: len(base)] == base:
                return parts[len(base) :]
        raise walk.outside()

    @contextlib.contextmanager
    def walk(
        self, value: str, final: Literal["file", "dir", "create"], *, append: bool = False
    ) -> Iterator[tuple[_Walk, int]]:
        """Yield the walk and an fd of the final object (a directory for ``dir``), then close all.

        ``create`` (``write_file``) makes missing directories and the file, opened for writing.
        """
        walk = _Walk(value, self.root, self._protected(), [], [])
        try:
            walk.fds.append(os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC))
            walk.check(walk.fds[0])
            pending = list(self._relative(walk, value))
            links = 0
            while pending:
                name = pending.pop(0)
                if name == "..":
                    walk.up()
                    continue
                last = not pending
                try:
                    if last and final != "dir":
                        fd = self._open_final(walk.fds[-1], name, final, append)
                    else:
                        fd = self._open_dir(walk.fds[-1], name, create=final == "create")
                except OSError as exc:
                    if exc.errno == errno.EISDIR:
                        raise walk.fail("is a directory; name a file") from None
                    target = _readlink(name, walk.fds[-1]) if exc.errno in _NOT_FOLLOWED else None
                    if target is None:  # not a symlink: missing, or a file where a dir is needed
                        raise walk.fail(f"cannot be resolved: {exc.strerror}") from None
                    links += 1
                    if links > _MAX_LINKS:
                        raise walk.fail(
                            "cannot be resolved: too many levels of symbolic links (a symlink loop)"
                        ) from None
                    if target.startswith("/"):  # absolute: it must point into the workspace
                        walk.to_root()
                        pending[:0] = self._relative(walk, target)
                    else:  # relative to the directory holding the link
                        pending[:0] = _parts(target)
                    continue
                walk.push(fd, name)
                if last and final != "dir":
                    yield walk, fd
                    return
            if final == "create":
                raise ToolError("path must name a file, not the workspace itself", retryable=False)
            if final == "file":
                raise walk.fail("is not a file")
            yield walk, walk.fds[-1]
        finally:
            for fd in walk.fds:
                os.close(fd)

    @staticmethod
    def _open_dir(dir_fd: int, name: str, *, create: bool) -> int:
        try:
            return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
        except FileNotFoundError:
            if not create:
                raise
        with contextlib.suppress(FileExistsError):  # made by someone else meanwhile: walk on
            os.mkdir(name, 0o777, dir_fd=dir_fd)
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)

    @staticmethod
    def _open_final(dir_fd: int, name: str, final: Literal["file", "create"], append: bool) -> int:
        # O_NONBLOCK: opening a FIFO must not hang the tool (it is then refused as not a file).
        # No O_TRUNC: the file is checked (not forethought's, a regular file) before it is emptied.
        if final == "create":
            flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else 0)
            return os.open(name, flags | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC, 0o644, dir_fd=dir_fd)
        return os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC, dir_fd=dir_fd)


def _parts(path: str) -> tuple[str, ...]:
    return tuple(p for p in path.split("/") if p not in ("", "."))


def _readlink(name: str, dir_fd: int) -> str | None:
    try:
        return os.readlink(name, dir_fd=dir_fd)
    except OSError:  # not a symlink (or no longer one: the walk then reports the original error)
        return None


def _make_read_file(ws: _Workspace) -> PythonTool:
    def read_file(path: str, max_bytes: int = MAX_READ_BYTES) -> FileContent:
        """Read a UTF-8 text file inside the workspace (at most max_bytes)."""
        limit = max(1, min(max_bytes, MAX_READ_BYTES))
        with ws.walk(path, "file") as (walk, fd):
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise ToolError(f"{path!r} is not a file", retryable=False)
            chunks: list[bytes] = []
            remaining = limit + 1
            while remaining > 0:
                chunk = os.read(fd, min(remaining, 1 << 16))
                if not chunk:
                    break
                chunks.append(chunk)
                remaining -= len(chunk)
            data = b"".join(chunks)
            return FileContent(
                path=walk.rel,
                content=data[:limit].decode("utf-8", errors="replace"),
                size=st.st_size,
                truncated=len(data) > limit,
            )

    return PythonTool(read_file, effect="read_only", idempotent=True, source="builtin")


def _make_list_dir(ws: _Workspace) -> PythonTool:
    def list_dir(path: str = ".") -> DirListing:
        """List a directory inside the workspace (names, types, sizes; symlinks not followed)."""
        with ws.walk(path, "dir") as (walk, fd):
            names = sorted(os.listdir(fd))  # noqa: PTH208 (a directory fd: no path to race on)
            entries: list[DirEntry] = []
            for name in names[:MAX_LIST_ENTRIES]:
                try:
                    st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                except FileNotFoundError:
                    continue  # removed since the listing was read
                kind: Literal["file", "dir", "symlink", "other"] = (
                    "symlink"
                    if stat.S_ISLNK(st.st_mode)
                    else "dir"
                    if stat.S_ISDIR(st.st_mode)
                    else "file"
                    if stat.S_ISREG(st.st_mode)
                    else "other"
                )
                entries.append(DirEntry(name=name, type=kind, size=st.st_size))
            return DirListing(path=walk.rel, entries=entries, truncated=len(names) > MAX_LIST_ENTRIES)

    return PythonTool(list_dir, effect="read_only", idempotent=True, source="builtin")


def _make_write_file(ws: _Workspace) -> PythonTool:
    def write_file(path: str, content: str, append: bool = False) -> WriteResult:
        """Write (or append) UTF-8 text to a file inside the workspace; parent dirs are created."""
        data = content.encode("utf-8")
        with ws.walk(path, "create", append=append) as (walk, fd):
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ToolError(f"cannot write {path!r}: not a regular file", retryable=False)
            if not append:
                os.ftruncate(fd, 0)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            return WriteResult(path=walk.rel, bytes_written=len(data))

    return PythonTool(write_file, effect="mutating", idempotent=False, source="builtin")


def _make_http_get(allow_private: bool, allow_networks: tuple[IPNetwork, ...]) -> PythonTool:
    # Imported when the tool is made, before any run: most runs enable no network tool, and its
    # HTTP client (``http.client``, its SSRF guard) would only slow every command's start.
    from forethought.tools._http import fetch_async

    async def http_get(url: str, max_bytes: int = MAX_READ_BYTES, timeout_s: float = 30.0) -> HttpResponse:
        """GET a public http(s) URL and return status, headers and the body as text."""
        # One deadline for the whole request; cancelling this call shuts its socket down.
        result = await fetch_async(
            url,
            max_bytes=max(1, min(max_bytes, 10 * MAX_READ_BYTES)),
            timeout_s=max(0.1, min(timeout_s, 300.0)),
            allow_private=allow_private,
            allow_networks=allow_networks,
        )
        return HttpResponse(
            url=result.url,
            status=result.status,
            headers=result.headers,
            text=result.body.decode("utf-8", errors="replace"),
            truncated=result.truncated,
        )

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
        return TextStats(lines=len(text.splitlines()), words=len(text.split()), characters=len(text))

    return PythonTool(text_stats, effect="read_only", idempotent=True, blocking=False, source="builtin")


def builtin_tools(
    workspace: Path,
    enabled: Iterable[str] | Literal["all"] | None = None,
    *,
    allow_private_http: bool = False,
    http_allow_networks: Iterable[str] = (),
    protect: Iterable[Path] = (),
) -> list[Tool]:
    """The enabled built-ins (``None``: the defaults, i.e. all but the network tool ``http_get``).

    ``http_allow_networks`` (CIDRs) opens specific private ranges to ``http_get``, e.g. for tests.
    ``protect`` names more run databases the file tools must refuse (e.g. a ``--db`` path), beside
    the ones they find themselves (see ``forethought_paths``).
    """
    if enabled is None:
        names = list(DEFAULT_BUILTINS)
    else:
        names = list(BUILTIN_NAMES) if enabled == "all" else list(enabled)
    unknown = sorted(set(names) - set(BUILTIN_NAMES))
    if unknown:
        raise UserError(
            f"unknown built-in tool(s) {', '.join(unknown)}; available: {', '.join(BUILTIN_NAMES)}"
        )
    ws = Path(workspace)
    if not ws.is_dir():
        raise UserError(f"workspace {ws} is not a directory; create it or pass another --workspace")
    try:
        networks = tuple(ipaddress.ip_network(n, strict=False) for n in http_allow_networks)
    except ValueError as exc:
        raise UserError(f"invalid network in the http allow-list: {exc}") from None
    files = _Workspace(ws, protect)
    makers = {
        "read_file": lambda: _make_read_file(files),
        "list_dir": lambda: _make_list_dir(files),
        "write_file": lambda: _make_write_file(files),
        "http_get": lambda: _make_http_get(allow_private_http, networks),
        "calculate": _make_calculate,
        "text_stats": _make_text_stats,
    }
    return [makers[n]() for n in dict.fromkeys(names)]
