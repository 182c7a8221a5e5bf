"""Overheads of the tool layer: command/script spawn, group kill on timeout, MCP stdio, safe_eval,
and a Python ``def`` tool's hand-off to a worker thread.

Run: .venv/bin/python bench/tools/run.py [--n 200]
Prints a Markdown table (copied into REPORT.md).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import tempfile
import textwrap
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from forethought.errors import ToolTimeout
from forethought.plan.expressions import safe_eval
from forethought.tools._threads import blocking_pool
from forethought.tools.base import ToolContext
from forethought.tools.loader import open_tools
from forethought.tools.python import PythonTool

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_SERVER = ROOT / "tests" / "fixtures" / "tools" / "mcp_fixture_server.py"
CTX = ToolContext()


def _pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _time(n: int, call: Callable[[], Awaitable[Any]]) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        await call()
        out.append((time.perf_counter() - t) * 1000)
    return out


def _noop(x: int = 0) -> int:
    return x


async def _anoop(x: int = 0) -> int:
    return x


async def _calls(tool: PythonTool, n: int, width: int) -> tuple[float, float]:
    """µs of wall and of CPU (all threads) per call: ``n`` calls, ``width`` at a time."""
    args = {"x": 1}
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(n // width):
        await asyncio.gather(*(tool.invoke(args, CTX) for _ in range(width)))
    calls = n // width * width
    return (time.perf_counter() - wall) / calls * 1e6, (time.process_time() - cpu) / calls * 1e6


async def _python_tool_rows(n: int) -> list[tuple[str, str]]:
    """A ``def`` tool on the run's reused workers, on a thread per call, and an ``async def``."""
    rows = []
    sync, coro = PythonTool(_noop), PythonTool(_anoop)
    for width in (1, 8):
        cases = [("`async def` no-op", coro, False), ("`def` no-op, thread per call (no pool)", sync, False)]
        cases.append(("`def` no-op, reused pool workers (as in a run)", sync, True))
        for label, tool, pooled in cases:
            with blocking_pool(8, start=8) if pooled else contextlib.nullcontext():
                await _calls(tool, 200, width)  # warm
                wall, cpu = await _calls(tool, n, width)
            rows.append(
                (f"{label}, {width} at a time (n={n})", f"{wall:.1f} µs wall, {cpu:.1f} µs CPU per call")
            )
    return rows


async def main(n: int) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        tools_file = Path(tmp) / "tools.yaml"
        tools_file.write_text(
            textwrap.dedent(f"""
            tools:
              - name: true_cmd
                command: ["true"]
              - name: argv_cmd
                parameters: [{{name: a, required: true}}]
                command: [printf, "%s", "{{{{a}}}}"]
              - name: seed_script
                parameters: [{{name: file, required: true}}]
                script: {{shell: "cat < {{{{file}}}}"}}
              - name: stubborn
                timeout_s: 0.2
                kill_grace_s: 0.5
                script: "trap '' TERM; sh -c 'trap \\"\\" TERM; sleep 30' & sleep 30"
            mcp_servers:
              - name: fx
                command: ["{sys.executable}", "{FIXTURE_SERVER}"]
        """)
        )
        (Path(tmp) / "in.sql").write_text("SELECT 1;")
        started = time.perf_counter()
        async with open_tools([tools_file], include_entry_points=False) as reg:
            startup = (time.perf_counter() - started) * 1000
            rows.append(
                ("open tools file incl. MCP stdio server start + handshake + list", f"{startup:.0f} ms")
            )
            for name, args in [
                ("true_cmd", {}),
                ("argv_cmd", {"a": "x; $(id)"}),
                ("seed_script", {"file": "in.sql"}),
            ]:
                tool = reg[name]
                samples = await _time(n, lambda t=tool, a=args: t.invoke(a, CTX))
                rows.append(
                    (
                        f"`{name}` call (n={n})",
                        f"p50 {statistics.median(samples):.1f} ms, p95 {_pct(samples, 0.95):.1f} ms",
                    )
                )
            kills = []
            for _ in range(5):
                t = time.perf_counter()
                with contextlib.suppress(ToolTimeout):
                    await reg["stubborn"].invoke({}, CTX)
                kills.append((time.perf_counter() - t) * 1000)
            rows.append(
                (
                    "timeout 0.2 s + grace 0.5 s, SIGTERM-ignoring grandchild (n=5)",
                    f"median {statistics.median(kills):.0f} ms until ToolTimeout",
                )
            )
            add = reg["fx.add"]
            samples = await _time(n, lambda: add.invoke({"a": 1, "b": 2}, CTX))
            rows.append(
                (
                    f"MCP stdio `tools/call` (n={n})",
                    f"p50 {statistics.median(samples):.2f} ms, p95 {_pct(samples, 0.95):.2f} ms",
                )
            )
            add.pin(add.spec.definition_hash())  # type: ignore[attr-defined]
            samples = await _time(n, lambda: add.invoke({"a": 1, "b": 2}, CTX))
            rows.append(
                (
                    f"MCP call with pinned-definition re-check (n={n})",
                    f"p50 {statistics.median(samples):.2f} ms, p95 {_pct(samples, 0.95):.2f} ms",
                )
            )
    rows.extend(await _python_tool_rows(max(n, 2000)))
    names = {"output": {"count": 3, "items": [{"path": "a"}], "exit_code": 0}}
    expr = "output.exit_code == 0 and len(output.items) > 0 and output.count <= 10"
    t = time.perf_counter()
    reps = 20_000
    for _ in range(reps):
        safe_eval(expr, names)
    per = (time.perf_counter() - t) / reps * 1e6
    rows.append((f"`safe_eval` of a typical check (n={reps})", f"{per:.1f} µs per evaluation"))
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=200)
    result = asyncio.run(main(parser.parse_args().n))
    print("| measurement | result |\n| --- | --- |")
    for label, value in result:
        print(f"| {label} | {value} |")
