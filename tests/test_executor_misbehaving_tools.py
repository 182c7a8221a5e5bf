"""Tools that misbehave in-process never hang a run, nor the process after it.

Covered elsewhere: raising (test_executor_core), async hangs past a timeout (test_executor_core),
unserializable output (test_executor_core), a killed worker process (test_executor_process).
Here: a *blocking* sync tool stuck past its timeout, ``sys.exit()`` in a tool, and a tool whose
``KeyboardInterrupt`` escapes the loop while workers are still scheduled.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from _executor_helpers import FnTool, registry
from forethought.execution.executor import Executor
from forethought.plan.model import Plan, Step
from forethought.tools import _threads
from forethought.tools.base import ToolContext
from forethought.tools.python import PythonTool

TOOLS = textwrap.dedent("""
    import sys
    import time
    from forethought import tool

    @tool(timeout_s=0.5)
    def stuck(x: int) -> int:
        "Blocks far past its timeout."
        time.sleep(120)
        return x

    @tool
    def quits(x: int) -> int:
        "Ends the interpreter instead of returning."
        sys.exit(7)

    @tool
    def echo(x: int) -> int:
        "Returns x."
        return x
""")


def _exec(tmp_path: Path, plan: str) -> subprocess.CompletedProcess[str]:
    """`forethought exec` in a child; TimeoutExpired (the test fails) if it is still alive at 60 s,
    half the 120 s the stuck tool sleeps."""
    (tmp_path / "tools.py").write_text(TOOLS)
    (tmp_path / "plan.yaml").write_text(textwrap.dedent(plan))
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "forethought",
            "exec",
            "plan.yaml",
            "--tools",
            "tools.py",
            "--yes",
            "--json",
            "--db",
            "runs.db",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_blocking_tool_stuck_past_its_timeout_does_not_keep_the_process_alive(tmp_path: Path) -> None:
    # The tool sleeps 120 s in its thread; before daemon threads, `exec` printed its summary at
    # 0.5 s and then waited the full 120 s to exit (the default executor joins its threads).
    result = _exec(
        tmp_path,
        """
        goal: one stuck, one fine
        steps:
          - {id: a, tool: stuck, args: {x: 1}, on_failure: continue, retry: {attempts: 1}}
          - {id: b, tool: echo, args: {x: 2}}
          - {id: c, tool: echo, args: {x: "${a}"}}
    """,
    )
    assert result.returncode == 1, result.stderr
    summary = json.loads(result.stdout)
    steps = summary["steps"]
    assert steps["a"]["status"] == "failed" and "timed out after 0.5s" in steps["a"]["error"]
    assert steps["b"]["status"] == "succeeded" and steps["b"]["output"] == 2
    assert steps["c"]["status"] == "skipped"


def test_sys_exit_in_a_tool_fails_its_step_and_the_run_goes_on(tmp_path: Path) -> None:
    result = _exec(
        tmp_path,
        """
        goal: a tool that exits
        steps:
          - {id: a, tool: quits, args: {x: 1}, on_failure: continue, retry: {attempts: 2, backoff_s: 0}}
          - {id: b, tool: echo, args: {x: 2}}
    """,
    )
    assert result.returncode == 1, result.stderr  # the run failed; the tool's 7 is not our code
    steps = json.loads(result.stdout)["steps"]
    assert steps["a"]["status"] == "failed" and steps["a"]["failure_class"] == "crashed"
    assert "sys.exit(7)" in steps["a"]["error"]
    assert steps["a"]["attempts"] == 2  # a crash goes through the step's retry policy
    assert steps["b"]["status"] == "succeeded"
    assert "Traceback" not in result.stderr


async def test_sys_exit_in_an_async_tool_is_a_crash_of_that_step() -> None:
    async def fn(args: dict[str, Any], ctx: ToolContext) -> Any:
        if ctx.step_id == "a":
            if args.get("suspend"):
                await asyncio.sleep(0)
            sys.exit("bye")
        return ctx.step_id

    for suspend in (False, True):
        plan = Plan(
            goal="g",
            steps=[
                Step(id="a", tool="t", args={"suspend": suspend}, on_failure="continue"),
                Step(id="b", tool="t"),
                Step(id="c", tool="t", depends_on=["a"]),
            ],
        )
        ex = Executor(plan, registry(FnTool("t", fn)))
        state = await asyncio.wait_for(ex.run(), 10)
        assert state.steps["a"].status == "failed"
        assert state.steps["a"].failure_class == "crashed"
        assert state.steps["b"].status == "succeeded"
        assert state.steps["c"].status == "skipped"


def test_a_keyboard_interrupt_from_a_tool_does_not_hang_loop_shutdown() -> None:
    # The interrupt leaves the loop while a worker for the other ready step is scheduled but has
    # not run; asyncio.Runner then cancels every task. A worker cancelled before it ever ran
    # used to stay in the executor's bookkeeping, and draining the run spun forever.
    script = textwrap.dedent("""
        import asyncio, sys
        sys.path.insert(0, sys.argv[1])
        from _executor_helpers import FnTool, registry
        from forethought.execution.executor import Executor
        from forethought.plan.model import Plan, Step

        async def fn(args, ctx):
            if ctx.step_id == "a":
                raise KeyboardInterrupt
            return 1

        plan = Plan(goal="g", steps=[Step(id="a", tool="t", on_failure="continue"),
                                     Step(id="b", tool="t")])
        ex = Executor(plan, registry(FnTool("t", fn)))
        try:
            with asyncio.Runner() as runner:
                runner.run(ex.run())
        except KeyboardInterrupt:
            print("interrupted", len(ex._workers), ex._pickers)
    """)
    result = subprocess.run(
        [sys.executable, "-c", script, str(Path(__file__).parent)], capture_output=True, text=True, timeout=60
    )
    assert result.stdout.split() == ["interrupted", "0", "0"], result.stderr


# ------------------------------------------------------------------ the daemon-thread runner


async def test_run_blocking_returns_raises_and_keeps_context_variables() -> None:
    var: contextvars.ContextVar[str] = contextvars.ContextVar("var")
    var.set("caller's")

    def read(suffix: str) -> str:
        assert threading.current_thread().daemon
        return var.get() + suffix

    def fail() -> None:
        raise ValueError("from the thread")

    assert await _threads.run_blocking(read, "!") == "caller's!"
    with pytest.raises(ValueError, match="from the thread"):
        await _threads.run_blocking(fail)
    with pytest.raises(SystemExit):
        await _threads.run_blocking(sys.exit, 3)


async def test_abandoned_calls_free_their_slot_and_their_result_is_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_threads, "MAX_BLOCKING_CALLS", 2)
    release = threading.Event()
    lock = threading.Lock()
    live = 0
    live_peak = 0

    def stuck() -> str:
        release.wait(60)
        return "late"

    def quick() -> str:
        nonlocal live, live_peak
        with lock:
            live += 1
            live_peak = max(live_peak, live)
        time.sleep(0.02)
        with lock:
            live -= 1
        return "done"

    try:
        # Two calls stuck in their threads, both given up on by their awaiters...
        for _ in range(2):
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(_threads.run_blocking(stuck), 0.05)
        # ...do not hold the two slots: new calls still run, at most two at a time.
        results = await asyncio.wait_for(
            asyncio.gather(*(_threads.run_blocking(quick) for _ in range(6))), 20
        )
    finally:
        release.set()
    assert results == ["done"] * 6
    assert live_peak == 2


async def test_sync_python_tools_run_off_the_loop_in_daemon_threads() -> None:
    seen: list[tuple[bool, bool]] = []

    def probe() -> str:
        thread = threading.current_thread()
        seen.append((thread is threading.main_thread(), thread.daemon))
        return "ok"

    tool = PythonTool(probe)
    assert await tool.invoke({}, ToolContext(run_id="r", step_id="s")) == "ok"
    assert seen == [(False, True)]
