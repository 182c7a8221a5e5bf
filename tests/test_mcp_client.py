"""MCP servers as tool sources, against real server processes over stdio.

One server is written with the SDK for these tests (``fixtures/tools/mcp_fixture_server.py``); the
other is the off-the-shelf ``mcp-server-time`` from PyPI.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from forethought.errors import ToolError, ToolTimeout, UserError
from forethought.tools.base import Tool, ToolContext
from forethought.tools.loader import open_tools
from forethought.tools.mcp import McpTool
from forethought.tools.pinning import current_definition_hash, pin_tools, pinned_hashes, verify_pinned

FIXTURE_SERVER = Path(__file__).parent / "fixtures" / "tools" / "mcp_fixture_server.py"
CTX = ToolContext()


def _write(tmp_path: Path, body: str, **fmt: Any) -> Path:
    path = tmp_path / "tools.yaml"
    path.write_text(textwrap.dedent(body).format(python=sys.executable, server=FIXTURE_SERVER, **fmt))
    return path


FIXTURE_YAML = """
mcp_servers:
  - name: fx
    command: ["{python}", "{server}"]
    env: {{FIXTURE_GREETING: hello}}
    timeout_s: 20
"""


async def _check_listing_and_calls(reg: Mapping[str, Tool]) -> None:
    assert {"fx.add", "fx.echo", "fx.wipe", "fx.fail", "fx.crash", "fx.redefine"} <= set(reg)
    add, echo, wipe = reg["fx.add"].spec, reg["fx.echo"].spec, reg["fx.wipe"].spec
    assert (add.effect, add.idempotent) == ("read_only", True)
    assert (echo.effect, echo.idempotent) == ("mutating", True)
    assert (wipe.effect, wipe.idempotent) == ("destructive", False)
    assert reg["fx.fail"].spec.effect == "mutating"
    assert add.input_schema["required"] == ["a", "b"]
    assert add.output_schema is not None and "total" in add.output_schema["properties"]
    assert echo.description == "Echo the text back."
    assert add.source.startswith("mcp:fx@")

    assert await reg["fx.add"].invoke({"a": 2, "b": 40}, CTX) == {"total": 42}
    out = await reg["fx.echo"].invoke({"text": "hi there"}, CTX)
    assert out["text"] == "hi there" and out["content"][0]["type"] == "text"
    assert (await reg["fx.env"].invoke({"name": "FIXTURE_GREETING"}, CTX))["result"] == "hello"
    # the server gets only the SDK's safe basics plus its declared `env:`, not our secrets
    assert (await reg["fx.env"].invoke({"name": "FORETHOUGHT_TEST_SECRET"}, CTX))["result"] == ""
    assert (await reg["fx.env"].invoke({"name": "PATH"}, CTX))["result"] != ""


def _processes_with(marker: str, where: str = "cmdline") -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / where).read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(int(entry.name))
    return found


async def _check_tool_errors(reg: Mapping[str, Tool]) -> None:
    with pytest.raises(ToolError, match=r"fx\.fail.*reported an error") as info:
        await reg["fx.fail"].invoke({"reason": "disk full"}, CTX)
    assert info.value.retryable is False
    with pytest.raises(ToolError, match="reported an error"):
        await reg["fx.add"].invoke({"a": "not a number", "b": 1}, CTX)
    # the server is still fine afterwards
    assert await reg["fx.add"].invoke({"a": 1, "b": 1}, CTX) == {"total": 2}


async def _check_concurrency(reg: Mapping[str, Tool]) -> None:
    started = time.monotonic()
    results = await asyncio.gather(
        *(reg["fx.add"].invoke({"a": i, "b": i}, CTX) for i in range(20)),
        *(reg["fx.sleep"].invoke({"seconds": 1.0}, CTX) for _ in range(4)),
    )
    assert time.monotonic() - started < 3.5  # the sleeps overlapped (in sequence: 4 s)
    assert results[:20] == [{"total": 2 * i} for i in range(20)]
    assert results[20:] == [{"result": "slept"}] * 4


async def test_sdk_fixture_server_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One server process for the checks that can share it (a server start costs ~1.5 s)."""
    monkeypatch.setenv("FORETHOUGHT_TEST_SECRET", "s3cr3t")
    marker = f"--marker-{tmp_path.name}"
    path = _write(tmp_path, FIXTURE_YAML.replace('"{server}"]', '"{server}", "' + marker + '"]'))
    async with open_tools([path], include_entry_points=False) as reg:
        assert len(_processes_with(marker)) == 1
        await _check_listing_and_calls(reg)
        await _check_tool_errors(reg)
        await _check_concurrency(reg)
        await _check_changed_definition(reg)  # last: it redefines a tool on the server
    assert _processes_with(marker) == [], "the server process must be gone after close"


async def test_server_crash_mid_call_fails_the_step_not_hangs(tmp_path: Path) -> None:
    async with open_tools([_write(tmp_path, FIXTURE_YAML)], include_entry_points=False) as reg:
        started = time.monotonic()
        with pytest.raises(ToolError, match=r"fx.*exited or crashed during the call"):
            await reg["fx.crash"].invoke({}, CTX)
        assert time.monotonic() - started < 10
        with pytest.raises(ToolError, match="'fx' is unavailable"):
            await reg["fx.add"].invoke({"a": 1, "b": 2}, CTX)


async def test_call_timeout(tmp_path: Path) -> None:
    path = _write(tmp_path, FIXTURE_YAML.replace("timeout_s: 20", "timeout_s: 0.5"))
    async with open_tools([path], include_entry_points=False) as reg:
        assert reg["fx.sleep"].spec.timeout_s == 0.5
        with pytest.raises(ToolTimeout, match=r"timed out after 0\.5s"):
            await reg["fx.sleep"].invoke({"seconds": 30}, CTX)


async def _check_changed_definition(reg: Mapping[str, Tool]) -> None:
    pins = pinned_hashes(reg, ["fx.echo", "fx.add"])
    assert await current_definition_hash(reg["fx.echo"]) == pins["fx.echo"]
    await verify_pinned(reg, pins)
    pin_tools(reg, pins)
    echo = reg["fx.echo"]
    assert isinstance(echo, McpTool) and echo.pinned_hash == pins["fx.echo"]
    assert (await echo.invoke({"text": "before"}, CTX))["text"] == "before"

    await reg["fx.redefine"].invoke({"description": "Echo, but now it also emails your boss."}, CTX)

    assert await current_definition_hash(echo) != pins["fx.echo"]
    with pytest.raises(ToolError, match=r"'fx\.echo' changed since approval; re-approve"):
        await verify_pinned(reg, pins)
    with pytest.raises(ToolError, match=r"'fx\.echo' changed since approval") as info:
        await echo.invoke({"text": "after"}, CTX)
    assert info.value.retryable is False
    # other pinned tools are unaffected; re-pinning (a fresh approval) enables it again
    assert await reg["fx.add"].invoke({"a": 1, "b": 2}, CTX) == {"total": 3}
    echo.pin(await current_definition_hash(echo))
    assert (await echo.invoke({"text": "again"}, CTX))["text"] == "again"
    with pytest.raises(ToolError, match="no longer configured"):
        await verify_pinned(reg, {"gone.tool": "x"})


async def test_prefix_include_and_effect_override(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        """
        mcp_servers:
          - name: fx
            command: ["{python}", "{server}"]
            prefix: ""
            include: [add, wipe]
            effects: {{add: mutating}}
    """,
    )
    async with open_tools([path], include_entry_points=False) as reg:
        assert sorted(reg) == ["add", "wipe"]
        assert reg["add"].spec.effect == "mutating"


@pytest.mark.parametrize(
    ("server", "pattern"),
    [
        (
            '["/nonexistent/mcp-server"]',
            r"MCP server 'bad' \(/nonexistent/mcp-server\) failed to start: "
            "command not found",
        ),
        (
            '["{python}", "{server}"]\n    env: {{FIXTURE_FAIL_AT_START: "1"}}',
            r"MCP server 'bad' .*failed to start: .*stderr: fixture: refusing to start",
        ),
        (
            '["{python}", "-c", "import time; time.sleep(60)  # hang-marker"]\n    startup_timeout_s: 1',
            "did not finish its handshake within 1s",
        ),
    ],
)
async def test_startup_failures_are_user_errors(tmp_path: Path, server: str, pattern: str) -> None:
    path = _write(tmp_path, f"mcp_servers:\n  - name: bad\n    command: {server}\n")
    with pytest.raises(UserError, match=pattern) as info:
        async with open_tools([path], include_entry_points=False):
            pass
    assert "\n" not in str(info.value)
    assert _processes_with("hang-marker") == []  # a server stuck in its handshake is killed


async def test_include_of_unknown_tool_is_a_user_error(tmp_path: Path) -> None:
    path = _write(tmp_path, FIXTURE_YAML + "    include: [nope]\n")
    with pytest.raises(UserError, match="does not offer nope"):
        async with open_tools([path], include_entry_points=False):
            pass


async def test_off_the_shelf_time_server_from_pypi(tmp_path: Path) -> None:
    pytest.importorskip("mcp_server_time")
    path = _write(
        tmp_path,
        """
        root: .
        tools:
          - name: hello
            effect: read_only
            command: [echo, hi]
        mcp_servers:
          - name: time
            command: ["{python}", "-m", "mcp_server_time", "--local-timezone", "UTC"]
            env: {{FT_TEST_MARKER: "{marker}"}}
    """,
        marker=tmp_path.name,
    )
    async with open_tools([path], include_entry_points=False) as reg:
        assert {"hello", "time.get_current_time", "time.convert_time"} <= set(reg)
        convert = reg["time.convert_time"]
        assert convert.spec.effect == "read_only"
        assert set(convert.spec.input_schema["required"]) == {"source_timezone", "time", "target_timezone"}
        out = await convert.invoke(
            {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}, CTX
        )
        assert out["target"]["datetime"].endswith("T21:00:00+09:00")
        now = await reg["time.get_current_time"].invoke({"timezone": "Europe/Paris"}, CTX)
        assert now["timezone"] == "Europe/Paris"
        with pytest.raises(ToolError, match=r"Invalid timezone|reported an error"):
            await reg["time.get_current_time"].invoke({"timezone": "Mars/Olympus_Mons"}, CTX)
        with pytest.raises(ToolError):
            await reg["time.get_current_time"].invoke({}, CTX)
        # the server dies under us: the next call is a prompt ToolError, not a hang
        (pid,) = _processes_with(f"FT_TEST_MARKER={tmp_path.name}", "environ")
        os.kill(pid, signal.SIGKILL)
        started = time.monotonic()
        with pytest.raises(ToolError, match="'time'"):
            await asyncio.wait_for(reg["time.get_current_time"].invoke({"timezone": "UTC"}, CTX), 30)
        assert time.monotonic() - started < 10


@pytest.fixture
def http_fixture_server() -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, str(FIXTURE_SERVER), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        else:
            pytest.fail("the HTTP fixture server did not start")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


async def test_streamable_http_server(tmp_path: Path, http_fixture_server: str) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text(f"mcp_servers:\n  - name: web\n    url: {http_fixture_server}\n")
    async with open_tools([path], include_entry_points=False) as reg:
        assert reg["web.add"].spec.effect == "read_only"
        assert await reg["web.add"].invoke({"a": 20, "b": 22}, CTX) == {"total": 42}
        with pytest.raises(ToolError, match="reported an error"):
            await reg["web.fail"].invoke({"reason": "x"}, CTX)


async def test_unreachable_http_server_is_a_user_error(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    path = tmp_path / "tools.yaml"
    path.write_text(
        f"mcp_servers:\n  - name: web\n    url: http://127.0.0.1:{port}/mcp\n    startup_timeout_s: 5\n"
    )
    pattern = r"MCP server 'web' \(http://127\.0\.0\.1:\d+/mcp\) could not be connected"
    with pytest.raises(UserError, match=pattern):
        async with open_tools([path], include_entry_points=False):
            pass
