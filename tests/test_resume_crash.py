"""Crash test: SIGKILL a child running 20-step plans at random points, resume, check the books.

The child (a fresh interpreter; kills are timed from its READY line) runs a series of runs; each
run's plan mixes read-only, idempotent and non-idempotent tools that write to an effect log (the
"outside world"). After every commit the child prints ``ACK run seq kind``. The parent kills it
at a random moment, checks ``PRAGMA integrity_check`` and that every acknowledged event is in the
database, and starts the next child, which resumes unfinished runs first.

A non-idempotent step cut off mid-call needs a human: the child plays the reviewer the way an
operator would — it looks at the outside world (the effect log) and marks the step succeeded if
the effect is there, or retried if not. That the record of the call start is durable *before*
the call (write-ahead) is what makes this review sound.

At the end: every run finished, no non-idempotent effect happened twice, every idempotent tool
saw one idempotency key per step across all its attempts, no acknowledged event was lost.
"""

from __future__ import annotations

import asyncio
import os
import random
import select
import signal
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from forethought import Plan, Step, ToolContext, tool
from forethought.events.state import RunState, fold
from forethought.execution.executor import ApproveAll
from forethought.execution.options import ExecutorOptions
from forethought.runs.recording import execute_recorded
from forethought.runs.resume import resume_run
from forethought.runs.review import InterruptedStepsReview
from forethought.runs.store.sqlite import SqliteStore

_EFFECTS: list[str] = [""]


def _world(line: str) -> None:
    fd = os.open(_EFFECTS[0], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


def _jitter() -> None:
    time.sleep(random.random() * 0.002)


@tool
def read(step: str, prev: list[str]) -> dict[str, Any]:
    _jitter()
    return {"step": step}


@tool(effect="mutating", idempotent=True)
def upsert(step: str, prev: list[str], ctx: ToolContext) -> dict[str, Any]:
    _world(f"ATTEMPT {ctx.run_id} {step} {ctx.idempotency_key}\n")
    _jitter()
    text = Path(_EFFECTS[0]).read_text()
    if f"UPSERT {ctx.idempotency_key}\n" not in text:  # the tool dedupes on the key
        _world(f"UPSERT {ctx.idempotency_key}\n")
    return {"step": step}


@tool(effect="mutating", idempotent=False)
def charge(step: str, prev: list[str], ctx: ToolContext) -> dict[str, Any]:
    _jitter()
    _world(f"CHARGE {ctx.run_id} {step}\n")
    _jitter()
    return {"step": step}


TOOLS = {"read": read, "upsert": upsert, "charge": charge}
_KINDS = ["read", "upsert", "charge"]


def _plan() -> Plan:
    steps = []
    rng = random.Random(7)
    for layer in range(5):
        for j in range(4):
            sid = f"s{layer}{j}"
            deps = sorted({f"s{layer - 1}{rng.randrange(4)}" for _ in range(2)}) if layer else []
            steps.append(
                Step(
                    id=sid,
                    tool=_KINDS[(layer + j) % 3],
                    args={"step": sid, "prev": [f"${{{d}.step}}" for d in deps]},
                )
            )
    return Plan(goal="crash test", steps=tuple(steps))


PLAN = _plan()
assert len(PLAN.steps) == 20


def _review(state: RunState) -> InterruptedStepsReview:
    """The operator's check of the outside world for interrupted non-idempotent steps."""
    text = Path(_EFFECTS[0]).read_text() if Path(_EFFECTS[0]).exists() else ""
    done: dict[str, Any] = {}
    retry: list[str] = []
    for sid, st in state.steps.items():
        tool_name = PLAN.step(sid).tool
        if st.status in ("running", "cancelled", "needs_review") and tool_name == "charge":
            if f"CHARGE {state.run_id} {sid}\n" in text:
                done[sid] = {"step": sid}
            else:
                retry.append(sid)
    return InterruptedStepsReview(succeeded=done, retry=retry)


async def _child_main(db: str, run_ids: list[str], out: int) -> None:
    store = SqliteStore(db)

    def ack(batch: Any) -> None:
        os.write(out, "".join(f"ACK {e.run_id} {e.seq} {e.kind}\n" for e in batch).encode())

    for rid in run_ids:
        row = store.get_run(rid)
        if row is None:
            await execute_recorded(
                store,
                PLAN,
                TOOLS,
                ExecutorOptions(gate=ApproveAll(), approved_by="crash-test"),
                run_id=rid,
                on_commit=ack,
            )
            continue
        if row.status == "succeeded":
            continue
        os.write(out, f"RESUME {rid}\n".encode())
        for _ in range(3):
            state = fold(store.events(rid))
            review = _review(state)
            if review.succeeded or review.retry:
                os.write(out, f"REVIEW {rid} {len(review.succeeded)} {len(review.retry)}\n".encode())
            state = await resume_run(
                store, rid, TOOLS, approve_all=True, review=review, on_commit=ack, reviewer="crash-test"
            )
            if state.status == "succeeded":
                break
    store.close()


def _spawn(db: str, run_ids: list[str]) -> tuple[int, int]:
    """Start a child interpreter (exec, not fork: a forked copy of this test process would
    inherit whatever threads earlier tests left running, e.g. an in-process model server, and
    could deadlock on a lock one of them held). Returns once the child has imported everything
    and said READY, so the random kill time is measured from the start of real work."""
    r, w = os.pipe()
    os.set_inheritable(w, True)
    argv = [sys.executable, __file__, "--child", db, _EFFECTS[0], str(w), *run_ids]
    pid = os.posix_spawn(sys.executable, argv, dict(os.environ))
    os.close(w)
    ready = bytearray()
    while b"READY\n" not in ready:
        chunk = os.read(r, 1)
        if not chunk:
            break  # died during start-up: the caller reads EOF and sees its ERROR line
        ready.extend(chunk)
    return pid, r


def _child(db: str, effects: str, fd: int, run_ids: list[str]) -> None:
    _EFFECTS[0] = effects
    os.write(fd, b"READY\n")
    code = 0
    try:
        asyncio.run(_child_main(db, run_ids, fd))
    except BaseException as exc:
        os.write(fd, f"ERROR {type(exc).__name__}: {exc}\n".encode())
        code = 1
    os._exit(code)


def _read_until(fd: int, deadline: float | None, buf: bytearray) -> bool:
    """Read the child's output until ``deadline`` (None: EOF). True when EOF was reached."""
    while True:
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return False
        chunk = os.read(fd, 65536)
        if not chunk:
            return True
        buf.extend(chunk)


def _crash_loop(tmp_path: Path, kills_wanted: int, runs: int) -> dict[str, int]:
    db = str(tmp_path / "runs.db")
    _EFFECTS[0] = str(tmp_path / "effects.log")
    run_ids = [f"run{i:03d}" for i in range(runs)]
    rng = random.Random(20240611)
    acked: dict[str, dict[int, str]] = {}
    figures = Counter[str]()
    errors: list[str] = []

    def absorb(buf: bytearray) -> set[str]:
        touched: set[str] = set()
        for line in buf.decode(errors="replace").splitlines():
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "ACK" and len(parts) == 4:
                acked.setdefault(parts[1], {})[int(parts[2])] = parts[3]
                touched.add(parts[1])
            elif parts[0] == "RESUME":
                figures["resumes"] += 1
            elif parts[0] == "REVIEW":
                figures["reviewed_marked_done"] += int(parts[2])
                figures["reviewed_retried"] += int(parts[3])
            elif parts[0] == "ERROR":
                errors.append(line)
        return touched

    def check_store(touched: set[str]) -> None:
        with SqliteStore(db) as store:
            assert store.integrity_check() == "ok"
            figures["integrity_checks"] += 1
            for rid in touched:
                seqs = acked[rid]
                stored = {e.seq: e.kind for e in store.events(rid)}
                lost = [s for s, kind in seqs.items() if stored.get(s) != kind]
                figures["lost_events"] += len(lost)

    max_kill_at = 0.3
    while figures["kills"] < kills_wanted:
        pid, fd = _spawn(db, run_ids)
        buf = bytearray()
        eof = _read_until(fd, time.monotonic() + rng.uniform(0.0, max_kill_at), buf)
        if not eof:
            os.kill(pid, signal.SIGKILL)
            figures["kills"] += 1
            _read_until(fd, None, buf)  # whatever it wrote before dying
        os.close(fd)
        os.waitpid(pid, 0)
        check_store(absorb(buf))
        assert not errors, errors
        if eof:  # everything finished before the kill: start more runs for the next kills
            run_ids += [f"run{len(run_ids) + i:03d}" for i in range(runs)]
    # Final child: no kill; it must finish every run.
    pid, fd = _spawn(db, run_ids)
    buf = bytearray()
    assert _read_until(fd, time.monotonic() + 120, buf), "final child did not finish in 120 s"
    os.close(fd)
    _, status = os.waitpid(pid, 0)
    touched = absorb(buf)
    assert not errors, errors
    assert status == 0
    check_store(touched | set(acked))

    effects = Path(_EFFECTS[0]).read_text().splitlines()
    charges = Counter(tuple(line.split()[1:3]) for line in effects if line.startswith("CHARGE"))
    upserts = Counter(line.split()[1] for line in effects if line.startswith("UPSERT"))
    attempt_keys: dict[tuple[str, str], set[str]] = {}
    for line in effects:
        if line.startswith("ATTEMPT"):
            _, rid, sid, key = line.split()
            attempt_keys.setdefault((rid, sid), set()).add(key)
    with SqliteStore(db) as store:
        for rid in run_ids:
            state = fold(store.events(rid))
            assert state.status == "succeeded", (rid, state.status, state.reason)
            for step in PLAN.steps:
                if step.tool == "charge":
                    assert charges[(rid, step.id)] == 1, (rid, step.id, charges[(rid, step.id)])
                if step.tool == "upsert":
                    assert len(attempt_keys[(rid, step.id)]) == 1, attempt_keys[(rid, step.id)]
                    assert upserts[next(iter(attempt_keys[(rid, step.id)]))] == 1
        figures["runs_finished"] = len(run_ids)
    figures["duplicate_effects"] = sum(n - 1 for n in charges.values() if n > 1) + sum(
        n - 1 for n in upserts.values() if n > 1
    )
    figures["idempotent_reruns"] = sum(1 for line in effects if line.startswith("ATTEMPT")) - len(upserts)
    figures["acked_events"] = sum(len(v) for v in acked.values())
    assert figures["lost_events"] == 0
    assert figures["duplicate_effects"] == 0
    return dict(figures)


pytestmark = pytest.mark.skipif(
    sys.platform == "win32" or not hasattr(os, "fork"), reason="needs fork and SIGKILL"
)


def _report(capsys: pytest.CaptureFixture[str], title: str, figures: dict[str, int]) -> None:
    with capsys.disabled():  # the figures belong in the CI log even when output is captured
        print(f"\n{title}: " + ", ".join(f"{k}={v}" for k, v in sorted(figures.items())))


def test_crash_resume_quick(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    figures = _crash_loop(tmp_path, kills_wanted=12, runs=3)
    _report(capsys, "crash test (quick)", figures)
    assert figures["kills"] >= 12


@pytest.mark.slow
def test_crash_resume_200_kills(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t0 = time.monotonic()
    figures = _crash_loop(tmp_path, kills_wanted=200, runs=6)
    figures["seconds"] = round(time.monotonic() - t0)
    _report(capsys, "crash test (200 kills)", figures)
    assert figures["kills"] >= 200
    # Kills land at random times; on a loaded machine more of them hit a child before it got to
    # a resume, so this floor only guards that the resume path was exercised many times.
    assert figures["resumes"] >= 50


if __name__ == "__main__" and len(sys.argv) > 5 and sys.argv[1] == "--child":
    _child(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:])
