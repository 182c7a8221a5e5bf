"""Makespan / critical path of bench/executor's layered sleep DAG with every step on Ray.

The DAG is bench/executor's ``sleep_dag``: 6 layers of 8, each step after 1-3 steps of the layer
before, every step sleeping 20 ms but one 400 ms straggler on the critical path (``--jitter``: the
20 ms steps sleep 5-40 ms instead, seeded). Ray runs locally with 2 CPUs on loopback; every step
asks for ``--num-cpus`` (default 0.1, so a whole layer fits at once). Rows: bare Ray tasks and
bare Ray actors (no forethought: the floors), forethought on Ray in memory and with a SQLite
store, and forethought's local backend with the store. Warm-up runs start Ray's workers (and
forethought's actor pool) before anything is measured.

    python bench/ray_backend/bench_ray.py [--repeats 5] [--jitter] [--num-cpus 0.1] [--out F]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "executor"))

import ray  # noqa: E402
from bench_executor import critical_path, nap_plan, sleep_dag  # type: ignore[import-not-found]  # noqa: E402

from forethought import Agent, Plan  # noqa: E402

try:  # the pool came with the actor path; without it (an older forethought) every call is a task
    from forethought.execution.backends.ray import actor_pool_stats
except ImportError:

    def actor_pool_stats() -> dict[str, int]:
        return {"idle": 0, "busy": 0, "starting": 0}


from forethought.runs.store.sqlite import SqliteStore  # noqa: E402
from forethought.tools.loader import open_tools  # noqa: E402


def layered_dag(jitter: bool, seed: int) -> tuple[dict[int, list[int]], dict[int, float]]:
    deps, secs = sleep_dag(seed=18 + seed)
    if jitter:
        rng = random.Random(seed)
        secs = {i: s if s > 0.1 else rng.uniform(0.005, 0.04) for i, s in secs.items()}
    return deps, secs


def dag_plan(deps: dict[int, list[int]], secs: dict[int, float], num_cpus: float) -> Plan:
    plan: Plan = nap_plan(deps, secs, {"ray": {"default": {"num_cpus": num_cpus}}})
    return plan


async def makespan(plan: Plan, backend: str, db: Path | None = None) -> float:
    """Wall time of ``Agent.run`` on ``backend``: in memory, or recorded in a SQLite store at
    ``db`` (the path users take: every event committed before a step that depends on it)."""
    async with open_tools([HERE / "ray_tools.py"], include_entry_points=False) as registry:
        store = SqliteStore(db) if db is not None else None
        agent = Agent(registry, store=store, record=db is not None, backend=backend, max_concurrency=64)
        t0 = time.perf_counter()
        result = await agent.run(plan, approve="all")
        dt = time.perf_counter() - t0
        if store is not None:
            store.close()
        assert result.state.status == "succeeded", result.state.reason
        return dt


@ray.remote(max_retries=0)
def _bare_nap(seconds: float) -> None:
    time.sleep(seconds)


@ray.remote(max_restarts=0, max_task_retries=0, max_concurrency=1)
class _BareNapper:
    def nap(self, seconds: float) -> None:
        time.sleep(seconds)


async def bare_ray(
    deps: dict[int, list[int]], secs: dict[int, float], num_cpus: float, actors: list[Any] | None = None
) -> float:
    """The floor: the same DAG as plain Ray tasks (or, with ``actors``, calls on warm actors taken
    from a free list, one call at a time each, a task when all are busy) awaited from asyncio, no
    forethought."""
    futs: dict[int, asyncio.Future[None]] = {}
    free = list(actors or [])

    async def step(i: int) -> None:
        for d in deps[i]:
            await futs[d]
        if not free:  # no actors, or all busy (a layer's steps overlap the next): a task
            await _bare_nap.options(num_cpus=num_cpus).remote(secs[i])
            return
        actor = free.pop()
        try:
            await actor.nap.remote(secs[i])
        finally:
            free.append(actor)

    t0 = time.perf_counter()
    for i in sorted(deps):
        futs[i] = asyncio.ensure_future(step(i))
    await asyncio.gather(*futs.values())
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--warmups", type=int, default=3)
    ap.add_argument("--jitter", action="store_true")
    ap.add_argument("--num-cpus", type=float, default=0.1)
    # Ray's raylet prints its warnings (e.g. "N PYTHON worker processes have been started") to
    # the driver's stdout: the results go to their own file.
    ap.add_argument("--out", type=Path, help="write the results here (default: stdout)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    # Ray keeps num_cpus idle workers by default and kills the others after a second idle; a
    # layer of 8 fractional tasks needs 8, so keep that many alive between layers and runs.
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        _node_ip_address="127.0.0.1",
        _system_config={"num_workers_soft_limit": 10},
    )
    started = time.perf_counter() - t0
    systems = (
        "bare ray tasks",
        "bare ray actors",
        "forethought ray, in memory",
        "forethought ray, sqlite store",
        "forethought local, sqlite store",
    )
    out: dict[str, list[float]] = {k: [] for k in systems}
    napper: list[Any] = []
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "runs.db"

        def once(system: str, deps: dict[int, list[int]], secs: dict[int, float]) -> float:
            plan = dag_plan(deps, secs, args.num_cpus)
            if system == "bare ray tasks":
                return asyncio.run(bare_ray(deps, secs, args.num_cpus))
            if system == "bare ray actors":
                return asyncio.run(bare_ray(deps, secs, args.num_cpus, napper))
            if system == "forethought ray, in memory":
                return asyncio.run(makespan(plan, "ray"))
            if system == "forethought ray, sqlite store":
                return asyncio.run(makespan(plan, "ray", db))
            return asyncio.run(makespan(plan, "local", db))

        def measure(rows: tuple[str, ...]) -> None:
            for seed in range(args.repeats):
                deps, secs = layered_dag(args.jitter, seed=seed)
                cp = critical_path(deps, secs)
                for system in rows:
                    out[system].append(once(system, deps, secs) / cp)

        deps, secs = layered_dag(args.jitter, seed=0)
        # Phase 1, bare Ray tasks, while no actor holds any CPU: actors hold theirs while idle,
        # and those of the later rows (up to ~1.8 of the 2 CPUs) would queue these tasks.
        for _ in range(args.warmups):  # start Ray's workers; each imports forethought once
            once("bare ray tasks", deps, secs)
        measure(systems[:1])
        # Phase 2, the rest, interleaved seed by seed. The bare-actor floor: as many warm actors
        # as a layer is wide, each holding what a step asks.
        napper.extend(_BareNapper.options(num_cpus=args.num_cpus).remote() for _ in range(8))  # type: ignore[attr-defined]
        ray.get([a.nap.remote(0) for a in napper])
        for _ in range(args.warmups):
            for system in systems[1:]:
                once(system, deps, secs)
        # forethought's actor pool starts its actors in the background (calls go as tasks
        # meanwhile): measure once they are up, as a process that has been running steps would.
        deadline = time.monotonic() + 120
        while actor_pool_stats()["starting"] and time.monotonic() < deadline:
            once("forethought ray, in memory", deps, secs)
        pool = actor_pool_stats()
        measure(systems[1:])
    ray.shutdown()
    report = json.dumps(
        {
            "ray_init_s": round(started, 2),
            "forethought_actor_pool_after_warmup": pool,
            "loadavg": os.getloadavg(),
            "jitter": args.jitter,
            "num_cpus_per_step": args.num_cpus,
            "makespan_over_critical_path": {k: [round(x, 4) for x in v] for k, v in out.items()},
            "median": {k: round(statistics.median(v), 4) for k, v in out.items()},
        },
        indent=2,
    )
    if args.out is None:
        print(report)
    else:
        args.out.write_text(report + "\n")


if __name__ == "__main__":
    main()
