"""Test tools for the executor: scripted behaviour, call recording, no real I/O."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from forethought.errors import ToolError
from forethought.plan.model import Effect
from forethought.tools.base import ToolContext, ToolSpec


class FnTool:
    """A tool whose behaviour is an async function of (args, ctx); records every call."""

    def __init__(
        self,
        name: str,
        fn: Callable[[dict[str, Any], ToolContext], Awaitable[Any]] | None = None,
        *,
        effect: Effect = "read_only",
        idempotent: bool | None = None,
        timeout_s: float | None = None,
    ) -> None:
        self._spec = ToolSpec(
            name=name,
            effect=effect,
            timeout_s=timeout_s,
            idempotent=(effect == "read_only") if idempotent is None else idempotent,
        )
        self.fn = fn
        self.calls: list[tuple[dict[str, Any], ToolContext, float]] = []
        self.active = 0
        self.max_active = 0

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    async def invoke(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        self.calls.append((args, ctx, time.monotonic()))
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        try:
            if self.fn is None:
                return args.get("value", ctx.step_id)
            return await self.fn(args, ctx)
        finally:
            self.active -= 1


def sleeper(name: str = "sleep", **kw: Any) -> FnTool:
    async def fn(args: dict[str, Any], ctx: ToolContext) -> Any:
        await asyncio.sleep(float(args.get("s", 0.01)))
        return args.get("value", ctx.step_id)

    return FnTool(name, fn, **kw)


def failing(
    name: str = "fail", *, times: int = 10**9, retryable: bool = True, exc: type[Exception] | None = None
) -> FnTool:
    """Fails the first ``times`` calls, then returns "ok"."""
    count = {"n": 0}

    async def fn(args: dict[str, Any], ctx: ToolContext) -> Any:
        count["n"] += 1
        if count["n"] <= times:
            if exc is not None:
                raise exc("boom")
            raise ToolError("boom", retryable=retryable)
        return "ok"

    return FnTool(name, fn)


def registry(*tools: FnTool) -> dict[str, FnTool]:
    return {t.spec.name: t for t in tools}


def kinds(events: list[Any], step_id: str | None = None) -> list[str]:
    return [e.kind for e in events if step_id is None or getattr(e, "step_id", None) == step_id]
