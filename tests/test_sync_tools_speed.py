"""Plain ``def`` tools run on the run's reused worker threads, not a thread per call.

What the speed of sync tools rests on, checked without timing (figures are in bench/exec_scale):
through ``forethought exec`` a fan-out of many sync steps is served by at most one worker per
step that may run at once; the pool starts its workers once, not per call; and a call stuck past
its timeout is still abandoned — its step fails, the other steps go on without that thread, and
the thread exits once its call returns.
"""

from __future__ import annotations

import asyncio
import json
import re
import textwrap
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from forethought import Agent, Plan, Step, tool
from forethought.events import kinds as E
from forethought.interfaces.cli.exec_cmd import exec_command
from forethought.tools import _threads

TOOLS = textwrap.dedent("""
    import threading

    from forethought import tool

    @tool
    def where(x: int = 0) -> str:
        "The name of the thread this call ran on (a plain def: a worker thread)."
        return threading.current_thread().name
""")


def _fan_plan(n: int) -> dict[str, object]:
    steps: list[dict[str, object]] = [{"id": "root", "tool": "where"}]
    steps += [{"id": f"m{i}", "tool": "where", "args": {"x": i}, "depends_on": ["root"]} for i in range(n)]
    steps.append({"id": "sink", "tool": "where", "depends_on": [f"m{i}" for i in range(n)]})
    return {"goal": "fan-out of sync tools", "steps": steps}


@pytest.fixture
def spawns(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The name of every worker thread a pool starts."""
    started: list[str] = []
    real = _threads.BlockingPool._spawn

    def spy(self: _threads.BlockingPool) -> None:
        real(self)
        started.append(sorted(t.name for t in self._threads)[-1])

    monkeypatch.setattr(_threads.BlockingPool, "_spawn", spy)
    return started


@pytest.mark.parametrize("concurrency", [2, 8])
def test_exec_runs_sync_tools_on_reused_workers(tmp_path: Path, spawns: list[str], concurrency: int) -> None:
    (tmp_path / "tools.py").write_text(TOOLS)
    (tmp_path / "plan.json").write_text(json.dumps(_fan_plan(200)))
    result = CliRunner().invoke(
        exec_command,
        [
            str(tmp_path / "plan.json"),
            "--tools",
            str(tmp_path / "tools.py"),
            "--json",
            "--yes-all",
            "--max-concurrency",
            str(concurrency),
        ],
        standalone_mode=False,
    )
    assert result.exception is None, result.output
    steps = json.loads(result.stdout)["steps"]
    assert len(steps) == 202
    assert {s["status"] for s in steps.values()} == {"succeeded"}
    names = {s["output"] for s in steps.values()}
    # The pool's workers are numbered (a thread of its own per call would be named after the tool).
    assert all(re.fullmatch(r"forethought-blocking-\d+", name) for name in names), names
    # 202 calls, at most `concurrency` threads, each started once (up front, before the run).
    assert len(names) <= concurrency
    assert len(spawns) == concurrency
    assert not [t for t in threading.enumerate() if t.name.startswith("forethought-blocking")]


async def test_a_stuck_sync_call_is_abandoned_and_the_run_goes_on(tmp_path: Path, spawns: list[str]) -> None:
    release = threading.Event()
    stuck_thread: list[threading.Thread] = []
    quick_threads: list[threading.Thread] = []

    @tool(timeout_s=0.2)
    def stuck() -> str:
        "Blocks until the test releases it, long past its timeout."
        stuck_thread.append(threading.current_thread())
        release.wait(60)
        return "late"

    @tool
    def quick(x: int) -> int:
        "Returns x."
        quick_threads.append(threading.current_thread())
        return x

    given_up = asyncio.Event()

    async def on_event(event: E.Event) -> None:
        if isinstance(event, E.StepFailed) and event.step_id == "hang":
            given_up.set()

    @tool
    async def gate() -> bool:
        "Returns once the stuck call has been given up on (its step_failed was emitted)."
        await given_up.wait()
        return True

    steps = [Step(id="hang", tool="stuck", on_failure="continue"), Step(id="gate", tool="gate")]
    # Forty quick calls that start only after the stuck one was given up on.
    steps += [Step(id=f"q{i}", tool="quick", args={"x": i}, depends_on=["gate"]) for i in range(40)]
    agent = Agent([stuck, quick, gate], max_concurrency=2, store=str(tmp_path / "runs.db"))
    try:
        result = await agent.run(Plan(goal="one stuck call", steps=steps), approve="all", on_event=on_event)
        assert result.summary["steps"]["hang"]["status"] == "failed"
        assert result.summary["steps"]["hang"]["failure_class"] == "timeout"
        assert all(result.summary["steps"][f"q{i}"]["status"] == "succeeded" for i in range(40))
        # The stuck thread was retired: none of the later calls ran on it...
        assert len(stuck_thread) == 1 and stuck_thread[0].is_alive()
        assert stuck_thread[0] not in quick_threads
        # ...and a replacement was started for it, not a thread per call (2 up front + 1).
        assert len(set(quick_threads)) <= 2
        assert len(spawns) <= 3
    finally:
        release.set()
    stuck_thread[0].join(10)
    assert not stuck_thread[0].is_alive()  # it exits once its call returns
