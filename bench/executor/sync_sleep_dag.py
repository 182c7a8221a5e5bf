"""The layered sleep DAG through ``Agent`` with a sync ``def`` tool: how late the first step
starts, and makespan / critical path, in memory and with the SQLite store.

Most users' tools are plain functions, which run on the run's pool of worker threads; this
measures what opening that pool costs a run (``bench_executor.py``'s sleep tool is async and
opens none). Each ``--src`` gets fresh child processes, interleaved round by round so both
sides see the same machine; every child does ``--runs`` runs (its first run in the process
included) of ``bench_executor.sleep_dag`` (48 steps, 20 ms each, one 400 ms straggler) with a
fresh plan and, for ``sqlite``, a fresh database (``synchronous=FULL``).

    python bench/executor/sync_sleep_dag.py --src BEFORE/src --src src [--rounds 3] [--runs 4]

Per source and store it prints the median over every run of: the first tool call's start after
``Agent.run`` was called (ms) and makespan / critical path. Times come from the tool itself
(``time.time()`` at its start and end).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

TOOLS = """
import time
from forethought import tool


@tool
def nap(i: int, seconds: float) -> list:
    "Sleeps, and says when it started and ended."
    t0 = time.time()
    time.sleep(seconds)
    return [t0, time.time()]
"""


def child(store_kind: str, runs: int, work: Path) -> list[dict[str, float]]:
    """In a fresh process (``PYTHONPATH`` = the source under test): ``runs`` runs, measured."""
    sys.path.insert(0, str(HERE))
    from bench_executor import critical_path, nap_plan, sleep_dag  # type: ignore[import-not-found]

    from forethought import Agent
    from forethought.runs.store.sqlite import SqliteStore
    from forethought.tools.loader import open_tools

    (work / "tools.py").write_text(TOOLS)
    out: list[dict[str, float]] = []

    async def main() -> None:
        async with open_tools([work / "tools.py"], include_entry_points=False) as registry:
            for k in range(runs):
                deps, secs = sleep_dag(seed=18 + k)
                plan = nap_plan(deps, secs)
                db = work / f"runs{k}.db"
                store = SqliteStore(db, synchronous="FULL") if store_kind == "sqlite" else None
                agent = Agent(registry, store=store, record=store is not None, max_concurrency=64)
                t0 = time.time()
                result = await agent.run(plan, approve="all")
                t1 = time.time()
                if store is not None:
                    store.close()
                assert result.state.status == "succeeded", result.state.reason
                first = min(s.output[0] for s in result.state.steps.values())
                ratio = (t1 - t0) / critical_path(deps, secs)
                out.append({"first_step_ms": (first - t0) * 1000, "ratio": ratio})

    asyncio.run(main())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", action="append", type=Path, help="a checkout's src (repeat to compare)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=4, help="runs per child process")
    ap.add_argument("--child", nargs=2, metavar=("STORE", "WORK"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], args.runs, Path(args.child[1]))))
        return
    sources = args.src or [HERE.parents[1] / "src"]
    results: dict[tuple[str, str], list[dict[str, float]]] = {}
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for _ in range(args.rounds):
        for src in sources:
            for store_kind in ("memory", "sqlite"):
                with tempfile.TemporaryDirectory() as work:
                    proc = subprocess.run(
                        [sys.executable, __file__, "--runs", str(args.runs), "--child", store_kind, work],
                        env={**os.environ, "PYTHONPATH": str(src)},
                        capture_output=True,
                        text=True,
                        check=True,
                    )
                results.setdefault((str(src), store_kind), []).extend(json.loads(proc.stdout))
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| src | store | runs | first step starts, ms (median) | makespan / critical path (median) |")
    print("|---|---|---:|---:|---:|")
    for (src, store_kind), rows in results.items():
        first = statistics.median(r["first_step_ms"] for r in rows)
        ratio = statistics.median(r["ratio"] for r in rows)
        print(f"| {src} | {store_kind} | {len(rows)} | {first:.1f} | {ratio:.3f} |")


if __name__ == "__main__":
    main()
