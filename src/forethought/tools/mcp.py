"""MCP servers as tool sources, with the official ``mcp`` SDK (2.x).

Each server declared under ``mcp_servers:`` is started (stdio) or connected (streamable HTTP) once
per ``open_tools`` and its tools become forethought tools named ``<prefix>.<tool>`` (prefix defaults
to the server name; ``prefix: ""`` keeps bare names). Annotations map to effects: ``readOnlyHint``
→ ``read_only``, ``destructiveHint`` → ``destructive``, otherwise ``mutating``; ``idempotentHint``
→ ``idempotent``. Annotations are the server's claims, so ``effects:`` can override them.

The session runs in its own task (an anyio task group must be entered and left by one task, and the
executor calls tools from many). A crash of the server fails the calls in flight and every later
call with a ``ToolError`` naming the server; it never hangs a step.

A server can change a tool behind our back, so approval pins ``definition_hash()`` values and
``McpTool.pin()`` makes every call re-list the server's tools first and refuse to run a tool whose
definition no longer matches (see ``forethought.tools.pinning``).

The SDK is an extra (``forethought[mcp]``) and this module is the adapter: it imports the SDK at
its top and is itself imported only inside ``tools.yamlfile.load_yaml_tools``, once
``import_extra`` has checked the SDK is there (so a missing SDK is one line, not a traceback).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import tempfile
from pathlib import Path
from typing import Any, TextIO

import mcp_types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ConfigDict, Field, model_validator

from forethought.errors import ToolError, ToolTimeout, UserError
from forethought.plan.model import Effect
from forethought.plan.tool_spec import digest_of
from forethought.tools.base import ToolContext, ToolSpec

_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")
_MAX_PAGES = 100
_STDERR_TAIL = 1500
TEXT_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string"}, "content": {"type": "array"}},
    "required": ["text", "content"],
}


class McpServerConfig(BaseModel):
    """One entry of ``mcp_servers:``: a stdio ``command`` or a streamable-HTTP ``url``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
    command: list[str] | None = None
    url: str | None = None
    env: list[str] | dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    prefix: str | None = None
    include: list[str] | None = Field(default=None, description="Only these remote tools.")
    effects: dict[str, Effect] = Field(default_factory=dict, description="Effect overrides by remote name.")
    startup_timeout_s: float = Field(default=30.0, gt=0, le=600)
    timeout_s: float = Field(default=300.0, gt=0, le=7 * 86400)

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerConfig:
        if (self.command is None) == (self.url is None):
            raise ValueError("give exactly one of `command` (argv list, stdio) or `url` (streamable HTTP)")
        if self.command is not None and not self.command:
            raise ValueError("`command` must not be empty")
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise ValueError("`url` must start with http:// or https://")
        return self

    @property
    def display(self) -> str:
        return " ".join(self.command) if self.command else str(self.url)


def effect_of(tool: mcp_types.Tool, override: Effect | None = None) -> Effect:
    if override is not None:
        return override
    ann = tool.annotations
    if ann is not None and ann.read_only_hint is True:
        return "read_only"
    if ann is not None and ann.destructive_hint is True:
        return "destructive"
    return "mutating"


class McpConnection:
    """One live client session, owned by a dedicated task so any task may call through it."""

    def __init__(self, config: McpServerConfig, base_dir: Path) -> None:
        self.config = config
        self.base_dir = base_dir
        self.client: Client | None = None
        self.failure: str | None = None  # set when the session ends unexpectedly
        self._ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        # A start-up failure after our timeout fired has no awaiter; retrieve it to keep asyncio quiet.
        self._ready.add_done_callback(lambda f: None if f.cancelled() else f.exception())
        self._closing = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._errlog: TextIO | None = None

    def _target(self) -> StdioServerParameters | str:
        if self.config.url is not None:
            return self.config.url
        assert self.config.command is not None
        env = self.config.env
        extra = dict(env) if isinstance(env, dict) else {k: os.environ[k] for k in env if k in os.environ}
        cwd = (self.base_dir / self.config.cwd) if self.config.cwd else self.base_dir
        return StdioServerParameters(
            command=self.config.command[0], args=self.config.command[1:], env=extra, cwd=cwd
        )

    def stderr_tail(self) -> str:
        if self._errlog is None:
            return ""
        with contextlib.suppress(OSError, ValueError):
            self._errlog.flush()
            self._errlog.seek(0)
            return self._errlog.read()[-_STDERR_TAIL:].strip()
        return ""

    async def start(self) -> None:
        target = self._target()
        if isinstance(target, StdioServerParameters):
            # A real file (not a pipe): the server may write lots of logs and must never block on them.
            self._errlog = tempfile.TemporaryFile(  # noqa: SIM115 - closed in close()
                "w+", encoding="utf-8", errors="replace"
            )
        self._task = asyncio.create_task(self._own(target), name=f"mcp-server:{self.config.name}")
        what = f"MCP server {self.config.name!r} ({self.config.display})"
        try:
            await asyncio.wait_for(asyncio.shield(self._ready), self.config.startup_timeout_s)
        except asyncio.CancelledError:
            self._task.cancel()  # the SDK's shielded transport shutdown still stops the server process
            raise
        except TimeoutError:
            await self.close()
            raise UserError(
                f"{what} did not finish its handshake within {self.config.startup_timeout_s:g}s"
                f"{self._tail_suffix()}; check the command or raise startup_timeout_s"
            ) from None
        except Exception as exc:
            tail = self._tail_suffix()
            await self.close()
            if self.config.url is not None:
                raise UserError(
                    f"{what} could not be connected: {_describe(exc)}; check the URL and "
                    "that the server is running"
                ) from None
            raise UserError(
                f"{what} failed to start: {_describe(exc)}{tail}; "
                "check the command, its arguments and that it speaks MCP on stdio"
            ) from None

    def _tail_suffix(self) -> str:
        lines = [ln.strip() for ln in self.stderr_tail().splitlines() if ln.strip()]
        tail = " | ".join(lines[-3:])
        return f" (stderr: {tail[-300:]})" if tail else ""

    async def _own(self, target: StdioServerParameters | str) -> None:
        try:
            server: Any = target
            if isinstance(target, StdioServerParameters):
                assert self._errlog is not None
                server = stdio_client(target, errlog=self._errlog)
            # cache=None: re-listing must reach the server, or a changed definition would go unseen.
            async with Client(server, cache=None) as client:
                self.client = client
                self._ready.set_result(None)
                await self._closing.wait()
        except BaseException as exc:  # the session's end, whatever it was, is recorded not raised
            if not self._ready.done():
                self._ready.set_exception(exc if isinstance(exc, Exception) else RuntimeError(repr(exc)))
            elif not self._closing.is_set():
                self.failure = _describe(exc)
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
        finally:
            if self.failure is None and not self._closing.is_set() and self._ready.done():
                self.failure = "the session ended"
            self.client = None

    async def close(self) -> None:
        self._closing.set()
        if self._task is not None and not self._task.done() and not self._ready.done():
            self._task.cancel()  # still in the handshake: nothing to shut down gracefully
        if self._task is not None and not self._task.done():
            try:
                await asyncio.wait_for(asyncio.shield(self._task), 15.0)
            except TimeoutError:
                self._task.cancel()
                with contextlib.suppress(BaseException):
                    await self._task
        if self._errlog is not None:
            self._errlog.close()
            self._errlog = None

    def _live_client(self, tool: str) -> Client:
        if self.client is None or self.failure is not None:
            reason = self.failure or "not connected"
            raise ToolError(
                f"MCP server {self.config.name!r} is unavailable ({reason}); "
                f"cannot call {tool!r}{self._tail_suffix()}"
            )
        return self.client

    async def list_tools(self) -> list[mcp_types.Tool]:
        client = self._live_client("tools/list")
        tools: list[mcp_types.Tool] = []
        cursor: str | None = None
        try:
            for _ in range(_MAX_PAGES):
                page = await asyncio.wait_for(client.list_tools(cursor=cursor), self.config.startup_timeout_s)
                tools.extend(page.tools)
                cursor = page.next_cursor
                if cursor is None:
                    break
        except TimeoutError:
            raise ToolTimeout(f"MCP server {self.config.name!r}: listing tools timed out") from None
        except MCPError as exc:
            raise ToolError(f"MCP server {self.config.name!r}: listing tools failed: {exc}") from None
        return tools

    async def call(
        self, remote_name: str, args: dict[str, Any], timeout_s: float
    ) -> mcp_types.CallToolResult:
        client = self._live_client(remote_name)
        label = f"MCP tool {remote_name!r} on server {self.config.name!r}"
        try:
            return await asyncio.wait_for(client.call_tool(remote_name, args), timeout_s)
        except TimeoutError:
            raise ToolTimeout(f"{label} timed out after {timeout_s:g}s") from None
        except MCPError as exc:
            if self.failure is not None or exc.code == mcp_types.CONNECTION_CLOSED:
                self.failure = self.failure or "the server closed the connection"
                raise ToolError(
                    f"{label}: the server exited or crashed during the call ({exc}){self._tail_suffix()}"
                ) from None
            raise ToolError(f"{label} failed: {exc}", retryable=False) from None
        except (OSError, EOFError, RuntimeError) as exc:
            raise ToolError(f"{label}: connection failed: {_describe(exc)}{self._tail_suffix()}") from None


def _describe(exc: BaseException) -> str:
    if isinstance(exc, FileNotFoundError):
        return f"command not found ({exc.filename or exc})"
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in exc.exceptions)
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class McpTool:
    """A remote MCP tool behind the ``Tool`` protocol."""

    def __init__(self, connection: McpConnection, remote: mcp_types.Tool, *, source: str) -> None:
        self.connection = connection
        self.remote_name = remote.name
        self.source = source
        self.pinned_hash: str | None = None
        self._spec = self.spec_for(remote)

    def spec_for(self, remote: mcp_types.Tool) -> ToolSpec:
        cfg = self.connection.config
        prefix = cfg.name if cfg.prefix is None else cfg.prefix
        local = _NAME_UNSAFE.sub("_", f"{prefix}.{remote.name}" if prefix else remote.name)
        if not re.match(r"^[A-Za-z_]", local):
            local = f"_{local}"
        effect = effect_of(remote, cfg.effects.get(remote.name))
        ann = remote.annotations
        return ToolSpec(
            name=local[:128],
            description=remote.description or (ann.title if ann and ann.title else ""),
            input_schema=dict(remote.input_schema),
            output_schema=dict(remote.output_schema) if remote.output_schema else TEXT_OUTPUT_SCHEMA,
            effect=effect,
            idempotent=bool(ann is not None and ann.idempotent_hint) or effect == "read_only",
            timeout_s=cfg.timeout_s,
            source=self.source,
            implementation_digest=self.implementation_digest(remote),
        )

    def implementation_digest(self, remote: mcp_types.Tool) -> str:
        """Hash of the whole remote definition and of the server it runs on (pinned by approvals).

        The remote definition is taken whole (title, annotations, execution hints, ``_meta``...),
        not only what the spec shows; the server is its command and arguments or URL, its
        environment and its resolved working directory.
        """
        cfg = self.connection.config
        cwd = (self.connection.base_dir / cfg.cwd) if cfg.cwd else self.connection.base_dir
        return digest_of(
            {
                "kind": "mcp",
                "remote": remote.model_dump(mode="json", by_alias=True),
                "server": {
                    "command": cfg.command,
                    "url": cfg.url,
                    "env": cfg.env,
                    "cwd": str(cwd) if cfg.command is not None else None,
                },
            }
        )

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    def __repr__(self) -> str:
        return f"<mcp tool {self._spec.name} ({self._spec.effect})>"

    def pin(self, definition_hash: str) -> None:
        """Refuse to run unless the server still offers exactly this definition (checked per call)."""
        self.pinned_hash = definition_hash

    async def current_definition_hash(self) -> str:
        """Re-list the server's tools and hash this tool's definition as the server offers it now."""
        for remote in await self.connection.list_tools():
            if remote.name == self.remote_name:
                return self.spec_for(remote).definition_hash()
        raise ToolError(
            f"tool {self._spec.name!r} is no longer offered by MCP server "
            f"{self.connection.config.name!r}; re-plan or re-approve",
            retryable=False,
        )

    async def invoke(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        if self.pinned_hash is not None and await self.current_definition_hash() != self.pinned_hash:
            raise ToolError(
                f"tool {self._spec.name!r} changed since approval (its definition on MCP "
                f"server {self.connection.config.name!r} differs); re-approve the plan",
                retryable=False,
            )
        timeout = self._spec.timeout_s or self.connection.config.timeout_s
        result = await self.connection.call(self.remote_name, args, timeout)
        text = "\n".join(block.text for block in result.content if isinstance(block, mcp_types.TextContent))
        if result.is_error:
            raise ToolError(
                f"MCP tool {self._spec.name!r} reported an error: {text or 'no details'}", retryable=False
            )
        if result.structured_content is not None:
            return result.structured_content
        return {
            "text": text,
            "content": [b.model_dump(mode="json", by_alias=True, exclude_none=True) for b in result.content],
        }


async def open_mcp_server(
    config: McpServerConfig, stack: contextlib.AsyncExitStack, *, base_dir: Path, source: str
) -> list[McpTool]:
    """Start/connect one server, list its tools, and register its shutdown on ``stack``."""
    connection = McpConnection(config, base_dir)
    await connection.start()
    stack.push_async_callback(connection.close)
    try:
        remote_tools = await connection.list_tools()
    except ToolError as exc:
        raise UserError(
            f"MCP server {config.name!r} ({config.display}) started but listing its tools failed: {exc}"
        ) from None
    if config.include is not None:
        missing = sorted(set(config.include) - {t.name for t in remote_tools})
        if missing:
            raise UserError(
                f"MCP server {config.name!r} does not offer {', '.join(missing)} "
                f"(it offers: {', '.join(sorted(t.name for t in remote_tools))}); fix `include`"
            )
        remote_tools = [t for t in remote_tools if t.name in config.include]
    return [McpTool(connection, t, source=source) for t in remote_tools]
