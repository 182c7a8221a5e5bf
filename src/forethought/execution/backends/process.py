"""A pool of long-lived worker processes for CPU-bound Python tools.

Why not ``concurrent.futures.ProcessPoolExecutor``: when one worker dies, that pool marks itself
broken and fails *every* pending call, and it cannot kill a single timed-out call. Here each worker
has its own pipe: a worker that dies fails only its own call (``WorkerCrashed``), a cancelled or
timed-out call kills only its worker, and replacements are started on demand.

Workers are forked from a ``forkserver`` (clean, thread-free parent; cheap forks) and locate tools
by their source file or module (see ``_worker``), so only ``@tool`` functions defined at module
level of a ``.py`` file or an importable module can run here.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from forethought.errors import ToolError
from forethought.execution.backends import _worker
from forethought.execution.backends.base import WorkerCrashed
from forethought.tools.base import Tool, ToolContext

_PRELOAD = ["forethought.execution.backends._worker"]


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "exit status unknown"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


class _Worker:
    def __init__(self, ctx: Any) -> None:
        parent, child = multiprocessing.Pipe(duplex=True)
        self.process: BaseProcess = ctx.Process(
            target=_worker.serve, args=(child,), name="forethought-worker", daemon=True
        )
        self.process.start()
        child.close()  # only the worker holds the child end: its death closes the pipe (EOF)
        self.conn: Connection = parent

    async def request(self, message: tuple[Any, ...]) -> Any:
        loop = asyncio.get_running_loop()
        try:
            self.conn.send(message)
        except OSError as exc:  # an idle worker that died since its last call
            raise WorkerCrashed(f"the worker process is gone ({exc})") from None
        readable = loop.create_future()
        fd = self.conn.fileno()

        def wake() -> None:
            if not readable.done():
                readable.set_result(None)

        loop.add_reader(fd, wake)
        try:
            await readable
        finally:
            loop.remove_reader(fd)
        try:
            return self.conn.recv()
        except (EOFError, OSError):
            self.process.join(timeout=1.0)
            raise WorkerCrashed(
                f"the worker process running the tool died ({_describe_exit(self.process.exitcode)})"
            ) from None

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=2.0)


class ProcessBackend:
    """Runs ``@tool`` calls in worker processes; at most ``max_workers`` at a time."""

    name = "process"

    def __init__(self, max_workers: int | None = None, *, start_method: str = "forkserver") -> None:
        self.max_workers = max_workers or os.cpu_count() or 1
        self._ctx = multiprocessing.get_context(start_method)
        if start_method == "forkserver":
            self._ctx.set_forkserver_preload(_PRELOAD)
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        self._slots: asyncio.Semaphore | None = None

    async def call(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> Any:
        source = tool.spec.source
        if not source.startswith("python:"):
            raise ToolError(
                f"tool {tool.spec.name!r} ({source}) cannot run in the process backend: "
                "only @tool functions from a .py file or module can",
                retryable=False,
            )
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.max_workers)
        async with self._slots:
            worker = self._idle.pop() if self._idle else await self._spawn()
            clean = False
            try:
                reply = await worker.request((source, tool.spec.name, args, ctx))
                clean = True
            finally:
                if clean:
                    self._idle.append(worker)
                else:  # crashed, cancelled or timed out mid-call: this worker is not reusable
                    self._all.discard(worker)
                    await asyncio.to_thread(worker.kill)
        if reply[0] == "ok":
            return reply[1]
        raise ToolError(reply[1], retryable=bool(reply[2]))

    async def _spawn(self) -> _Worker:
        # Starting a process blocks (forkserver handshake); keep the event loop responsive.
        worker = await asyncio.to_thread(_Worker, self._ctx)
        self._all.add(worker)
        return worker

    async def aclose(self) -> None:
        workers, self._all, self._idle = self._all, set(), []
        for worker in workers:
            await asyncio.to_thread(worker.kill)
