"""Code that runs inside a process-backend worker: locate the tool, run calls, answer on a pipe.

Tools are located by (source, name) rather than pickled: ``@tool`` replaces the module attribute
with a ``PythonTool`` wrapper, so the function cannot be pickled by reference, and a tools file
loaded with ``--tools`` is not importable by module name in a fresh process anyway.
"""

from __future__ import annotations

import asyncio
import importlib
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from forethought.errors import ToolError
from forethought.tools.base import Tool, ToolContext
from forethought.tools.python import PythonTool, load_python_tools


def locate(source: str, name: str) -> Tool:
    """Find tool ``name`` from its ``ToolSpec.source`` (``python:<file.py>`` or ``python:<module>``)."""
    origin = source.removeprefix("python:")
    if origin.endswith(".py") or "/" in origin:
        candidates: list[Any] = list(load_python_tools(Path(origin)))
    else:
        candidates = list(vars(importlib.import_module(origin)).values())
    for value in candidates:
        if isinstance(value, PythonTool) and value.spec.name == name:
            return value
    raise ToolError(f"tool {name!r} not found in {origin} inside the worker process", retryable=False)


def serve(conn: Connection) -> None:
    """Worker main loop: one request at a time until the parent closes the pipe."""
    cache: dict[tuple[str, str], Tool] = {}
    while True:
        try:
            source, name, args, ctx = conn.recv()
        except (EOFError, OSError):
            return
        reply: tuple[Any, ...]
        try:
            key = (source, name)
            tool = cache.get(key)
            if tool is None:
                tool = cache[key] = locate(source, name)
            assert isinstance(ctx, ToolContext)
            reply = ("ok", asyncio.run(tool.invoke(args, ctx)))
        except ToolError as exc:
            reply = ("tool_error", str(exc), exc.retryable)
        except BaseException as exc:  # SystemExit from a tool is a tool failure too
            reply = ("tool_error", f"{type(exc).__name__}: {exc}", True)
        try:
            conn.send(reply)
        except Exception as exc:
            conn.send(
                (
                    "tool_error",
                    "the output cannot be sent back from the worker process "
                    f"({type(exc).__name__}: {exc}); return JSON-able data",
                    False,
                )
            )
