"""The process backend: CPU-bound @tool functions in worker processes; crashes fail one step."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

import pytest

from forethought.execution.backends import ProcessBackend
from forethought.execution.executor import Executor
from forethought.execution.options import ExecutorOptions
from forethought.plan.model import Plan
from forethought.tools.python import load_python_tools

TOOLS = textwrap.dedent("""
    import os, signal, time
    from forethought import tool

    @tool
    def square(x: int) -> dict:
        return {"y": x * x, "pid": os.getpid()}

    @tool
    def suicide() -> int:
        os.kill(os.getpid(), signal.SIGKILL)
        return 0

    @tool
    def spin(s: float) -> int:
        time.sleep(s)
        return 1

    @tool
    def raises() -> int:
        raise ValueError("bad input")
""")


@pytest.fixture
def tools(tmp_path: Path) -> dict[str, object]:
    path = tmp_path / "cpu_tools.py"
    path.write_text(TOOLS)
    return {t.spec.name: t for t in load_python_tools(path)}


def plan(*steps: dict[str, object]) -> Plan:
    return Plan.model_validate({"goal": "cpu", "steps": list(steps)})


async def test_runs_in_worker_process_and_survives_a_killed_worker(tools: dict) -> None:
    backend = ProcessBackend(max_workers=2)
    try:
        p = plan(
            {"id": "a", "tool": "square", "args": {"x": 3}, "executor": "process"},
            {
                "id": "k",
                "tool": "suicide",
                "executor": "process",
                "on_failure": "continue",
                "retry": {"attempts": 1},
            },
            {"id": "b", "tool": "square", "args": {"x": 4}, "executor": "process", "depends_on": ["k"]},
            {"id": "c", "tool": "square", "args": {"x": "${a.y}"}, "executor": "process"},
        )
        ex = Executor(p, tools, ExecutorOptions(backends={"process": backend}))  # type: ignore[arg-type]
        await asyncio.wait_for(ex.run(), 60)
        st = ex.state
        assert st.steps["a"].output["y"] == 9
        assert st.steps["a"].output["pid"] != __import__("os").getpid()
        assert st.steps["c"].output["y"] == 81
        k = st.steps["k"]
        assert k.status == "failed" and k.failure_class == "crashed"
        assert "SIGKILL" in (k.error or "")
        assert st.steps["b"].status == "skipped"
    finally:
        await backend.aclose()


async def test_timeout_kills_the_worker_and_errors_are_reported(tools: dict) -> None:
    backend = ProcessBackend(max_workers=1)
    try:
        p = plan(
            {
                "id": "t",
                "tool": "spin",
                "args": {"s": 30},
                "executor": "process",
                "timeout_s": 0.5,
                "retry": {"attempts": 1},
                "on_failure": "continue",
            },
            {
                "id": "e",
                "tool": "raises",
                "executor": "process",
                "on_failure": "continue",
                "retry": {"attempts": 1},
            },
            {"id": "after", "tool": "square", "args": {"x": 2}, "executor": "process", "depends_on": ["t"]},
            {"id": "ok", "tool": "square", "args": {"x": 2}, "executor": "process"},
        )
        ex = Executor(p, tools, ExecutorOptions(backends={"process": backend}))  # type: ignore[arg-type]
        await asyncio.wait_for(ex.run(), 60)
        st = ex.state
        assert st.steps["t"].failure_class == "timeout"
        assert st.steps["e"].error == "ValueError: bad input"
        assert st.steps["ok"].output["y"] == 4  # the single worker slot was freed again
    finally:
        await backend.aclose()


async def test_default_process_backend_is_created_on_demand(tools: dict) -> None:
    ex = Executor(plan({"id": "a", "tool": "square", "args": {"x": 5}, "executor": "process"}), tools)  # type: ignore[arg-type]
    await asyncio.wait_for(ex.run(), 60)
    assert ex.state.steps["a"].output["y"] == 25


async def test_unknown_backend_fails_the_step(tools: dict) -> None:
    ex = Executor(plan({"id": "a", "tool": "square", "args": {"x": 5}, "executor": "gpu"}), tools)  # type: ignore[arg-type]
    await asyncio.wait_for(ex.run(), 10)
    assert "no executor backend named 'gpu'" in (ex.state.steps["a"].error or "")
