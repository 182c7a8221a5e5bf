"""The tool contract: a frozen ``ToolSpec`` describing a tool, and ``Tool`` which can run it.

Every tool source (Python functions, YAML command tools, MCP servers, built-ins) produces objects
satisfying ``Tool``. The validator needs only specs; the executor needs ``invoke``. The registry is
a plain mapping so that tests and embedders can compose tool sets without subclassing anything.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from forethought.errors import UserError
from forethought.plan import Effect, canonical_dumps


class ToolSpec(BaseModel):
    """What the planner, validator, approver and UI know about a tool."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_.-]{0,127}$")
    description: str = ""
    input_schema: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )
    output_schema: dict[str, Any] | None = None
    effect: Effect = "read_only"
    idempotent: bool = False
    timeout_s: float | None = Field(default=None, gt=0)
    source: str = Field(default="python", description="Where it came from, e.g. `python:mod.py`.")
    est_latency_s: float | None = Field(default=None, ge=0, description="For critical paths.")

    def definition_hash(self) -> str:
        """Hash of everything that changes what a call does; pinned when a plan is approved."""
        data = self.model_dump(mode="json", exclude={"source", "est_latency_s"})
        return hashlib.sha256(canonical_dumps(data).encode()).hexdigest()

    @property
    def has_side_effects(self) -> bool:
        return self.effect != "read_only"


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
            raise UserError(
                f"tool {name!r} is defined twice ({other} and {tool.spec.source}); rename one"
            )
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
