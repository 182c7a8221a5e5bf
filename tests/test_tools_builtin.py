"""Built-in tools: workspace confinement, and http_get's refusal of private addresses."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from forethought.errors import ToolError, UserError
from forethought.tools.base import Tool, ToolContext
from forethought.tools.builtin import BUILTIN_NAMES, builtin_tools

CTX = ToolContext()


def _by_name(tools: list[Tool]) -> dict[str, Tool]:
    return {t.spec.name: t for t in tools}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "hello.txt").write_text("hello world")
    (tmp_path / "secret.txt").write_text("SECRET")
    os.symlink(tmp_path / "secret.txt", root / "leak")
    os.symlink(tmp_path / "elsewhere" / "new.txt", root / "dangling")
    os.symlink(root / "hello.txt", root / "inner_link")
    return root


def test_enabling_and_effects(ws: Path) -> None:
    assert [t.spec.name for t in builtin_tools(ws, [])] == []
    default = _by_name(builtin_tools(ws))
    assert "http_get" not in default and "read_file" in default
    tools = _by_name(builtin_tools(ws, "all"))
    assert sorted(tools) == sorted(BUILTIN_NAMES)
    assert {n: t.spec.effect for n, t in tools.items()} == {
        "read_file": "read_only",
        "list_dir": "read_only",
        "write_file": "mutating",
        "http_get": "read_only",
        "calculate": "read_only",
        "text_stats": "read_only",
    }
    assert all(t.spec.source == "builtin" for t in tools.values())
    assert tools["read_file"].spec.output_schema is not None
    with pytest.raises(UserError, match="unknown built-in tool\\(s\\) shell"):
        builtin_tools(ws, ["shell"])
    with pytest.raises(UserError, match="not a directory"):
        builtin_tools(ws / "missing", "all")
    with pytest.raises(UserError, match="invalid network"):
        builtin_tools(ws, ["http_get"], http_allow_networks=["not-a-net"])


async def test_read_and_list_stay_inside_the_workspace(ws: Path) -> None:
    tools = _by_name(builtin_tools(ws, ["read_file", "list_dir"]))
    read, ls = tools["read_file"], tools["list_dir"]
    assert (await read.invoke({"path": "hello.txt"}, CTX))["content"] == "hello world"
    assert (await read.invoke({"path": "inner_link"}, CTX))["path"] == "hello.txt"
    part = await read.invoke({"path": "hello.txt", "max_bytes": 5}, CTX)
    assert (part["content"], part["truncated"], part["size"]) == ("hello", True, 11)
    outside = str(ws.parent / "secret.txt")
    for bad in ["../secret.txt", "leak", outside, "/etc/passwd", "sub/../../secret.txt"]:
        with pytest.raises(ToolError, match="outside the allowed root"):
            await read.invoke({"path": bad}, CTX)
    with pytest.raises(ToolError, match="cannot be resolved"):
        await read.invoke({"path": "missing.txt"}, CTX)
    with pytest.raises(ToolError, match="not a file"):
        await read.invoke({"path": "sub"}, CTX)
    listing = await ls.invoke({}, CTX)
    entries = {e["name"]: e["type"] for e in listing["entries"]}
    assert entries == {
        "dangling": "symlink",
        "hello.txt": "file",
        "inner_link": "symlink",
        "leak": "symlink",
        "sub": "dir",
    }
    with pytest.raises(ToolError, match="outside the allowed root"):
        await ls.invoke({"path": ".."}, CTX)


async def test_write_file_is_confined_and_never_follows_links_out(ws: Path) -> None:
    write = _by_name(builtin_tools(ws, ["write_file"]))["write_file"]
    out = await write.invoke({"path": "new/dir/a.txt", "content": "one"}, CTX)
    assert out == {"path": "new/dir/a.txt", "bytes_written": 3}
    await write.invoke({"path": "new/dir/a.txt", "content": "+two", "append": True}, CTX)
    assert (ws / "new/dir/a.txt").read_text() == "one+two"
    for bad in ["../evil.txt", "leak", "dangling", "/tmp/evil.txt", "sub/../../evil.txt"]:
        with pytest.raises(ToolError, match="outside the allowed root"):
            await write.invoke({"path": bad, "content": "x"}, CTX)
    assert (ws.parent / "secret.txt").read_text() == "SECRET"
    assert not (ws.parent / "elsewhere").exists()
    assert not (ws.parent / "evil.txt").exists()
    with pytest.raises(ToolError, match="must name a file"):
        await write.invoke({"path": ".", "content": "x"}, CTX)


async def test_calculate() -> None:
    calc = _by_name(builtin_tools(Path.cwd(), ["calculate"]))["calculate"]
    assert await calc.invoke({"expression": "2**10 + (7 // 2) * 3"}, CTX) == {"value": 1033}
    assert await calc.invoke({"expression": "round(max(1.25, 2.5) / 3, 2)"}, CTX) == {"value": 0.83}
    for bad in ["__import__('os').system('id')", "open('/etc/passwd')", "9**9**9", "1/0", "x + 1"]:
        with pytest.raises(ToolError, match="cannot calculate"):
            await calc.invoke({"expression": bad}, CTX)


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        url = urlsplit(self.path)
        if url.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", parse_qs(url.query)["to"][0])
            self.end_headers()
            return
        body = b"x" * 5000 if url.path == "/big" else b"hello from loopback"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def http_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def test_http_get_refuses_private_addresses_by_default(ws: Path, http_server: str) -> None:
    get = _by_name(builtin_tools(ws, ["http_get"]))["http_get"]
    for url in [
        http_server,
        "http://localhost/",
        "http://10.0.0.1/",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/",
        "http://0.0.0.0/",
        "http://224.0.0.1/",
        "http://192.168.1.1/",
        "http://[::ffff:127.0.0.1]/",
        "http://100.64.0.1/",
        "http://2130706433/",
    ]:
        with pytest.raises(ToolError, match="refusing to fetch") as info:
            await get.invoke({"url": url}, CTX)
        assert info.value.retryable is False
    for url, pattern in [
        ("file:///etc/passwd", "only http and https"),
        ("ftp://x/", "only http and https"),
        ("http://user:pw@example.com/", "credentials"),
    ]:
        with pytest.raises(ToolError, match=pattern):
            await get.invoke({"url": url}, CTX)


async def test_http_get_checks_every_resolved_address(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fake_getaddrinfo(host: str, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        assert host == "public.example"
        return [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", port)),
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.1.2.3", port)),
        ]

    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo)
    get = _by_name(builtin_tools(ws, ["http_get"]))["http_get"]
    with pytest.raises(ToolError, match=r"resolves to 10\.1\.2\.3"):
        await get.invoke({"url": "http://public.example/"}, CTX)


async def test_http_get_with_allow_list_and_redirect_checks(ws: Path, http_server: str) -> None:
    get = _by_name(builtin_tools(ws, ["http_get"], http_allow_networks=["127.0.0.1/32"]))["http_get"]
    out = await get.invoke({"url": http_server + "/"}, CTX)
    assert (out["status"], out["text"], out["truncated"]) == (200, "hello from loopback", False)
    big = await get.invoke({"url": http_server + "/big", "max_bytes": 100}, CTX)
    assert big["text"] == "x" * 100 and big["truncated"] is True
    # a redirect to an allowed address is followed...
    hop = await get.invoke({"url": f"{http_server}/redirect?to={http_server}/big"}, CTX)
    assert hop["url"] == f"{http_server}/big" and hop["status"] == 200
    # ...but every hop is checked again: 127.0.0.2 and the metadata address are not allowed
    port = http_server.rsplit(":", 1)[1]
    for target in [f"http://127.0.0.2:{port}/", "http://169.254.169.254/", "http://[::1]:1/"]:
        with pytest.raises(ToolError, match="refusing to fetch"):
            await get.invoke({"url": f"{http_server}/redirect?to={target}"}, CTX)
    open_get = _by_name(builtin_tools(ws, ["http_get"], allow_private_http=True))["http_get"]
    assert (await open_get.invoke({"url": http_server}, CTX))["status"] == 200


async def test_text_stats_counts_lines_words_and_characters(ws: Path) -> None:
    from forethought.tools.base import ToolContext

    stats = _by_name(builtin_tools(ws))["text_stats"]
    out = await stats.invoke({"text": "one two\nthree\n\n four  "}, ToolContext())
    assert out == {"lines": 4, "words": 4, "characters": 22}
    assert await stats.invoke({"text": ""}, ToolContext()) == {"lines": 0, "words": 0, "characters": 0}
