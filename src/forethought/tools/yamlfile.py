"""Load a ``--tools tools.yaml`` file: command/script tools and MCP servers.

Shape (the seed's ``gantz.yaml`` is a valid instance)::

    root: .                  # optional: allowed root for `kind: path` parameters (default: this dir)
    tools:
      - name: run_migration
        description: Execute a migration file
        parameters:
          - {name: file, type: string, required: true, kind: path}
        script:
          shell: psql mydb < {{file}}
    mcp_servers:
      - {name: time, command: [mcp-server-time]}
      - {name: remote, url: "http://127.0.0.1:8000/mcp"}

YAML is parsed with the safe loader only (no Python object tags). Every mistake is reported as one
line naming the file, the line, the tool and what to change.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from forethought._extras import import_extra
from forethought.errors import UserError
from forethought.plan._yaml import SafeLoader, load_yaml
from forethought.tools._proc import probe_supervision
from forethought.tools.base import Tool
from forethought.tools.command import CommandTool, CommandToolConfig

_TOP_KEYS = {"tools", "mcp_servers", "root"}


def _item_lines(text: str, key: str) -> list[int]:
    """1-based line of each item of the top-level sequence ``key`` (for error messages)."""
    try:
        node = yaml.compose(text, Loader=SafeLoader)
    except yaml.YAMLError:
        return []
    if not isinstance(node, yaml.MappingNode):
        return []
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key and isinstance(v, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in v.value]
    return []


def format_validation_error(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"])
        msg = str(err["msg"]).removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown field (check the spelling)"
        parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts)


def read_tools_document(path: Path) -> tuple[dict[str, Any], str]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{path}: tools file not found; check the --tools path") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read tools file: {exc}") from None
    data = load_yaml(text, str(path))  # the same YAML 1.2, tag-free reading as plan files
    if not isinstance(data, dict):
        raise UserError(
            f"{path}: a tools file must be a mapping with a `tools:` list (and optionally `mcp_servers:`)"
        )
    unknown = sorted(set(map(str, data)) - _TOP_KEYS)
    if unknown:
        raise UserError(
            f"{path}: unknown top-level key(s) {', '.join(unknown)}; expected {', '.join(sorted(_TOP_KEYS))}"
        )
    return data, text


def command_tools(path: Path, data: dict[str, Any], text: str) -> list[Tool]:
    raw_tools = data.get("tools") or []
    if not isinstance(raw_tools, list):
        raise UserError(f"{path}: `tools` must be a list of tool definitions")
    lines = _item_lines(text, "tools")
    base_dir = path.parent.resolve()
    default_root = data.get("root")
    if default_root is not None and not isinstance(default_root, str):
        raise UserError(f"{path}: `root` must be a directory path string")
    found: list[Tool] = []
    for index, raw in enumerate(raw_tools):
        line = f":{lines[index]}" if index < len(lines) else ""
        name = raw.get("name") if isinstance(raw, dict) else None
        label = f"tool {name!r}" if isinstance(name, str) else f"tools[{index}]"
        if not isinstance(raw, dict):
            raise UserError(f"{path}{line}: {label} must be a mapping with name, description, ...")
        if default_root is not None and "root" not in raw:
            raw = {**raw, "root": default_root}
        try:
            config = CommandToolConfig.model_validate(raw)
            found.append(CommandTool(config, base_dir=base_dir, source=f"yaml:{path}"))
        except ValidationError as exc:
            raise UserError(f"{path}{line}: {label}: {format_validation_error(exc)}") from None
        except ValueError as exc:
            raise UserError(f"{path}{line}: {label}: {exc}") from None
    return found


async def load_yaml_tools(path: Path, stack: contextlib.AsyncExitStack) -> list[Tool]:
    """All tools declared in ``path``; MCP sessions are entered on ``stack`` and live as long as it."""
    data, text = read_tools_document(path)
    tools = command_tools(path, data, text)
    if tools:
        # The first command run would otherwise probe `setpriv` (a child process) on the loop
        # thread, mid-run, delaying every step started in that turn by milliseconds.
        await asyncio.to_thread(probe_supervision)
    raw_servers = data.get("mcp_servers") or []
    if not isinstance(raw_servers, list):
        raise UserError(f"{path}: `mcp_servers` must be a list of server definitions")
    if raw_servers:
        # The MCP SDK is an extra: ``forethought.tools.mcp`` imports it, so it is imported only here.
        import_extra("mcp", f"{path}: `mcp_servers`")
        from forethought.tools.mcp import McpServerConfig, open_mcp_server

        lines = _item_lines(text, "mcp_servers")
        for index, raw in enumerate(raw_servers):
            line = f":{lines[index]}" if index < len(lines) else ""
            name = raw.get("name") if isinstance(raw, dict) else None
            label = f"mcp server {name!r}" if isinstance(name, str) else f"mcp_servers[{index}]"
            try:
                config = McpServerConfig.model_validate(raw)
            except ValidationError as exc:
                raise UserError(f"{path}{line}: {label}: {format_validation_error(exc)}") from None
            tools.extend(
                await open_mcp_server(
                    config, stack, base_dir=path.parent.resolve(), source=f"mcp:{config.name}@{path}"
                )
            )
    return tools
