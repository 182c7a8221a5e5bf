"""Makespan / critical path of bench/executor's layered sleep DAG with every step a Ray task.

The DAG: 200 steps, 20 layers of 10, each step after 1-3 steps of the layer before, every step
sleeping 20 ms (``--jitter``: 5-40 ms). Ray runs locally with 2 CPUs on loopback; every step
asks for ``--num-cpus`` (default 0.1, so a whole layer fits at once). One warm-up run starts
Ray's worker processes first. The same DAG on the local backend is measured in the same run.

    python bench/ray_backend/bench_ray.py [--repeats 3] [--jitter] [--num-cpus 0.1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "executor"))

import ray  # noqa: E402
from bench_executor import critical_path, sleep_dag  # type: ignore[import-not-found]  # noqa: E402

from forethought import Agent, Plan, Step  # noqa: E402
from forethought.tools.loader import open_tools  # noqa: E402


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


async def makespan(plan: Plan, backend: str) -> float:
    async with open_tools([HERE / "ray_tools.py"], include_entry_points=False) as registry:
        agent = Agent(registry, record=False, backend=backend, max_concurrency=64)
        t0 = time.perf_counter()
        result = await agent.run(plan, approve="all")
        dt = time.perf_counter() - t0
        assert result.state.status == "succeeded", result.state.reason
        return dt


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--jitter", action="store_true")
    ap.add_argument("--num-cpus", type=float, default=0.1)
    args = ap.parse_args()
    t0 = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1")
    started = time.perf_counter() - t0
    out: dict[str, list[float]] = {"ray": [], "local": []}
    deps, secs = sleep_dag(200, args.jitter, seed=0)
    asyncio.run(makespan(dag_plan(deps, secs, args.num_cpus), "ray"))  # warm-up: start workers
    for seed in range(args.repeats):
        deps, secs = sleep_dag(200, args.jitter, seed=seed)
        cp = critical_path(deps, secs)
        plan = dag_plan(deps, secs, args.num_cpus)
        for backend in ("ray", "local"):
            out[backend].append(asyncio.run(makespan(plan, backend)) / cp)
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
