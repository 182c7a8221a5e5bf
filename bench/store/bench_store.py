"""Store benchmarks: durable event throughput and time to resume a 10,000-step run.

Usage:  .venv/bin/python bench/store/bench_store.py [--dir DIR] [--quick]

All figures use the SQLite backend on disk with WAL and synchronous=FULL (the default): every
commit is fsynced. DIR should be on the disk you care about (default: a temp dir).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from forethought import Plan, Step, tool
from forethought.events import kinds as ev
from forethought.events.state import fold
from forethought.execution.executor import ApproveAll, Executor
from forethought.execution.options import ExecutorOptions
from forethought.runs.recording import execute_recorded
from forethought.runs.resume import resume_run
from forethought.runs.store.recorder import Recorder
from forethought.runs.store.sqlite import SqliteStore


def make_events(run_id: str, n: int) -> list[Any]:
    """A realistic mix: ready / started (with args) / succeeded (with a small output)."""
    out: list[Any] = [ev.RunCreated(run_id=run_id, seq=0, goal="bench")]
    seq = 1
    i = 0
    while len(out) < n:
        sid = f"step{i}"
        for e in (
            ev.StepReady(run_id=run_id, seq=seq, step_id=sid),
            ev.StepStarted(
                run_id=run_id,
                seq=seq + 1,
                step_id=sid,
                attempt=1,
                idempotency_key=f"{run_id}:{sid}",
                args={"path": f"/data/{i}.csv"},
            ),
            ev.StepSucceeded(
                run_id=run_id,
                seq=seq + 2,
                step_id=sid,
                attempt=1,
                output={"rows": i, "ok": True},
                duration_s=0.001,
            ),
        ):
            out.append(e)
        seq += 3
        i += 1
    return out[:n]


def bench_append_many(d: Path, batch: int, n: int) -> float:
    db = d / f"tp_{batch}.db"
    store = SqliteStore(db)
    events = make_events("tp", n)
    t0 = time.perf_counter()
    for i in range(0, n, batch):
        store.append_many(events[i : i + batch])
    dt = time.perf_counter() - t0
    assert store.last_seq("tp") == n - 1
    store.close()
    return n / dt


async def bench_recorder(d: Path, n: int) -> tuple[float, int]:
    store = SqliteStore(d / "rec.db")
    events = make_events("rec", n)
    rec = Recorder(store)
    t0 = time.perf_counter()
    for i, e in enumerate(events):
        await rec(e)
        if i % 64 == 0:
            await asyncio.sleep(0)  # a producer that yields, like the executor's sink pump
    await rec.aclose()
    dt = time.perf_counter() - t0
    assert store.last_seq("rec") == n - 1
    store.close()
    return n / dt, rec.commits


@tool(blocking=False)
def noop(i: int) -> int:
    return i


def wide_plan(n: int) -> Plan:
    steps = [Step(id="root", tool="noop", args={"i": 0})]
    steps += [Step(id=f"s{i}", tool="noop", args={"i": i}, depends_on=("root",)) for i in range(1, n - 1)]
    steps.append(
        Step(id="sink", tool="noop", args={"i": -1}, depends_on=tuple(f"s{i}" for i in range(1, n - 1)))
    )
    return Plan(goal="wide", steps=tuple(steps))


def layered_plan(n: int, width: int = 100) -> Plan:
    """``n/width`` layers; each step depends on two steps of the layer before (by reference)."""
    steps = []
    for i in range(n):
        layer, j = divmod(i, width)
        if layer == 0:
            steps.append(Step(id=f"s{i}", tool="noop", args={"i": i}))
        else:
            a, b = (layer - 1) * width + j, (layer - 1) * width + (j * 7 + 3) % width
            steps.append(Step(id=f"s{i}", tool="noop", args={"i": f"${{s{a}}}"}, depends_on=(f"s{b}",)))
    return Plan(goal="layered", steps=tuple(steps))


async def bench_executor_recorded(d: Path, n: int) -> dict[str, float]:
    plan = wide_plan(n)
    t0 = time.perf_counter()
    await Executor(plan, {"noop": noop}, ExecutorOptions(gate=ApproveAll())).run()
    bare = time.perf_counter() - t0
    store = SqliteStore(d / "exec.db")
    t0 = time.perf_counter()
    state = await execute_recorded(
        store, plan, {"noop": noop}, ExecutorOptions(gate=ApproveAll()), run_id="exec"
    )
    recorded = time.perf_counter() - t0
    events = store.last_seq("exec") + 1
    assert state.status == "succeeded"
    store.close()
    return {"bare_s": bare, "recorded_s": recorded, "events": events}


async def bench_resume(d: Path, plan: Plan, repeats: int) -> dict[str, Any]:
    """A 10,000-step run that crashed just before its last step; resume it to the end."""
    db = d / f"resume-{plan.goal}.db"
    n = len(plan.steps)
    last = plan.steps[-1].id
    ex = Executor(plan, {"noop": noop}, ExecutorOptions(gate=ApproveAll()), run_id="full")
    await ex.run()
    cut = next(
        i for i, e in enumerate(ex.log) if e.kind == "step_started" and getattr(e, "step_id", "") == last
    )
    prefix = ex.log[:cut]
    figures: dict[str, list[float]] = {"load_s": [], "fold_s": [], "resume_total_s": [], "resume_cpu_s": []}
    for r in range(repeats):
        rid = f"crashed{r}"
        with SqliteStore(db) as store:
            store.append_many([e.model_copy(update={"run_id": rid}) for e in prefix])
        # Each measurement opens the database afresh, as `forethought resume` does.
        t0 = time.perf_counter()
        store = SqliteStore(db)
        events = store.events(rid)
        t1 = time.perf_counter()
        fold(events)
        t2 = time.perf_counter()
        store.close()
        figures["load_s"].append(t1 - t0)
        figures["fold_s"].append(t2 - t1)
        t0, c0 = time.perf_counter(), time.process_time()
        store = SqliteStore(db)
        state = await resume_run(store, rid, {"noop": noop}, approve_all=True)
        figures["resume_total_s"].append(time.perf_counter() - t0)
        figures["resume_cpu_s"].append(time.process_time() - c0)
        store.close()
        assert state.status == "succeeded", state.reason
        assert sum(1 for s in state.steps.values() if s.status == "succeeded") == n
    return {
        "events": len(prefix),
        **{k: statistics.median(v) for k, v in figures.items()},
        "resume_min_s": min(figures["resume_total_s"]),
        "resume_max_s": max(figures["resume_total_s"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", default=None)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    d = Path(args.dir or tempfile.mkdtemp(prefix="ft-bench-"))
    d.mkdir(parents=True, exist_ok=True)
    quick = args.quick
    print(
        f"# forethought store bench — {platform.platform()}, Python {sys.version.split()[0]}, "
        f"SQLite {sqlite3.sqlite_version}, {os.cpu_count()} CPUs, dir {d}, load average "
        f"{os.getloadavg()[0]:.1f} at start"
    )
    print("\n## Durable append throughput (WAL, synchronous=FULL, realistic events)")
    print("| batch size | events | events/s |")
    print("|---:|---:|---:|")
    for batch, n in [
        (1, 500 if quick else 2000),
        (10, 5000),
        (100, 20000),
        (1000, 50000 if quick else 200000),
    ]:
        rate = bench_append_many(d, batch, n)
        print(f"| {batch} | {n} | {rate:,.0f} |")
    n = 50000 if quick else 200000
    rate, commits = asyncio.run(bench_recorder(d, n))
    print(
        f"\nRecorder (async group commit, redaction on): {n} events, {rate:,.0f} events/s, "
        f"{commits} commits (≈{n / max(commits, 1):.0f} events per fsync)"
    )
    steps = 2000 if quick else 10000
    ex = asyncio.run(bench_executor_recorded(d, steps))
    print(
        f"\nExecutor, {steps}-step fan-out/fan-in of no-op tools: unrecorded "
        f"{ex['bare_s']:.2f} s, recorded {ex['recorded_s']:.2f} s "
        f"({ex['events']:.0f} events, {ex['events'] / ex['recorded_s']:,.0f} events/s "
        "end to end)"
    )
    repeats = 3 if quick else 7
    print(
        f"\n## Resume a {steps}-step run that crashed before its last step ({repeats} "
        "repeats; medians unless stated)"
    )
    print(
        "| plan shape | events | open DB + load events | fold | `resume_run` wall: min / "
        "median / max | `resume_run` CPU |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for label, plan in [
        (f"fan-out/fan-in (1 → {steps - 2:,} → 1)", wide_plan(steps)),
        ("layered 100×100, references", layered_plan(steps)),
    ]:
        res = asyncio.run(bench_resume(d, plan, repeats))
        print(
            f"| {label} | {res['events']} | {res['load_s'] * 1000:.0f} ms | "
            f"{res['fold_s'] * 1000:.0f} ms | {res['resume_min_s'] * 1000:.0f} / "
            f"{res['resume_total_s'] * 1000:.0f} / {res['resume_max_s'] * 1000:.0f} ms | "
            f"{res['resume_cpu_s'] * 1000:.0f} ms |"
        )
    print(
        "\n(`resume_run` end to end = open DB, take the lease, load + fold + validate the "
        "plan, build the executor, run the last step, record, release the lease.)"
    )


if __name__ == "__main__":
    main()
