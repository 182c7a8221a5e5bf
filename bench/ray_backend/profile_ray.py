"""Where a run on Ray loses time with the SQLite store, against the same run in memory.

Runs bench_ray's layered sleep DAG (fixed 20 ms steps, one 400 ms straggler) on a local Ray
instance, alternating ``Agent(record=False, backend="ray")`` and
``Agent(store=SqliteStore(...), backend="ray")``, and timestamps (one system-wide monotonic
clock, read in the driver and on Ray's workers):

- on the worker: each step's tool start and end (the tool returns them);
- in the driver: the Ray reply arriving (``RayBackend.call`` returning), ``step_succeeded`` and
  ``step_started`` appended to the journal, each commit's start and end in the writer thread and
  its callback on the loop, the dependent's ``RayBackend.call`` entry.

Per dependency edge on which a step waited (its last dependency to finish), the lag from the
dependency's tool end to the step's tool start is split into: reply (tool end → result in the
driver), executor (result → dependent's ``step_started`` queued), durable (→ the commit holding
it reported), dispatch (→ ``RayBackend.call`` entered), ray start (→ the tool starts on the
worker). Also the time before the first step and after the last one.

    PYTHONPATH=src .venv/bin/python bench/ray_backend/profile_ray.py [--rounds 6] [--out F]

Measurement only: it wraps methods of this process's classes for the run it makes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "executor"))
sys.path.insert(0, str(HERE))

import ray  # noqa: E402
from bench_executor import critical_path  # type: ignore[import-not-found]  # noqa: E402
from bench_ray import dag_plan, layered_dag  # type: ignore[import-not-found]  # noqa: E402

from forethought import Agent  # noqa: E402
from forethought.execution import attempts as attempts_mod  # noqa: E402
from forethought.execution.backends import ray as ray_backend  # noqa: E402
from forethought.execution.backends.ray import actor_pool_stats  # noqa: E402
from forethought.runs.store import recorder as recorder_mod  # noqa: E402
from forethought.runs.store.sqlite import SqliteStore  # noqa: E402
from forethought.tools.loader import open_tools  # noqa: E402

now = time.monotonic
TRACE: dict[str, Any] = {}


def reset() -> None:
    TRACE.clear()
    TRACE.update(
        reply={}, call_in={}, started={}, succeeded={}, commits=[], committed=[], store_ops=[], tx=[]
    )


def instrument() -> None:
    call = ray_backend.RayBackend.call

    async def traced_call(self: Any, tool: Any, args: dict[str, Any], ctx: Any) -> Any:
        TRACE["call_in"][ctx.step_id] = now()
        out = await call(self, tool, args, ctx)
        TRACE["reply"][ctx.step_id] = now()
        return out

    ray_backend.RayBackend.call = traced_call  # type: ignore[method-assign]

    opened = attempts_mod._open

    def traced_open(run: Any, step: Any, *a: Any) -> Any:
        out = opened(run, step, *a)
        TRACE["started"][step.id] = now()
        return out

    attempts_mod._open = traced_open

    writer = recorder_mod.Recorder._append

    def traced_writer(self: Any, events: Any, bodies: Any) -> None:
        t = now()
        writer(self, events, bodies)
        TRACE["commits"].append((t, now(), [(e.kind, getattr(e, "step_id", None)) for e in events]))

    recorder_mod.Recorder._append = traced_writer  # type: ignore[method-assign]

    done = recorder_mod.Recorder._committed

    def traced_done(self: Any, fut: Any, batch: Any) -> None:
        TRACE["committed"].append((now(), batch[-1].seq if batch else -1, len(batch)))
        done(self, fut, batch)

    recorder_mod.Recorder._committed = traced_done  # type: ignore[method-assign]

    from forethought.execution.executor import Executor
    from forethought.runs import recording

    recorded = recording.execute_recorded

    async def traced_recorded(*a: Any, **k: Any) -> Any:
        TRACE["execute_recorded"] = now()
        return await recorded(*a, **k)

    recording.execute_recorded = traced_recorded  # type: ignore[assignment]
    execute = Executor.run

    async def traced_run(self: Any) -> Any:
        TRACE["executor_run"] = now()
        return await execute(self)

    Executor.run = traced_run  # type: ignore[method-assign]

    tx = SqliteStore._append_tx

    def traced_tx(*a: Any) -> Any:
        t = now()
        out = tx(*a)
        TRACE["tx"].append((t, now()))
        return out

    SqliteStore._append_tx = staticmethod(traced_tx)  # type: ignore[method-assign]

    for name in ("acquire_lease", "release_lease", "last_seq", "renew_lease"):
        orig = getattr(SqliteStore, name)

        def traced(self: Any, *a: Any, __orig: Any = orig, __name: str = name) -> Any:
            t = now()
            try:
                return __orig(self, *a)
            finally:
                TRACE["store_ops"].append((__name, t, now()))

        setattr(SqliteStore, name, traced)


async def one_run(plan: Any, db: Path | None) -> dict[str, Any]:
    async with open_tools([HERE / "trace_tools.py"], include_entry_points=False) as registry:
        store = SqliteStore(db) if db is not None else None
        agent = Agent(registry, store=store, record=db is not None, backend="ray", max_concurrency=64)
        reset()
        t0 = now()
        result = await agent.run(plan, approve="all")
        t1 = now()
        if store is not None:
            store.close()
        assert result.state.status == "succeeded", result.state.reason
        tool = {sid: tuple(s.output[1:]) for sid, s in result.state.steps.items()}
        return {"t0": t0, "t1": t1, "tool": tool, **{k: v for k, v in TRACE.items()}}


def analyse(run: dict[str, Any], deps: dict[int, list[int]]) -> dict[str, Any]:
    tool = run["tool"]
    commits_done = run["committed"]  # (t, last seq, n) on the loop
    writer = run["commits"]  # (start, end, kinds) in the writer thread
    parts: dict[str, list[float]] = defaultdict(list)
    for i, ds in deps.items():
        if not ds:
            continue
        sid = f"s{i}"
        last = max(ds, key=lambda d: tool[f"s{d}"][1])
        dsid = f"s{last}"
        a = tool[dsid][1]
        b = run["reply"][dsid]
        c = run["started"][sid]
        e = run["call_in"][sid]
        f = tool[sid][0]
        parts["reply"].append(b - a)
        parts["executor"].append(c - b)
        if writer:
            # The writer commit that held this step's step_started, and its callback on the loop.
            k = next(n for n, (_, _, kinds) in enumerate(writer) if ("step_started", sid) in kinds)
            ws, we, _ = writer[k]
            d = commits_done[k][0]
            parts["queued for commit"].append(max(0.0, ws - c))
            parts["commit (writer thread)"].append(we - max(ws, c))
            parts["commit callback"].append(d - we)
            parts["dispatch"].append(e - d)
        else:
            parts["dispatch"].append(e - c)
        parts["ray start"].append(f - e)
        parts["total"].append(f - a)
    first = min(t[0] for t in tool.values())
    last = max(t[1] for t in tool.values())
    t0 = run["t0"]
    marks = {"first call": min(run["call_in"].values()), "first tool start": first}
    for k in ("execute_recorded", "executor_run"):
        if k in run:
            marks[k] = run[k]
    for name, s, e in run["store_ops"]:
        marks.setdefault(f"{name} start", s)
        marks.setdefault(f"{name} end", e)
    if writer:
        marks["first commit start"], marks["first commit end"] = writer[0][0], writer[0][1]
        marks["last commit start"], marks["last commit end"] = writer[-1][0], writer[-1][1]
    marks["last tool end"] = last
    marks["last reply"] = max(run["reply"].values())
    marks["run returned"] = run["t1"]
    return {
        "before_first_ms": (first - run["t0"]) * 1e3,
        "after_last_ms": (run["t1"] - last) * 1e3,
        "makespan_ms": (run["t1"] - run["t0"]) * 1e3,
        "edges_ms": {k: statistics.median(v) * 1e3 for k, v in parts.items()},
        "edges_mean_ms": {k: statistics.fmean(v) * 1e3 for k, v in parts.items()},
        "commits": len(writer),
        "commit_ms": [round((e - s) * 1e3, 2) for s, e, _ in writer],
        "commit_kinds": [
            (round((s - t0) * 1e3, 2), round((e - t0) * 1e3, 2), " ".join(f"{k[5:8]}:{i}" for k, i in kinds))
            for s, e, kinds in writer
        ],
        "commit_split_ms": [
            (round((ts - s) * 1e3, 2), round((te - ts) * 1e3, 2), round((e - te) * 1e3, 2), len(k))
            for (s, e, k), (ts, te) in zip(writer, run["tx"], strict=True)
        ],
        "store_ops_ms": [(n, round((e - s) * 1e3, 2)) for n, s, e in run["store_ops"]],
        "marks_ms": {k: (v - t0) * 1e3 for k, v in sorted(marks.items(), key=lambda kv: kv[1])},
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        _node_ip_address="127.0.0.1",
        _system_config={"num_workers_soft_limit": 10},
    )
    instrument()
    deps, secs = layered_dag(False, seed=0)
    cp = critical_path(deps, secs)
    plan = dag_plan(deps, secs, 0.1)
    out: dict[str, list[dict[str, Any]]] = {"memory": [], "sqlite": []}
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "runs.db"
        for _ in range(4):
            asyncio.run(one_run(plan, None))
            asyncio.run(one_run(plan, db))
        deadline = time.monotonic() + 120
        while actor_pool_stats()["starting"] and time.monotonic() < deadline:
            asyncio.run(one_run(plan, None))
        load = [os.getloadavg()[0]]
        for _ in range(args.rounds):
            for name, where in (("memory", None), ("sqlite", db)):
                a = analyse(asyncio.run(one_run(plan, where)), deps)
                a["ratio"] = a["makespan_ms"] / 1e3 / cp
                out[name].append(a)
        load.append(os.getloadavg()[0])
    ray.shutdown()
    summary: dict[str, Any] = {"loadavg_1m_start_end": load}
    for name, runs in out.items():
        keys = runs[0]["edges_ms"].keys()
        summary[name] = {
            "ratio_median": round(statistics.median(r["ratio"] for r in runs), 4),
            "before_first_ms": round(statistics.median(r["before_first_ms"] for r in runs), 2),
            "after_last_ms": round(statistics.median(r["after_last_ms"] for r in runs), 2),
            "edge_median_ms": {k: round(statistics.median(r["edges_ms"][k] for r in runs), 3) for k in keys},
            "edge_mean_ms": {
                k: round(statistics.median(r["edges_mean_ms"][k] for r in runs), 3) for k in keys
            },
            "commits_per_run": [r["commits"] for r in runs],
            "commit_ms_sample": runs[-1]["commit_ms"],
            "commit_split_ms_first3": [r["commit_split_ms"][:3] for r in runs],
            "commit_kinds_sample": runs[-1]["commit_kinds"],
            "store_ops_ms_sample": runs[-1]["store_ops_ms"],
            "marks_ms_median": {
                k: round(statistics.median(r["marks_ms"][k] for r in runs), 2) for k in runs[0]["marks_ms"]
            },
        }
    text = json.dumps(summary, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
