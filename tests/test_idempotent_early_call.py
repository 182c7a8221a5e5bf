"""An idempotent step may be called before its own ``step_started`` is durable; nothing else may.

The executor calls the tool of a quick step whose tool is idempotent and needs no approval as
soon as what it depends on is durable (its dependencies' results, the run's start, plan and
approval), without waiting for the commit of its own start. Killed with SIGKILL at that moment,
a resumed run calls it again with the same idempotency key — once. A non-idempotent step keeps
full write-ahead: called only once its start is on disk, and after a crash mid-call it needs a
person's review instead of a second call.

The child process runs a recorded plan on a real SQLite store whose disk "hangs" after a chosen
commit: the writer thread blocks on a pipe the parent never writes to, so nothing after that
commit ever becomes durable. Every tool call reports ``CALL step`` on the child's stdout the
moment it is made; the parent reads those lines (blocking reads, no sleeps), kills the child
when the calls it waits for have all been made, then resumes the run in this process.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from forethought import ToolSpec
from forethought.events.state import fold
from forethought.runs.resume import resume_run
from forethought.runs.store.sqlite import SqliteStore

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")

CHILD = r"""
import asyncio, json, os, sys
from forethought import Plan, Step, ToolSpec
from forethought.execution.executor import ApproveAll
from forethought.execution.options import ExecutorOptions
from forethought.runs.recording import execute_recorded
from forethought.runs.store.sqlite import SqliteStore

db, stall_fd, spec = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])

class HangingDisk(SqliteStore):
    # Commits normally until one holds the event named by `stall_after`; every later commit
    # blocks for good (the parent never writes to the pipe), as on a disk that stopped answering.
    hung = False
    def append_many(self, events, **kw):
        if self.hung:
            os.read(stall_fd, 1)
        super().append_many(events, **kw)
        kind, sid = spec["stall_after"]
        if any(e.kind == kind and getattr(e, "step_id", None) == sid for e in events):
            self.hung = True

class Tool:
    def __init__(self, name, idempotent):
        self.spec = ToolSpec(name=name, idempotent=idempotent)
    async def invoke(self, args, ctx):
        os.write(1, f"CALL {ctx.step_id}\n".encode())
        return 1

steps = [
    Step(id=sid, tool=tool, depends_on=deps, timeout_s=spec["timeout_s"]) for sid, tool, deps in spec["steps"]
]
tools = {"idem": Tool("idem", True), "mark": Tool("mark", False)}
options = ExecutorOptions(gate=ApproveAll(), max_concurrency=spec["max_concurrency"])
asyncio.run(execute_recorded(HangingDisk(db), Plan(goal="g", steps=steps), tools, options, run_id="run"))
"""


class Counting:
    """The same tools in this process, for the resume: counts the calls it makes."""

    def __init__(self, name: str, idempotent: bool, calls: Counter[str]) -> None:
        self.spec = ToolSpec(name=name, idempotent=idempotent)
        self._calls = calls

    async def invoke(self, args: dict[str, Any], ctx: Any) -> Any:
        self._calls[ctx.step_id] += 1
        return 1


def _crash(db: Path, spec: dict[str, Any], wait_for: set[str]) -> Counter[str]:
    """Run the child until every step in ``wait_for`` was called, SIGKILL it, return the calls."""
    stall_r, stall_w = os.pipe()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db), str(stall_r), json.dumps(spec)],
        env=env,
        stdout=subprocess.PIPE,
        pass_fds=(stall_r,),
    )
    calls: Counter[str] = Counter()
    try:
        assert child.stdout is not None
        fd, buf = child.stdout.fileno(), b""
        while not wait_for <= set(calls):
            # A bound on a failing run only (the child stuck short of the calls): not a wait.
            ready, _, _ = select.select([fd], [], [], 60)
            assert ready, f"no call for 60 s after {sorted(calls)}, waiting for {sorted(wait_for)}"
            chunk = os.read(fd, 4096)
            assert chunk, f"the child ended after calling {sorted(calls)}, waiting for {sorted(wait_for)}"
            *lines, buf = (buf + chunk).split(b"\n")
            calls.update(line.split()[1].decode() for line in lines)
        child.send_signal(signal.SIGKILL)
        child.wait(30)
        rest = buf + child.stdout.read()  # calls made before the kill landed
        calls.update(line.split()[1].decode() for line in rest.split(b"\n") if line)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(30)
        os.close(stall_r)
        os.close(stall_w)
    return calls


async def _resume(db: Path) -> tuple[Any, Counter[str]]:
    calls: Counter[str] = Counter()
    tools = {"idem": Counting("idem", True, calls), "mark": Counting("mark", False, calls)}
    with SqliteStore(db) as store:
        state = await resume_run(store, "run", tools, approve_all=True)
        return fold(store.events("run")) if state is not None else None, calls


# Steps without a timeout take the executor's quick path; with one, the general attempt loop
# (``attempts.attempts``: also the path of a backend's call, a retry, a step with a check).
@pytest.mark.parametrize("timeout_s", [None, 60.0], ids=["quick", "attempts"])
async def test_idempotent_steps_called_before_their_start_is_durable_rerun_once(
    tmp_path: Path, timeout_s: float | None
) -> None:
    # root → six idempotent and six non-idempotent steps → join; two at a time, in plan order.
    # The disk hangs after the commit that holds the root's result: i0's and i1's starts are in
    # it (opened with the root's result), nothing later becomes durable. m0 is opened when i0
    # ends and then holds its slot, waiting for its start to be durable; i2..i5 take turns in
    # the other slot. m0 is opened before i2, so had it been called, its call would come first.
    idem = [f"i{k}" for k in range(6)]
    marks = [f"m{k}" for k in range(6)]
    order = ["i0", "i1", "m0", "i2", "i3", "i4", "i5", "m1", "m2", "m3", "m4", "m5"]
    spec = {
        "steps": [
            ["root", "idem", []],
            *[[sid, "idem" if sid in idem else "mark", ["root"]] for sid in order],
            ["join", "idem", order],
        ],
        "max_concurrency": 2,
        "stall_after": ["step_succeeded", "root"],
        "timeout_s": timeout_s,
    }
    db = tmp_path / "runs.db"
    before = _crash(db, spec, wait_for={"root", *idem})

    with SqliteStore(db) as store:
        events = store.events("run")
    started = {e.step_id for e in events if e.kind == "step_started"}  # type: ignore[union-attr]
    succeeded = {e.step_id for e in events if e.kind == "step_succeeded"}  # type: ignore[union-attr]
    assert succeeded == {"root"}
    # All six idempotent tools ran, at most two of them with their start on disk: the others
    # were called on the strength of the root's durable result alone.
    assert started <= {"root", "i0", "i1"}
    assert set(idem) - started, "no idempotent step was called before its start was durable"
    # No non-idempotent tool ran: each still waits for its own start to be durable.
    assert not set(marks) & set(before), sorted(before)

    state, after = await _resume(db)
    assert state is not None and state.status == "succeeded", state
    total = before + after
    assert {sid: total[sid] for sid in idem} == dict.fromkeys(idem, 2)  # re-run once, no more
    assert {sid: total[sid] for sid in marks} == dict.fromkeys(marks, 1)
    assert total["root"] == 1 and total["join"] == 1
    assert after["root"] == 0  # its result was durable: not called again


async def test_a_non_idempotent_step_cut_off_mid_call_needs_review_not_a_second_call(tmp_path: Path) -> None:
    # root → m0 (non-idempotent) and i0 (idempotent); the disk hangs once m0's start is on disk.
    spec = {
        "steps": [["root", "idem", []], ["m0", "mark", ["root"]], ["i0", "idem", ["m0"]]],
        "max_concurrency": None,
        "stall_after": ["step_started", "m0"],
        "timeout_s": None,
    }
    db = tmp_path / "runs.db"
    before = _crash(db, spec, wait_for={"root", "m0"})
    assert before["m0"] == 1 and before["i0"] == 0  # i0 waits for m0's result, never durable

    state, after = await _resume(db)
    assert state is not None
    assert state.steps["m0"].status == "needs_review"
    assert after["m0"] == 0  # never a second call of a step that may have had its effect
    assert after["i0"] == 0  # nor of what depends on it
