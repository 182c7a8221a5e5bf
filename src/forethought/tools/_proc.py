"""Run one child process in its own process group, with a timeout, an output cap and no leftovers.

Why a process group: a shell script's work is usually done by grandchildren (``pg_dump | gzip``).
Killing only the direct child leaves them running and holding our pipes open. Each call runs in a
new session (``start_new_session=True``), so its process-group id is its pid and ``killpg`` reaches
every descendant that did not deliberately escape with its own ``setsid``. On timeout, on
cancellation, and after a normal exit (background jobs left behind), the group gets SIGTERM, a short
grace period, then SIGKILL.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from forethought.errors import ToolError, ToolTimeout

DEFAULT_MAX_OUTPUT = 1024 * 1024
KILL_GRACE_S = 2.0
_READ_CHUNK = 65536
PIPE_DRAIN_S = 5.0


@dataclass(frozen=True)
class ProcResult:
    exit_code: int
    stdout: bytes
    stderr: bytes
    stdout_truncated: bool
    stderr_truncated: bool
    duration_s: float


class _Capture:
    """The first ``cap`` bytes of a stream; the rest is drained so a chatty child never blocks."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.data = bytearray()
        self.truncated = False

    async def read(self, stream: asyncio.StreamReader | None) -> None:
        if stream is None:
            return
        while chunk := await stream.read(_READ_CHUNK):
            room = self.cap - len(self.data)
            if room > 0:
                self.data.extend(chunk[:room])
            if len(chunk) > room:
                self.truncated = True


class _ExitAwareProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """Signals the child's exit itself: ``Process.wait()`` also waits for every pipe to close, which
    a leftover background job holding stdout would postpone indefinitely."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=_READ_CHUNK, loop=loop)
        self.exited: asyncio.Future[None] = loop.create_future()

    def process_exited(self) -> None:
        super().process_exited()
        if not self.exited.done():
            self.exited.set_result(None)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - a pid reused by someone else's group
        return False
    return True


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def kill_group(
    pgid: int, proc: asyncio.subprocess.Process | None, grace_s: float = KILL_GRACE_S
) -> None:
    """SIGTERM the whole group, wait up to ``grace_s`` for it to go, then SIGKILL whatever is left.

    Written so that a second cancellation arriving during the grace period still ends in SIGKILL.
    """
    _signal_group(pgid, signal.SIGTERM)
    try:
        deadline = time.monotonic() + grace_s
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), grace_s)
        # Grandchildren are not our children: no wait() or event exists for them, so poll briefly.
        while _group_alive(pgid) and time.monotonic() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(0.02)
    finally:
        _signal_group(pgid, signal.SIGKILL)
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(TimeoutError, ProcessLookupError):
                await asyncio.wait_for(asyncio.shield(proc.wait()), 5.0)


async def run_process(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path | None,
    stdin_path: Path | None = None,
    timeout_s: float | None = None,
    max_output: int = DEFAULT_MAX_OUTPUT,
    grace_s: float = KILL_GRACE_S,
    label: str = "command",
) -> ProcResult:
    """Run ``argv`` (no shell) and collect capped output; raise ``ToolTimeout`` past ``timeout_s``."""
    stdin_file: IO[bytes] | None = None
    if stdin_path is not None:
        try:
            stdin_file = stdin_path.open("rb")
        except OSError as exc:
            raise ToolError(
                f"{label}: cannot open stdin file {stdin_path}: {exc.strerror}", retryable=False
            ) from None
    started = time.monotonic()
    loop = asyncio.get_running_loop()
    try:
        try:
            transport, protocol = await loop.subprocess_exec(
                lambda: _ExitAwareProtocol(loop),
                *argv,
                stdin=stdin_file if stdin_file is not None else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=dict(env),
                cwd=cwd,
                start_new_session=True,
                close_fds=True,
            )
        except FileNotFoundError:
            raise ToolError(f"{label}: executable {argv[0]!r} not found on PATH", retryable=False) from None
        except PermissionError:
            raise ToolError(f"{label}: executable {argv[0]!r} is not executable", retryable=False) from None
        except OSError as exc:
            raise ToolError(f"{label}: cannot start {argv[0]!r}: {exc}", retryable=False) from None
    finally:
        if stdin_file is not None:
            stdin_file.close()  # the child has its own copy of the descriptor now

    proc = asyncio.subprocess.Process(transport, protocol, loop)
    pgid = proc.pid  # start_new_session: the child leads a new group whose id is its pid
    out, err = _Capture(max_output), _Capture(max_output)
    readers = asyncio.gather(out.read(proc.stdout), err.read(proc.stderr))
    finished = False
    try:
        try:
            await asyncio.wait_for(asyncio.shield(protocol.exited), timeout_s)
        except TimeoutError:
            raise ToolTimeout(
                f"{label}: timed out after {timeout_s:g}s; its process group was killed"
            ) from None
        finished = True
    finally:
        # Always: after a timeout, a cancellation, or a normal exit that left background jobs.
        try:
            await kill_group(pgid, proc, grace_s if not finished else min(grace_s, 0.5))
        finally:
            if not finished:
                readers.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await readers
    try:
        # Only a process that escaped the group (its own setsid) can still hold the pipes open.
        await asyncio.wait_for(readers, PIPE_DRAIN_S)
    except TimeoutError:
        transport.close()
    returncode = transport.get_returncode()
    assert returncode is not None
    return ProcResult(
        returncode, bytes(out.data), bytes(err.data), out.truncated, err.truncated, time.monotonic() - started
    )
