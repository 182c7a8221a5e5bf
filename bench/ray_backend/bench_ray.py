"""Makespan / critical path of bench/executor's layered sleep DAG with every step a Ray task.

The DAG is bench/executor's ``sleep_dag``: 6 layers of 8, each step after 1-3 steps of the layer
before, every step sleeping 20 ms but one 400 ms straggler on the critical path (``--jitter``: the
20 ms steps sleep 5-40 ms instead, seeded). Ray runs locally with 2 CPUs on loopback; every step
asks for ``--num-cpus`` (default 0.1, so a whole layer fits at once). One warm-up run starts
Ray's worker processes first. The same DAG on the local backend is measured in the same run.

    python bench/ray_backend/bench_ray.py [--repeats 3] [--jitter] [--num-cpus 0.1]
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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "executor"))

import ray  # noqa: E402
from bench_executor import critical_path, sleep_dag  # type: ignore[import-not-found]  # noqa: E402

from forethought import Agent, Plan, Step  # noqa: E402
from forethought.runs.store.sqlite import SqliteStore  # noqa: E402
from forethought.tools.loader import open_tools  # noqa: E402


def layered_dag(jitter: bool, seed: int) -> tuple[dict[int, list[int]], dict[int, float]]:
    deps, secs = sleep_dag(seed=18 + seed)
    if jitter:
        rng = random.Random(seed)
        secs = {i: s if s > 0.1 else rng.uniform(0.005, 0.04) for i, s in secs.items()}
    return deps, secs


def dag_plan(deps: dict[int, list[int]], secs: dict[int, float], num_cpus: float) -> Plan:
    steps = tuple(
        Step(
            id=f"s{i}",
            tool="nap",
            args={"i": i, "seconds": secs[i]},
            depends_on=tuple(f"s{d}" for d in deps[i]),
        )
        for i in sorted(deps)
    )
    return Plan(goal="sleep dag", steps=steps, metadata={"ray": {"default": {"num_cpus": num_cpus}}})


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


async def bare_ray(deps: dict[int, list[int]], secs: dict[int, float], num_cpus: float) -> float:
    """The floor: the same DAG as plain Ray tasks awaited from asyncio, no forethought."""
    futs: dict[int, asyncio.Future[None]] = {}

    async def step(i: int) -> None:
        for d in deps[i]:
            await futs[d]
        await _bare_nap.options(num_cpus=num_cpus).remote(secs[i])

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
        "bare ray",
        "forethought ray, in memory",
        "forethought ray, sqlite store",
        "forethought local, sqlite store",
    )
    out: dict[str, list[float]] = {k: [] for k in systems}
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "runs.db"

        def once(system: str, deps: dict[int, list[int]], secs: dict[int, float]) -> float:
            plan = dag_plan(deps, secs, args.num_cpus)
            if system == "bare ray":
                return asyncio.run(bare_ray(deps, secs, args.num_cpus))
            if system == "forethought ray, in memory":
                return asyncio.run(makespan(plan, "ray"))
            if system == "forethought ray, sqlite store":
                return asyncio.run(makespan(plan, "ray", db))
            return asyncio.run(makespan(plan, "local", db))

        deps, secs = layered_dag(args.jitter, seed=0)
        for _ in range(args.warmups):  # start Ray's workers; each imports forethought once
            for system in systems:
                once(system, deps, secs)
        for seed in range(args.repeats):
            deps, secs = layered_dag(args.jitter, seed=seed)
            cp = critical_path(deps, secs)
            for system in systems:
                out[system].append(once(system, deps, secs) / cp)
    ray.shutdown()
    print(
        json.dumps(
            {
                "ray_init_s": round(started, 2),
                "loadavg": os.getloadavg(),
                "jitter": args.jitter,
                "num_cpus_per_step": args.num_cpus,
                "makespan_over_critical_path": {k: [round(x, 4) for x in v] for k, v in out.items()},
                "median": {k: round(statistics.median(v), 4) for k, v in out.items()},
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
