"""forethought as an MCP server (stdio): other agents delegate multi-step work to it.

Four tools: ``plan`` (goal → plan artifact, nothing runs), ``run`` (a goal or a plan; side effects
wait for approval exactly as on the CLI), ``run_status`` and ``approve`` (bound to the plan hash the
caller saw, so an agent cannot approve a plan that changed under it).

The server is written against ``AgentService``, a four-method protocol, so it does not depend on
how the planner, executor and store are assembled; the CLI passes the real service, tests pass a
fake. ``python -m forethought.interfaces.mcp_server --service module:factory`` serves any implementation.

The MCP SDK is an extra (``forethought[mcp]``): only ``build_server`` imports it, so the protocol
and ``load_service`` work without it and a missing SDK is one line naming the extra.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from forethought._extras import import_extra
from forethought.errors import ForethoughtError, UserError
from forethought.execution import eventloop

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

SERVER_NAME = "forethought"


@runtime_checkable
class AgentService(Protocol):
    """What the MCP server needs from the rest of forethought. Every method returns JSON-able data."""

    async def plan(self, goal: str) -> dict[str, Any]:
        """Plan ``goal``; return at least ``{"plan": <plan dict>, "plan_hash": str}``."""
        ...

    async def run(self, *, goal: str | None = None, plan: dict[str, Any] | None = None) -> dict[str, Any]:
        """Start a run; return at least ``{"run_id", "status"}`` (``awaiting_approval`` for side effects)."""
        ...

    async def run_status(self, run_id: str) -> dict[str, Any]:
        """The run's summary (the CLI's ``--json`` shape)."""
        ...

    async def approve(self, run_id: str, plan_hash: str) -> dict[str, Any]:
        """Approve the plan version with ``plan_hash`` and continue the run."""
        ...


def build_server(service: AgentService, *, name: str = SERVER_NAME) -> MCPServer:
    import_extra("mcp", "the forethought MCP server")
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError as McpToolError
    from mcp_types import ToolAnnotations

    async def _guard(call: Callable[[], Any]) -> dict[str, Any]:
        """Turn forethought's errors into MCP tool errors whose message reaches the calling agent."""
        try:
            result = await call()
        except ForethoughtError as exc:
            raise McpToolError(str(exc)) from exc
        if not isinstance(result, dict):
            raise McpToolError(f"internal error: service returned {type(result).__name__}, not an object")
        return result

    server = MCPServer(
        name,
        subscriptions=False,
        instructions=(
            "forethought plans a goal into an explicit DAG of tool calls and executes it. Call `plan` to "
            "see a plan, `run` to execute (side effects wait for `approve` with the plan hash), "
            "`run_status` to follow a run."
        ),
    )

    @server.tool(annotations=ToolAnnotations(title="Plan a goal", read_only_hint=True))
    async def plan(goal: str) -> dict[str, Any]:
        """Turn a goal into an explicit, reviewable plan (nothing is executed)."""
        if not goal.strip():
            raise McpToolError("`goal` must not be empty")
        return await _guard(lambda: service.plan(goal))

    @server.tool(
        annotations=ToolAnnotations(title="Run a goal or plan", read_only_hint=False, destructive_hint=False)
    )
    async def run(goal: str | None = None, plan: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run a goal (planned first) or a given plan. Steps with side effects wait for `approve`."""
        if (goal is None) == (plan is None):
            raise McpToolError("give exactly one of `goal` or `plan`")
        return await _guard(lambda: service.run(goal=goal, plan=plan))

    @server.tool(annotations=ToolAnnotations(title="Run status", read_only_hint=True, idempotent_hint=True))
    async def run_status(run_id: str) -> dict[str, Any]:
        """Status and step results of a run."""
        return await _guard(lambda: service.run_status(run_id))

    @server.tool(
        annotations=ToolAnnotations(
            title="Approve a plan", read_only_hint=False, destructive_hint=True, idempotent_hint=True
        )
    )
    async def approve(run_id: str, plan_hash: str) -> dict[str, Any]:
        """Approve the plan version whose hash you reviewed; the run then executes its side effects."""
        return await _guard(lambda: service.approve(run_id, plan_hash))

    return server


async def serve_stdio(service: AgentService, *, name: str = SERVER_NAME) -> None:
    """Serve until the client closes stdin."""
    await build_server(service, name=name).run_stdio_async()


def load_service(spec: str) -> AgentService:
    """``module:attribute`` naming an ``AgentService`` or a zero-argument factory returning one."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise UserError(f"--service {spec!r}: expected `module:attribute`")
    try:
        obj: Any = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise UserError(f"--service {spec!r} cannot be loaded: {exc}") from None
    if not isinstance(obj, AgentService) and callable(obj):
        obj = obj()
    if inspect.isawaitable(obj):
        raise UserError(f"--service {spec!r}: the factory must be synchronous")
    if not isinstance(obj, AgentService):
        raise UserError(
            f"--service {spec!r} is not an AgentService (needs async plan, run, run_status, approve)"
        )
    return obj


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m forethought.interfaces.mcp_server", description="Serve forethought over MCP (stdio)."
    )
    parser.add_argument("--service", required=True, help="module:attribute of an AgentService")
    args = parser.parse_args(argv)
    try:
        import_extra("mcp", "the forethought MCP server")
        service = load_service(args.service)
    except UserError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    eventloop.run(serve_stdio(service))
    return 0


if __name__ == "__main__":
    sys.exit(main())
