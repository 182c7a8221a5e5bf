"""Many processes on one database: executors writing, CLI readers reading, resumes racing.

No "database is locked" may reach a user (every CLI call exits 0 with clean stderr, every writer
finishes), and no update may be lost (every run's log is gap-free and its materialized rows agree
with the log). Processes are forked from the test so they start in milliseconds.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from forethought import Plan, Step, tool
from forethought.events.state import fold
from forethought.execution.executor import ApproveAll
from forethought.execution.options import ExecutorOptions
from forethought.interfaces.cli import main as cli_main
from forethought.runs.recording import execute_recorded
from forethought.runs.resume import resume_run
from forethought.runs.store.base import LeaseHeld
from forethought.runs.store.sqlite import SqliteStore

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")


@tool(effect="mutating", idempotent=False)
def work(i: int) -> int:
    time.sleep(0.001)
    return i


@tool(effect="mutating", idempotent=True)
async def slow_work(i: int) -> int:
    await asyncio.sleep(0.3)
    return i


def _plan(n: int, name: str = "work") -> Plan:
    return Plan(
        goal="concurrency",
        steps=tuple(
            Step(id=f"s{i}", tool=name, args={"i": i}, depends_on=(f"s{i - 3}",) if i >= 3 else ())
            for i in range(n)
        ),
    )


def _fork(fn: Any, *args: Any, log: Path) -> int:
    pid = os.fork()
    if pid == 0:
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        code = 1
        try:
            code = fn(*args)
        except BaseException as exc:
            os.write(2, f"child failed: {type(exc).__name__}: {exc}\n".encode())
        os._exit(code)
    return pid


def _writer(db: str, prefix: str, runs: int, steps: int) -> int:
    async def go() -> None:
        store = SqliteStore(db)
        for r in range(runs):
            state = await execute_recorded(
                store,
                _plan(steps),
                {"work": work},
                ExecutorOptions(gate=ApproveAll(), max_concurrency=3),
                run_id=f"{prefix}-{r}",
            )
            assert state.status == "succeeded", state.reason
        store.close()

    asyncio.run(go())
    return 0


def _reader(db: str, stop_file: str) -> int:
    calls = 0
    extra = {name: f"forethought.interfaces.cli.runs_cmd:{name}_command" for name in ("runs", "show")}
    cli_main.COMMANDS.update(extra)
    while not os.path.exists(stop_file) or calls < 3:
        code = cli_main.run(["runs", "--db", db, "--json"])
        if code != 0:
            return 10 + code
        store = SqliteStore(db)
        ids = [r.run_id for r in store.list_runs(limit=3)]
        store.close()
        for rid in ids:
            code = cli_main.run(["show", rid, "--db", db, "--json"])
            if code != 0:
                return 20 + code
        calls += 1
    sys.stdout.flush()
    os.write(2, f"reader calls: {calls}\n".encode())
    return 0


def _resumer(db: str, run_id: str) -> int:
    async def go() -> int:
        store = SqliteStore(db)
        try:
            state = await resume_run(store, run_id, {"slow_work": slow_work}, approve_all=True)
        except LeaseHeld as exc:
            os.write(2, f"LEASE-HELD {exc}\n".encode())
            return 3
        finally:
            store.close()
        return 0 if state.status == "succeeded" else 1

    return asyncio.run(go())


@pytest.mark.slow
def test_writers_readers_and_racing_resumes(tmp_path: Path) -> None:
    _run_scenario(tmp_path, writers=3, runs=4, steps=40, racers=3)


def test_writers_readers_and_racing_resumes_quick(tmp_path: Path) -> None:
    _run_scenario(tmp_path, writers=2, runs=2, steps=20, racers=2)


def _run_scenario(tmp_path: Path, *, writers: int, runs: int, steps: int, racers: int) -> None:
    db = str(tmp_path / "runs.db")
    stop = str(tmp_path / "stop")
    # A paused run (crashed after its first step) for the resumes to race over.
    seed = SqliteStore(db)

    async def make_paused() -> None:
        from forethought.execution.executor import Executor

        ex = Executor(
            _plan(4, "slow_work"),
            {"slow_work": slow_work},
            ExecutorOptions(gate=ApproveAll()),
            run_id="contested",
        )
        await ex.run()
        cut = next(i for i, e in enumerate(ex.log) if e.kind == "step_succeeded")
        seed.append_many(ex.log[: cut + 1])

    asyncio.run(make_paused())
    seed.close()

    pids: dict[int, tuple[str, Path]] = {}
    for w in range(writers):
        log = tmp_path / f"writer{w}.log"
        pids[_fork(_writer, db, f"w{w}", runs, steps, log=log)] = ("writer", log)
    for r in range(2):
        log = tmp_path / f"reader{r}.log"
        pids[_fork(_reader, db, stop, log=log)] = ("reader", log)
    for k in range(racers):
        log = tmp_path / f"resumer{k}.log"
        pids[_fork(_resumer, db, "contested", log=log)] = ("resumer", log)

    results: dict[str, list[tuple[int, str]]] = {"writer": [], "reader": [], "resumer": []}
    deadline = time.monotonic() + 240
    remaining = dict(pids)
    while remaining:
        assert time.monotonic() < deadline, f"children still running: {remaining}"
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            time.sleep(0.02)
            continue
        role, log = remaining.pop(pid)
        results[role].append((os.waitstatus_to_exitcode(status), log.read_text()))
        if role == "writer" and not any(r == "writer" for r, _ in remaining.values()):
            Path(stop).touch()

    everything = "\n".join(text for group in results.values() for _, text in group)
    assert "locked" not in everything.lower(), everything
    assert "Traceback" not in everything, everything
    assert all(code == 0 for code, _ in results["writer"]), results["writer"]
    assert all(code == 0 for code, _ in results["reader"]), results["reader"]
    resumer_codes = sorted(code for code, _ in results["resumer"])
    # Exactly one resume proceeded (the others saw the lease), unless a late one started after
    # the first finished — then it found the run already succeeded (UserError, exit 1 here).
    assert resumer_codes.count(0) == 1, results["resumer"]
    assert all(c in (0, 1, 3) for c in resumer_codes)

    with SqliteStore(db) as store:
        assert store.integrity_check() == "ok"
        for w in range(writers):
            for r in range(runs):
                rid = f"w{w}-{r}"
                events = store.events(rid)
                assert [e.seq for e in events] == list(range(len(events)))
                state = fold(events)
                assert state.status == "succeeded"
                row = store.get_run(rid)
                assert row is not None and row.last_seq == len(events) - 1
                assert row.status == "succeeded"
                step_rows = store.steps(rid)
                assert len(step_rows) == steps
                assert all(s.status == "succeeded" and s.attempts == 1 for s in step_rows)
        contested = fold(store.events("contested"))
        assert contested.status == "succeeded"
        # 3 starts before the "crash"; after it s1 and s2 re-run (idempotent) and s3 runs once:
        # a second resume proceeding would have added more.
        assert sum(1 for e in store.events("contested") if e.kind == "step_started") == 6
