"""Issue 15 item 13: ``http_get`` stuck in a slow read no longer keeps the process alive.

The request has one deadline for everything (connect, headers, each read), and when the caller
gives up (a step timeout, an abort) the socket is shut down at once; the blocking part runs in a
daemon thread, so nothing outlives the call. The servers below stall on purpose: one sends the
headers and then nothing, one trickles a byte at a time so that no single read ever times out.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from forethought.errors import ToolError
from forethought.tools.base import ToolContext
from forethought.tools.builtin import builtin_tools

SRC = str(Path(__file__).resolve().parents[2] / "src")
SERVER_LIFETIME_S = 30.0  # every server gives up by itself after this long
HEADERS = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000000\r\n\r\n"


class StallingServer:
    """Loopback HTTP server that sends headers, then stalls (``stall``) or trickles (``trickle``)."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.stop = threading.Event()
        self.client_closed = threading.Event()
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(SERVER_LIFETIME_S)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/slow"
        self.thread = threading.Thread(target=self._serve, name=f"stalling-server-{mode}", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(SERVER_LIFETIME_S)
            try:
                conn.recv(65536)  # the request
                conn.sendall(HEADERS)
                if self.mode == "trickle":
                    # One byte every 0.1 s: each read succeeds long before any per-read timeout.
                    for _ in range(int(SERVER_LIFETIME_S / 0.1)):
                        if self.stop.wait(0.1):
                            break
                        conn.sendall(b"x")
                elif conn.recv(1) == b"":  # stall: wait for the client to hang up
                    self.client_closed.set()
            except OSError:
                self.client_closed.set()  # the client reset or shut down the connection

    def close(self) -> None:
        self.stop.set()
        self.sock.close()
        self.thread.join(timeout=SERVER_LIFETIME_S)


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Iterator[StallingServer]:
    srv = StallingServer(request.param)
    try:
        yield srv
    finally:
        srv.close()


def _http_get(ws: Path) -> Any:
    tools = builtin_tools(ws, ["http_get"], http_allow_networks=["127.0.0.1/32"])
    return tools[0]


def _non_daemon_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if not t.daemon and t is not threading.main_thread()}


@pytest.mark.parametrize("server", ["trickle"], indirect=True)
async def test_total_deadline_covers_every_read(server: StallingServer, tmp_path: Path) -> None:
    get = _http_get(tmp_path)
    # wait_for is only the hang guard: a per-read timeout alone never fires against a trickle.
    with pytest.raises(ToolError, match=r"did not finish within 1(\.0)?s"):
        await asyncio.wait_for(get.invoke({"url": server.url, "timeout_s": 1.0}, ToolContext()), 30)


@pytest.mark.parametrize("server", ["stall"], indirect=True)
async def test_giving_up_closes_the_socket_and_leaves_no_thread(
    server: StallingServer, tmp_path: Path
) -> None:
    get = _http_get(tmp_path)
    before = _non_daemon_threads()
    call = asyncio.ensure_future(get.invoke({"url": server.url, "timeout_s": 60.0}, ToolContext()))
    done, _ = await asyncio.wait({call}, timeout=0.5)  # the request is now blocked in a read
    assert not done
    call.cancel()  # what a step timeout or an abort does
    with pytest.raises(asyncio.CancelledError):
        await call
    assert _non_daemon_threads() - before == set()
    # The server sees the connection end (a blocking, bounded wait: nothing else runs meanwhile).
    assert server.client_closed.wait(10), "the socket outlived the call"


PLAN = """
goal: fetch a slow page
steps:
  - id: fetch
    tool: http_get
    args: {args}
    {step}
"""

TOOLS = """
from pathlib import Path

from forethought.tools.builtin import builtin_tools

# The built-in http_get, opened to loopback for this test only.
http_get = builtin_tools(Path(__file__).parent, ["http_get"], http_allow_networks=["127.0.0.1/32"])[0]
"""


@pytest.mark.parametrize(
    ("server", "args", "step"),
    [
        ("stall", "{{url: {url}}}", "timeout_s: 1"),  # the step times out; http_get's own 30 s is far
        ("trickle", "{{url: {url}, timeout_s: 1}}", ""),  # the request's own deadline
    ],
    indirect=["server"],
)
def test_cli_exits_promptly(server: StallingServer, tmp_path: Path, args: str, step: str) -> None:
    (tmp_path / "tools.py").write_text(TOOLS)
    (tmp_path / "plan.yaml").write_text(
        textwrap.dedent(PLAN).format(args=args.format(url=json.dumps(server.url)), step=step)
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "forethought",
            "exec",
            str(tmp_path / "plan.yaml"),
            "--tools",
            str(tmp_path / "tools.py"),
            "--db",
            str(tmp_path / "runs.db"),
            "--yes",
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": SRC},
        timeout=20,  # the hang guard: the run ends within ~1 s, the process must follow it
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["steps"]["fetch"]["status"] == "failed"
