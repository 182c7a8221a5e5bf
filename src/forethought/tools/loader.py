"""Open every configured tool source as one registry, for the lifetime of a run.

MCP servers are processes (or connections) that must be started before their tools can be listed
and closed afterwards, so opening tools is an async context manager that owns those resources.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable
from importlib.metadata import entry_points
from pathlib import Path

from forethought.errors import UserError
from forethought.tools.base import Tool, ToolRegistry
from forethought.tools.python import PythonTool, load_python_tools

ENTRY_POINT_GROUP = "forethought.tools"


def _entry_point_tools() -> list[Tool]:
    found: list[Tool] = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            obj = ep.load()
        except Exception as exc:
            raise UserError(
                f"tools entry point {ep.name!r} ({ep.value}) failed to load: "
                f"{type(exc).__name__}: {exc}; reinstall or uninstall that package"
            ) from None
        if isinstance(obj, Tool):
            found.append(obj)
        elif isinstance(obj, Iterable):
            found.extend(t for t in obj if isinstance(t, Tool))
        else:  # a module: collect its tools like a --tools file
            found.extend(v for v in vars(obj).values() if isinstance(v, PythonTool))
    return found


@contextlib.asynccontextmanager
async def open_tools(
    paths: Iterable[str | Path] = (),
    *,
    include_entry_points: bool = True,
    extra: Iterable[Tool] = (),
) -> AsyncIterator[ToolRegistry]:
    """Load tools from ``--tools`` paths (``.py``, ``.yaml``/``.yml``), entry points and ``extra``."""
    registry = ToolRegistry(extra)
    async with contextlib.AsyncExitStack() as stack:
        for raw in paths:
            path = Path(raw)
            suffix = path.suffix.lower()
            if suffix == ".py":
                registry.extend(load_python_tools(path))
            elif suffix in (".yaml", ".yml", ".json"):
                from forethought.tools.yamlfile import load_yaml_tools

                registry.extend(await load_yaml_tools(path, stack))
            else:
                raise UserError(
                    f"{path}: unknown tools file type {suffix or '(none)'}; "
                    "use a .py module of @tool functions or a .yaml tools file"
                )
        if include_entry_points:
            registry.extend(_entry_point_tools())
        yield registry
