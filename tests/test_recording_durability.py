"""Group commit keeps write-ahead: kill -9 mid-run, and everything a started tool depended on is
on disk. And a recorded run leaves the process's garbage collector exactly as it found it.

The crash test runs a recorded layered DAG in a child interpreter; every tool call appends its
step id to a file the moment it is made (the outside world). The child is killed with SIGKILL at
several points; then, for every step whose tool was called, every one of its dependencies'
``step_succeeded`` must be in the database, and its own ``step_started`` too unless its tool is
idempotent.
"""

from __future__ import annotations

import gc
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from forethought import Agent, Plan, Step, tool
from forethought.runs.store.sqlite import SqliteStore

CHILD = r"""
import asyncio, json, os, random, sys
from forethought import Plan, Step, ToolSpec
from forethought.execution.executor import ApproveAll
from forethought.execution.options import ExecutorOptions
from forethought.runs.recording import execute_recorded
from forethought.runs.store.sqlite import SqliteStore

db, marks, deps_json = sys.argv[1], sys.argv[2], sys.argv[3]
deps = json.loads(deps_json)
fd = os.open(marks, os.O_WRONLY | os.O_CREAT | os.O_APPEND)

class Mark:
    def __init__(self, name, idempotent):
        self.spec = ToolSpec(name=name, idempotent=idempotent)
    async def invoke(self, args, ctx):
        os.write(fd, (ctx.step_id + "\n").encode())  # the effect: visible at once, kill or not
        await asyncio.sleep(random.random() * 0.002)
        return 1

def refs(ds):
    return {f"in{k}": "${" + d + "}" for k, d in enumerate(ds)}

steps = [
    Step(id=sid, tool="idem" if i % 3 == 0 else "mark", args=refs(ds))
    for i, (sid, ds) in enumerate(deps.items())
]
tools = {"mark": Mark("mark", False), "idem": Mark("idem", True)}
options = ExecutorOptions(gate=ApproveAll())
plan = Plan(goal="crash", steps=steps)
asyncio.run(execute_recorded(SqliteStore(db), plan, tools, options, run_id="crashrun"))
"""


def layered(layers: int, width: int, seed: int) -> dict[str, list[str]]:
    rng = random.Random(seed)
    deps: dict[str, list[str]] = {}
    prev: list[str] = []
    for layer in range(layers):
        cur = [f"l{layer}x{j}" for j in range(width)]
        for sid in cur:
            deps[sid] = sorted(rng.sample(prev, k=min(2, len(prev)))) if prev else []
        prev = cur
    return deps


def _tool_of(sid: str) -> str:
    """The child's choice of tool: every third step of the plan (in order) is idempotent."""
    layer, j = (int(x) for x in sid[1:].split("x"))
    return "idem" if (layer * 20 + j) % 3 == 0 else "mark"


def _lines(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


@pytest.mark.parametrize("kill_after_calls", [1, 25, 90])
def test_kill_9_never_loses_an_event_a_started_tool_depended_on(
    tmp_path: Path, kill_after_calls: int
) -> None:
    deps = layered(6, 20, seed=kill_after_calls)
    db, marks = tmp_path / "runs.db", tmp_path / "marks.txt"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(db), str(marks), json.dumps(deps)], env=env)
    try:
        deadline = time.monotonic() + 60
        while len(_lines(marks)) < kill_after_calls and child.poll() is None:
            assert time.monotonic() < deadline, "the child made no progress"
            time.sleep(0.001)  # polling the outside world for progress, not synchronizing with it
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(30)
    called = _lines(marks)
    assert len(called) >= min(kill_after_calls, len(deps))
    with SqliteStore(db) as store:
        events = store.events("crashrun")
    started = {e.step_id for e in events if e.kind == "step_started"}  # type: ignore[union-attr]
    succeeded = {e.step_id for e in events if e.kind == "step_succeeded"}  # type: ignore[union-attr]
    assert [e.seq for e in events] == list(range(len(events)))  # no gap
    for sid in called:
        # An idempotent tool needing no approval may be called before its own start is on disk
        # (a resume calls it again with the same key: ``tests/test_idempotent_early_call.py``).
        if _tool_of(sid) == "mark":
            assert sid in started, f"{sid}'s tool ran but its step_started was not on disk"
        missing = [d for d in deps[sid] if d not in succeeded]
        assert not missing, f"{sid} ran on {missing}, whose success was not on disk"


@tool
def gc_probe() -> bool:
    return gc.isenabled()


@tool
async def gc_probe_async() -> bool:
    return gc.isenabled()


@pytest.mark.parametrize("enabled", [True, False])
async def test_a_recorded_run_never_touches_the_garbage_collector(tmp_path: Path, enabled: bool) -> None:
    was, threshold = gc.isenabled(), gc.get_threshold()
    (gc.enable if enabled else gc.disable)()
    try:
        store = SqliteStore(tmp_path / "runs.db")
        agent = Agent([gc_probe, gc_probe_async], store=store)
        steps = [Step(id=f"s{i}", tool="gc_probe" if i % 2 else "gc_probe_async") for i in range(40)]
        result = await agent.run(Plan(goal="g", steps=steps), approve="all")
        assert result.state.status == "succeeded"
        seen: set[Any] = {result.state.outputs[f"s{i}"] for i in range(40)}
        assert seen == {enabled}  # as the user set it, during the run
        assert gc.isenabled() is enabled  # and after it
        store.events(result.run_id)  # reading a run back does not switch it either
        assert gc.isenabled() is enabled and gc.get_threshold() == threshold
        store.close()
    finally:
        (gc.enable if was else gc.disable)()
