"""Issue 15 item 12: a path component swapped for a symlink mid-call cannot lead outside the workspace.

Checking the resolved path and then opening it by name left a window in which a directory could be
replaced by a symlink to elsewhere (25 of 3000 racing reads escaped). The built-ins now walk the
path from a directory fd with ``O_NOFOLLOW`` on every component, so what they check is what they
open. A racing thread flips ``ws/d`` between a real directory and a symlink to ``outside/d``.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from forethought.errors import ToolError
from forethought.tools.builtin import builtin_tools

CALLS = 2000
MAX_FLIPS = 10_000_000  # bounds the racer even if the main loop died without telling it


@pytest.fixture
def race(tmp_path: Path) -> Iterator[dict[str, Any]]:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / "d").mkdir(parents=True)
    (outside / "d").mkdir(parents=True)
    (ws / "d" / "f.txt").write_text("inside")
    (outside / "d" / "f.txt").write_text("SECRET")
    (outside / "d" / "only_outside").write_text("")
    os.symlink(str(outside / "d"), ws / ".d_link")  # parked while `d` is the real directory
    stop = threading.Event()
    flips = [0]

    def flip() -> None:
        d, real, link = str(ws / "d"), str(ws / ".d_real"), str(ws / ".d_link")
        while not stop.is_set() and flips[0] < MAX_FLIPS:
            with contextlib.suppress(OSError):
                os.rename(d, real)
                os.rename(link, d)  # `d` is now a symlink to outside/d
                time.sleep(0)  # not a wait: hands the GIL over so calls run while `d` is a link
                os.rename(d, link)
                os.rename(real, d)  # `d` is the real directory again
                time.sleep(0)
            flips[0] += 1

    racer = threading.Thread(target=flip, name="symlink-racer", daemon=True)
    racer.start()
    try:
        yield {"ws": ws, "outside": outside, "flips": flips}
    finally:
        stop.set()
        racer.join(timeout=30)
        assert not racer.is_alive()


def _run(call: Callable[[], Any]) -> tuple[Any, bool]:
    try:
        return call(), True
    except ToolError:
        return None, False


def test_racing_reads_never_escape(race: dict[str, Any]) -> None:
    read = {t.spec.name: t for t in builtin_tools(race["ws"], ["read_file"])}["read_file"]
    escapes = ok = 0
    for _ in range(CALLS):
        out, done = _run(lambda: read(path="d/f.txt"))
        if done:
            ok += 1
            escapes += out.content == "SECRET"
    assert escapes == 0, f"{escapes} of {CALLS} racing reads escaped the workspace"
    assert ok > 0 and race["flips"][0] > 0


def test_racing_listings_never_escape(race: dict[str, Any]) -> None:
    ls = {t.spec.name: t for t in builtin_tools(race["ws"], ["list_dir"])}["list_dir"]
    escapes = 0
    for _ in range(CALLS):
        out, done = _run(lambda: ls(path="d"))
        if done:
            escapes += any(e.name == "only_outside" for e in out.entries)
    assert escapes == 0, f"{escapes} of {CALLS} racing listings escaped the workspace"


def test_racing_writes_never_escape(race: dict[str, Any]) -> None:
    write = {t.spec.name: t for t in builtin_tools(race["ws"], ["write_file"])}["write_file"]
    for i in range(CALLS):
        _run(lambda i=i: write(path=f"d/w{i}.txt", content="x"))
    leaked = sorted(p.name for p in (race["outside"] / "d").iterdir() if p.name.startswith("w"))
    assert leaked == [], f"{len(leaked)} of {CALLS} racing writes landed outside the workspace"
    assert (race["outside"] / "d" / "f.txt").read_text() == "SECRET"


def test_symlinks_are_followed_only_inside(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "real").mkdir(parents=True)
    (ws / "real" / "a.txt").write_text("A")
    (tmp_path / "s.txt").write_text("SECRET")
    os.symlink("real", ws / "rel_dir")
    os.symlink(ws / "real" / "a.txt", ws / "abs_file")
    os.symlink("../../s.txt", ws / "real" / "up")
    os.symlink("loop", ws / "loop")
    tools = {t.spec.name: t for t in builtin_tools(ws, ["read_file", "list_dir", "write_file"])}
    assert tools["read_file"](path="rel_dir/a.txt").path == "real/a.txt"
    assert tools["read_file"](path="abs_file").content == "A"
    assert tools["read_file"](path="real/../real/a.txt").path == "real/a.txt"
    assert [e.name for e in tools["list_dir"](path="rel_dir").entries] == ["a.txt", "up"]
    assert tools["write_file"](path="rel_dir/b.txt", content="B").path == "real/b.txt"
    for bad in ["real/up", "rel_dir/up", "real/../../s.txt"]:
        with pytest.raises(ToolError, match="outside the allowed root"):
            tools["read_file"](path=bad)
    with pytest.raises(ToolError, match="symbolic links"):
        tools["read_file"](path="loop")
