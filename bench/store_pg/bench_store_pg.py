"""The PostgreSQL run store beside SQLite, same machine, same run: per-event and per-step costs.

What docs/scaling.md needs: the cost of one commit, of one event inside a batch, of one recorded
step (idempotent steps are group-committed; a non-idempotent step waits for its own commit), of
a worker's claim, and how aggregate throughput grows with several processes writing at once.

    python bench/store_pg/bench_store_pg.py [--quick] [--pg postgresql://postgres@127.0.0.1:5432/test]

Each PostgreSQL measurement uses a fresh schema, dropped afterwards. Prints a JSON report.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "store"))

from bench_store import make_events, noop, wide_plan  # type: ignore[import-not-found]

from forethought import Plan, Step, tool
from forethought.execution.executor import ApproveAll
from forethought.execution.options import ExecutorOptions
from forethought.runs.recording import execute_recorded
from forethought.runs.store.opening import open_store
from forethought.runs.store.recorder import Recorder
from forethought.testing import postgres as pg


@tool(effect="mutating", idempotent=False, blocking=False)
def charge(i: int) -> int:
    return i


def chain_of_charges(n: int) -> Plan:
    return Plan(
        goal="charges",
        steps=tuple(
            Step(id=f"c{i}", tool="charge", args={"i": i}, depends_on=(f"c{i - 1}",) if i else ())
            for i in range(n)
        ),
    )


@contextmanager
def database(kind: str, pg_url: str) -> Iterator[str]:
    if kind == "sqlite":
        with tempfile.TemporaryDirectory() as d:
            yield str(Path(d) / "runs.db")
    else:
        with pg.fresh_schema(pg_url) as url:
            yield url


def postgres_cpu_s() -> float:
    """CPU seconds used so far by every ``postgres`` process on this machine (server backends,
    WAL writer, checkpointer): the server's share of a measurement, read from /proc."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        if comm.startswith("postgres"):
            fields = stat[stat.rindex(")") + 2 :].split()
            total += int(fields[11]) + int(fields[12])  # utime + stime, in clock ticks
    return total / os.sysconf("SC_CLK_TCK")


def append_rate(db: str, batch: int, n: int) -> dict[str, float]:
    store = open_store(db)
    events = make_events("tp", n)
    cpu0, server0, t0 = time.process_time(), postgres_cpu_s(), time.perf_counter()
    for i in range(0, n, batch):
        store.append_many(events[i : i + batch])
    dt = time.perf_counter() - t0
    client_cpu, server_cpu = time.process_time() - cpu0, postgres_cpu_s() - server0
    assert store.last_seq("tp") == n - 1
    store.close()
    commits = -(-n // batch)
    out = {
        "events_per_s": n / dt,
        "ms_per_commit": dt / commits * 1000,
        "client_cpu_us_per_event": client_cpu / n * 1e6,
    }
    if "://" in db:
        out["server_cpu_us_per_event"] = server_cpu / n * 1e6
    return out


async def recorder_rate(db: str, n: int) -> dict[str, float]:
    store = open_store(db)
    events = make_events("rec", n)
    rec = Recorder(store)
    t0 = time.perf_counter()
    for i, e in enumerate(events):
        await rec(e)
        if i % 64 == 0:
            await asyncio.sleep(0)
    await rec.aclose()
    dt = time.perf_counter() - t0
    store.close()
    return {"events_per_s": n / dt, "commits": rec.commits}


async def recorded_steps(
    db: str, plan: Plan, tools: dict[str, Any], run_id: str, store: Any = None
) -> dict[str, float]:
    """One recorded run; ``store``: an open store to reuse (as a worker does), else a new one."""
    owned = store is None
    store = open_store(db) if owned else store
    server0, t0 = postgres_cpu_s(), time.perf_counter()
    state = await execute_recorded(store, plan, tools, ExecutorOptions(gate=ApproveAll()), run_id=run_id)
    dt = time.perf_counter() - t0
    server_cpu = postgres_cpu_s() - server0
    assert state.status == "succeeded", state.reason
    events = store.last_seq(run_id) + 1
    if owned:
        store.close()
    n = len(plan.steps)
    out = {"steps_per_s": n / dt, "events_per_s": events / dt, "ms_per_step": dt / n * 1000, "events": events}
    if "://" in db:
        out["server_cpu_us_per_step"] = server_cpu / n * 1e6
    return out


def _one_process(db: str, runs: int, steps: int, tag: str, out: Any) -> None:
    async def go() -> float:
        store = open_store(db)  # one store per process, as a worker keeps one
        plan = wide_plan(steps)
        t0 = time.perf_counter()
        for r in range(runs):
            await recorded_steps(db, plan, {"noop": noop}, f"{tag}-{r}", store)
        dt = time.perf_counter() - t0
        store.close()
        return dt

    out.put(asyncio.run(go()))


def concurrent_runs(db: str, processes: int, runs: int, steps: int) -> dict[str, float]:
    """``processes`` processes, each recording ``runs`` runs of a ``steps``-step plan, at once."""
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=_one_process, args=(db, runs, steps, f"p{p}", out)) for p in range(processes)]
    t0 = time.perf_counter()
    for p in procs:
        p.start()
    times = [out.get(timeout=600) for _ in procs]
    wall = time.perf_counter() - t0
    for p in procs:
        p.join()
    total_steps = processes * runs * steps
    return {
        "processes": processes,
        "steps_per_s": total_steps / max(times),
        "wall_s_incl_start": wall,
        "runs_per_s": processes * runs / max(times),
    }


def open_cost(db: str, n: int) -> dict[str, float]:
    """Opening a store (connect, check migrations, start the pool): paid per process, not per run."""
    open_store(db).close()  # the schema exists from here on
    t0 = time.perf_counter()
    for _ in range(n):
        open_store(db).close()
    return {"ms_per_open": (time.perf_counter() - t0) / n * 1000}


def claim_cost(url: str, n: int) -> dict[str, float]:
    store: Any = open_store(url)
    for i in range(n):
        store.append_many(make_events(f"q{i}", 3))
        store.enqueue(f"q{i}")
    t0 = time.perf_counter()
    got = 0
    while store.claim(f"bench:{os.getpid()}:{got}", 30) is not None:
        got += 1
    dt = time.perf_counter() - t0
    store.close()
    assert got == n
    return {"ms_per_claim": dt / n * 1000, "claims_per_s": n / dt}


def server_settings(url: str) -> dict[str, str]:
    import psycopg

    with psycopg.connect(url) as conn:
        return {
            name: str(conn.execute(f"SHOW {name}").fetchone()[0])  # type: ignore[index]
            for name in (
                "server_version",
                "fsync",
                "synchronous_commit",
                "wal_sync_method",
                "max_connections",
            )
        }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--pg", default=pg.server_url())
    args = ap.parse_args()
    q = args.quick
    reason = pg.unavailable_reason(args.pg)
    if reason:
        raise SystemExit(reason)
    report: dict[str, Any] = {
        "machine": {
            "cpus": os.cpu_count(),
            "loadavg_start": os.getloadavg(),
            "python": sys.version.split()[0],
        },
        "postgresql": server_settings(args.pg),
    }
    kinds = ["sqlite", "postgresql"]
    sizes = {
        1: 300 if q else 1000,
        10: 2000 if q else 10_000,
        100: 10_000 if q else 50_000,
        1000: 20_000 if q else 100_000,
    }
    section: dict[str, Any] = {}
    for kind in kinds:
        for batch, n in sizes.items():
            with database(kind, args.pg) as db:
                section.setdefault(kind, {})[f"batch {batch}"] = append_rate(db, batch, n)
    report["append_many"] = section

    def each(fn: Callable[[str], Any]) -> dict[str, Any]:
        out = {}
        for kind in kinds:
            with database(kind, args.pg) as db:
                out[kind] = fn(db)
        return out

    report["recorder"] = each(lambda db: asyncio.run(recorder_rate(db, 20_000 if q else 100_000)))
    n_idem = 1000 if q else 5000
    report["open_store"] = each(lambda db: open_cost(db, 10))
    report["idempotent_steps"] = each(
        lambda db: asyncio.run(recorded_steps(db, wide_plan(n_idem), {"noop": noop}, "wide"))
    )
    n_charges = 100 if q else 400
    report["non_idempotent_chain"] = each(
        lambda db: asyncio.run(recorded_steps(db, chain_of_charges(n_charges), {"charge": charge}, "chain"))
    )
    conc: dict[str, Any] = {}
    for kind in kinds:
        for procs in (1, 2, 4):
            with database(kind, args.pg) as db:
                conc.setdefault(kind, []).append(concurrent_runs(db, procs, 3 if q else 5, 200))
    report["concurrent_processes"] = conc
    with database("postgresql", args.pg) as url:
        report["claims"] = claim_cost(url, 100 if q else 500)
    report["machine"]["loadavg_end"] = os.getloadavg()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
