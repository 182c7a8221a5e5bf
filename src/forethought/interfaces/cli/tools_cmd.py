"""``forethought tools`` (list configured tools) and ``forethought mcp serve`` (forethought over MCP)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from forethought._extras import import_extra
from forethought.execution import eventloop
from forethought.interfaces.cli._common import json_option, print_json, run_async, tools_option
from forethought.tools.base import ToolSpec
from forethought.tools.loader import open_tools

# Where `mcp serve` finds the real service unless --service says otherwise (wired by the lead).
DEFAULT_SERVICE = "forethought.interfaces.mcp_service:default_service"


def spec_summary(spec: ToolSpec) -> dict[str, Any]:
    return {
        "name": spec.name,
        "source": spec.source,
        "effect": spec.effect,
        "idempotent": spec.idempotent,
        "timeout_s": spec.timeout_s,
        "description": spec.description,
        "input_schema": spec.input_schema,
        "output_schema": spec.output_schema,
        "definition_hash": spec.definition_hash(),
    }


def _params_line(schema: dict[str, Any]) -> str:
    props = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    parts = []
    for name, prop in props.items():
        ptype = prop.get("type") if isinstance(prop, dict) else None
        if ptype is None and isinstance(prop, dict) and "anyOf" in prop:
            ptype = "|".join(str(p.get("type", "?")) for p in prop["anyOf"] if isinstance(p, dict))
        parts.append(f"{name}{'' if name in required else '?'}: {ptype or 'any'}")
    return ", ".join(parts) or "(none)"


def _output_line(schema: dict[str, Any] | None) -> str:
    if not schema:
        return "any"
    if schema.get("type") == "object" and "properties" in schema:
        return "{" + ", ".join(schema["properties"]) + "}"
    return str(schema.get("type", "any"))


def render_text(specs: Sequence[ToolSpec]) -> str:
    if not specs:
        return "no tools configured (pass --tools FILE.py or --tools FILE.yaml)"
    lines = []
    for spec in specs:
        timeout = f"{spec.timeout_s:g}s" if spec.timeout_s else "-"
        lines.append(
            f"{spec.name}  [{spec.effect}{', idempotent' if spec.idempotent else ''}, "
            f"timeout {timeout}]  {spec.source}"
        )
        if spec.description:
            lines.append(f"    {spec.description.strip().splitlines()[0]}")
        lines.append(f"    in:  {_params_line(spec.input_schema)}")
        lines.append(f"    out: {_output_line(spec.output_schema)}")
    return "\n".join(lines)


@click.command("tools")
@tools_option
@json_option
@click.option("--no-entry-points", is_flag=True, help="Ignore tools installed via entry points.")
@click.option(
    "--workspace",
    type=click.Path(file_okay=False),
    help="Root the built-in file tools are confined to (default: .).",
)
def tools(tools_paths: tuple[str, ...], as_json: bool, no_entry_points: bool, workspace: str | None) -> None:
    """List every tool `forethought run` would use: --tools files and forethought.toml's tools,
    the enabled built-ins, and installed entry points; with source, effect and schemas."""
    from forethought.interfaces.config import load_config
    from forethought.interfaces.session import builtins_for, tool_setup

    setup = tool_setup(load_config({"workspace": workspace}), tools_paths)
    builtins = builtins_for(setup["workspace"], setup["builtins"])

    async def collect() -> list[ToolSpec]:
        async with open_tools(
            setup["tools"], include_entry_points=not no_entry_points, extra=builtins
        ) as registry:
            return sorted(registry.specs().values(), key=lambda s: s.name)

    specs = run_async(collect)
    if as_json:
        print_json([spec_summary(s) for s in specs])
    else:
        click.echo(render_text(specs))


@click.group("mcp")
def mcp() -> None:
    """forethought and the Model Context Protocol."""


@mcp.command("serve")
@click.option(
    "--service",
    default=DEFAULT_SERVICE,
    show_default=True,
    help="module:attribute of the AgentService to expose (advanced; for embedding and tests).",
)
def serve(service: str) -> None:
    """Serve forethought over MCP on stdio: tools plan, run, run_status, approve."""
    import_extra("mcp", "`forethought mcp serve`")
    from forethought.interfaces.mcp_server import load_service, serve_stdio

    agent_service = load_service(service)
    eventloop.run(serve_stdio(agent_service))
