"""Where a step's tool call runs: in-process asyncio (default) or a pool of worker processes.

A backend is one small async method, so a Ray (or any remote) backend is a new class of a dozen
lines: ``call(tool, args, ctx) -> output`` raising ``ToolError`` on failure, plus ``aclose()``.
A plan step selects a backend by name with ``executor: process``; the default is ``local``.
"""

from forethought.execution.backends.base import Backend, LocalBackend, WorkerCrashed
from forethought.execution.backends.process import ProcessBackend

__all__ = ["Backend", "LocalBackend", "ProcessBackend", "WorkerCrashed"]
