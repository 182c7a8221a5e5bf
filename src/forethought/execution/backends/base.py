"""The backend contract and the default in-process backend."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from forethought.errors import ToolError
from forethought.tools.base import Tool, ToolContext


class WorkerCrashed(ToolError):
    """The process running a tool call died (killed, segfault, ``os._exit``) before answering."""


@runtime_checkable
class Backend(Protocol):
    """Runs one tool call somewhere; the executor owns timeouts, retries and events.

    Cancellation (a timeout or an aborted run) arrives as ``asyncio.CancelledError`` inside
    ``call``; a backend must stop the call's work before re-raising (kill the worker, cancel the
    remote task) so that a timed-out call does not keep running unseen.
    """

    name: str

    async def call(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> Any: ...

    async def aclose(self) -> None: ...


class LocalBackend:
    """In the executor's own event loop (sync ``@tool`` functions run in a worker thread)."""

    name = "local"

    async def call(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> Any:
        return await tool.invoke(args, ctx)

    async def aclose(self) -> None:
        return None
