"""Tool-definition pinning: an approval is bound to the tools' definitions as well as to the plan.

A human approves "run ``db.migrate`` with these args" having seen what ``db.migrate`` claims to do.
A definition hash covers the declared surface and the tool's ``implementation_digest``: a YAML
tool's command/script/env/cwd/parameters, a Python tool's bytecode and module file, an MCP tool's
whole remote definition and server. A local tool (Python, YAML) cannot change during one process,
but can between approval and a later ``resume``: the gate (``oversight.approvals``) compares the
pinned hashes with the tools as loaded then. An MCP server can redefine a tool at any time:
``pinned_hashes(registry, names)`` records the hashes, ``verify_pinned`` checks them before
running, and ``pin_tools`` makes every MCP call re-check; a mismatch is a non-retryable
``ToolError`` saying "re-approve". (Nothing in the runtime calls ``pin_tools`` yet: see
docs/security.md.)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from forethought.errors import ToolError
from forethought.tools.base import Tool


async def current_definition_hash(tool: Tool) -> str:
    """The definition hash as the tool's source reports it *now* (MCP tools re-list their server)."""
    live = getattr(tool, "current_definition_hash", None)
    if live is not None:
        result = await live()
        assert isinstance(result, str)
        return result
    return tool.spec.definition_hash()


def pinned_hashes(tools: Mapping[str, Tool], names: Iterable[str] | None = None) -> dict[str, str]:
    """Name → definition hash for ``names`` (default: every tool), as recorded at approval time."""
    chosen = tools if names is None else {n: tools[n] for n in names if n in tools}
    return {name: tool.spec.definition_hash() for name, tool in chosen.items()}


async def verify_pinned(tools: Mapping[str, Tool], pinned: Mapping[str, str]) -> None:
    """Raise ``ToolError`` naming the first tool whose definition differs from its pinned hash."""
    for name, expected in pinned.items():
        tool = tools.get(name)
        if tool is None:
            raise ToolError(
                f"tool {name!r} was approved but is no longer configured; re-approve", retryable=False
            )
        if await current_definition_hash(tool) != expected:
            raise ToolError(f"tool {name!r} changed since approval; re-approve", retryable=False)


def pin_tools(tools: Mapping[str, Tool], pinned: Mapping[str, str]) -> None:
    """Make live-checkable tools (MCP) refuse to run if their definition drifts from ``pinned``."""
    for name, expected in pinned.items():
        pin = getattr(tools.get(name), "pin", None)
        if pin is not None:
            pin(expected)
