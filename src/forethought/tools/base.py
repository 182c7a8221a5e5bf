"""The tool contract: a frozen ``ToolSpec`` describing a tool, and ``Tool`` which can run it.

Every tool source (Python functions, YAML command tools, MCP servers, built-ins) produces objects
satisfying ``Tool``. The validator needs only specs; the executor needs ``invoke``. The registry is
a plain mapping so that tests and embedders can compose tool sets without subclassing anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from forethought.errors import UserError
from forethought.plan.tool_spec import ToolSpec

__all__ = ["Tool", "ToolContext", "ToolRegistry", "ToolSpec"]


@dataclass(frozen=True)
class ToolContext:
    """What a running tool may know about its call. Python tools receive it by annotation."""

    run_id: str = ""
    step_id: str = ""
    attempt: int = 1
    idempotency_key: str = ""
    workspace: Path | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


@runtime_checkable
class Tool(Protocol):
    """A callable tool. ``invoke`` returns JSON-able output or raises ``ToolError``."""

    @property
    def spec(self) -> ToolSpec: ...

    async def invoke(self, args: dict[str, Any], ctx: ToolContext) -> Any: ...


class ToolRegistry(Mapping[str, Tool]):
    """Name → tool. Duplicate names are a user error naming both sources."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for t in tools:
            self.add(t)

    def add(self, tool: Tool) -> None:
        name = tool.spec.name
        if name in self._tools:
            other = self._tools[name].spec.source
            raise UserError(f"tool {name!r} is defined twice ({other} and {tool.spec.source}); rename one")
        self._tools[name] = tool

    def extend(self, tools: Iterable[Tool]) -> None:
        for t in tools:
            self.add(t)

    def specs(self) -> dict[str, ToolSpec]:
        return {name: t.spec for name, t in self._tools.items()}

    def __getitem__(self, name: str) -> Tool:
        return self._tools[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._tools)

    def __len__(self) -> int:
        return len(self._tools)
