"""Side-by-side executor benchmark: what users run, every engine in one command.

Each measurement runs in a fresh interpreter (``--child``), so the first run in a process is the
one a CLI invocation gets; a second run in the same process is measured too. Every plan, graph
and task list is built fresh for each run, inside the timing where the engine needs it
(forethought validates and prepares a plan in ``Agent.run``; LangGraph builds and compiles its
graph). Engines:

- ``bare``: bare asyncio, one task per step awaiting its dependencies' futures (the floor);
- ``llmcompiler``: LLMCompiler's ``TaskFetchingUnit`` (its scheduler only; see REPORT.md);
- ``executor``: forethought's ``Executor``, in memory, on a fresh ``Plan``;
- ``agent``: ``Agent(store=SqliteStore(...)).run(plan)``: validated, recorded with
  ``synchronous=FULL``, no tool called before its start and its dependencies' results are on disk;
- ``agent-history``: the same on a database that already holds ``--history`` earlier runs of the
  same plan (recorded untimed, by the same sources), as a user's default run database does;
- ``langgraph``: a LangGraph ``StateGraph``, in memory;
- ``langgraph-sqlite``: the same with ``AsyncSqliteSaver`` and ``durability="sync"``.

Scenarios: ``noop`` — a 6,001-step fan-out/fan-in (one root, 5,999 middle steps, one join) of
no-op async steps, µs per step and CPU seconds per run; ``sleep`` — a layered 48-step DAG
(6 layers of 8, each step after 1–3 steps of the layer before) of 20 ms sleeps with one 400 ms
straggler: makespan / critical path, and how late each step starts after its last dependency ends.

    /work/main/.venv/bin/python bench/executor/bench_executor.py \\
        --peers-python /work/venvs/peers/bin/python --llmcompiler /work/venvs/llmcompiler-src

Forethought engines run with this interpreter and ``PYTHONPATH=src``; peers with
``--peers-python`` (a venv holding langgraph, langgraph-checkpoint-sqlite, aiosqlite and numpy,
never the project's). A peer that is missing is skipped with a note. All engines run on the plain
asyncio event loop.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, TypedDict

Deps = dict[int, list[int]]
HERE = Path(__file__).resolve()
ROOT = HERE.parents[2]
ENGINES = ("bare", "llmcompiler", "executor", "agent", "agent-history", "langgraph", "langgraph-sqlite")
PEERS = {"llmcompiler", "langgraph", "langgraph-sqlite"}
TITLES = {
    "bare": "bare asyncio",
    "llmcompiler": "LLMCompiler's scheduler",
    "executor": "forethought `Executor`, in memory",
    "agent": "forethought `Agent` + SQLite store (FULL, write-ahead)",
    "agent-history": "forethought `Agent` + SQLite store holding earlier runs",
    "langgraph": "LangGraph, in memory",
    "langgraph-sqlite": 'LangGraph + AsyncSqliteSaver, durability="sync"',
}

# ------------------------------------------------------------------------------ the DAGs


def fan(n: int) -> Deps:
    mid = list(range(1, n - 1))
    return {0: [], **{i: [0] for i in mid}, n - 1: mid}


def sleep_dag(seed: int = 18) -> tuple[Deps, dict[int, float]]:
    """6 layers of 8; each step after 1–3 of the layer before; 20 ms each, one 400 ms straggler
    in the second layer (one with dependents, so it is on the critical path)."""
    rng = random.Random(seed)
    deps: Deps = {}
    prev: list[int] = []
    for layer in range(6):
        cur = list(range(layer * 8, layer * 8 + 8))
        for i in cur:
            deps[i] = sorted(rng.sample(prev, k=rng.randint(1, 3))) if prev else []
        prev = cur
    secs = {i: 0.02 for i in deps}
    straggler = next(i for i in range(8, 16) if any(i in ds for ds in deps.values()))
    secs[straggler] = 0.4
    return deps, secs


def critical_path(deps: Deps, secs: dict[int, float]) -> float:
    finish: dict[int, float] = {}
    for i in sorted(deps):
        finish[i] = max((finish[d] for d in deps[i]), default=0.0) + secs[i]
    return max(finish.values())


# Every engine's sleep step records when it started and ended, the same way.
START: dict[int, float] = {}
END: dict[int, float] = {}


async def step_sleep(i: int, seconds: float) -> None:
    START[i] = time.perf_counter()
    await asyncio.sleep(seconds)
    END[i] = time.perf_counter()


# ------------------------------------------------------------------------------ engines
#
# Each ``make_*`` returns ``prepare``: called once per run, untimed, it builds the DAG's
# description (forethought's ``Plan`` of ``Step`` objects, LangGraph's ``StateGraph`` with its
# nodes and edges, LLMCompiler's ``Task`` objects) and returns the coroutine function that is
# timed: everything the engine does once asked to run that description (validation, compiling,
# scheduling, recording, opening its database).

Run = Callable[[], Awaitable[None]]
Runner = Callable[[], Run]


def make_bare(deps: Deps, secs: dict[int, float] | None) -> Runner:
    async def run() -> None:  # nothing to describe: building the futures is its scheduling
        loop = asyncio.get_running_loop()
        futs = {i: loop.create_future() for i in deps}

        async def step(i: int) -> None:
            vals = [await futs[d] for d in deps[i]]  # reference resolution
            if secs is not None:
                await step_sleep(i, secs[i])
            futs[i].set_result(len(vals))

        await asyncio.gather(*(step(i) for i in deps))

    return lambda: run


def make_llmcompiler(deps: Deps, secs: dict[int, float] | None, path: str) -> Runner:
    sys.path.insert(0, path)
    from src.llm_compiler.task_fetching_unit import Task, TaskFetchingUnit

    async def noop(*args: Any) -> Any:
        if secs is not None:
            await step_sleep(args[0], args[1])
        return 1

    def prepare() -> Run:
        tasks = {}
        for i, ds in deps.items():
            # Its scheduler, not its argument substitution: that is quadratic in a join's width
            # (each argument is searched for every dependency), 2 ms/step on this fan-in.
            args: list[Any] = (
                [i, secs[i]] if secs is not None else ([f"${{{ds[0]}}}"] if len(ds) == 1 else [])
            )
            tasks[i] = Task(idx=i, name="noop", tool=noop, args=args, dependencies=ds)

        async def run() -> None:
            tfu = TaskFetchingUnit()
            tfu.set_tasks(tasks)
            await tfu.schedule()

        return run

    return prepare


def nap_plan(deps: Deps, secs: dict[int, float], metadata: dict[str, Any] | None = None) -> Any:
    """The sleep DAG as a plan of ``nap(i, seconds)`` steps with explicit dependencies (for the
    benches whose tools run elsewhere: on Ray, or on the run's worker threads)."""
    from forethought import Plan, Step

    steps = tuple(
        Step(
            id=f"s{i}",
            tool="nap",
            args={"i": i, "seconds": secs[i]},
            depends_on=tuple(f"s{d}" for d in deps[i]),
        )
        for i in sorted(deps)
    )
    return Plan(goal="sleep dag", steps=steps, metadata=metadata or {})


def _forethought_plan(deps: Deps, secs: dict[int, float] | None) -> Any:
    from forethought import Plan, Step

    steps = []
    for i, ds in deps.items():
        # every dependency is an argument reference, resolved when the step starts
        args: dict[str, Any] = {f"in{k}": f"${{s{d}}}" for k, d in enumerate(ds)}
        if secs is not None:
            args["s"] = secs[i]
        steps.append(Step(id=f"s{i}", tool="sleep" if secs is not None else "noop", args=args))
    return Plan(goal="bench", steps=steps)


def _forethought_tools() -> list[Any]:
    from forethought import ToolSpec

    class NoopTool:
        spec = ToolSpec(name="noop")

        async def invoke(self, args: dict[str, Any], ctx: Any) -> Any:
            return 1

    class SleepTool:
        spec = ToolSpec(name="sleep")

        async def invoke(self, args: dict[str, Any], ctx: Any) -> Any:
            await step_sleep(int(ctx.step_id[1:]), args["s"])
            return 1

    return [NoopTool(), SleepTool()]


def make_executor(deps: Deps, secs: dict[int, float] | None) -> Runner:
    from forethought.execution.executor import Executor

    tools = {t.spec.name: t for t in _forethought_tools()}

    def prepare() -> Run:
        plan = _forethought_plan(deps, secs)

        async def run() -> None:
            state = await Executor(plan, tools).run()
            assert state.status == "succeeded", state.reason

        return run

    return prepare


def make_agent(deps: Deps, secs: dict[int, float] | None, db: Callable[[], str]) -> Runner:
    from forethought import Agent
    from forethought.runs.store.sqlite import SqliteStore

    tools = _forethought_tools()

    def prepare() -> Run:
        plan = _forethought_plan(deps, secs)
        path = db()
        SqliteStore(path).close()  # the database exists, as it does after a first run

        async def run() -> None:
            store = SqliteStore(path, synchronous="FULL")
            agent = Agent(tools, store=store, max_concurrency=None)
            result = await agent.run(plan, approve="all")
            assert result.state.status == "succeeded", result.state.reason
            store.close()

        return run

    return prepare


def with_history(
    deps: Deps, secs: dict[int, float] | None, earlier: int, tmp: str, db: Callable[[], str]
) -> Callable[[], str]:
    """``db`` whose every file is a copy of one that holds ``earlier`` runs of this plan, each
    recorded by ``make_agent`` (untimed: before the first measured run)."""
    template = os.path.join(tmp, "history.db")
    record = make_agent(deps, secs, lambda: template)

    async def one() -> None:
        await record()()

    for _ in range(earlier):
        asyncio.run(one())

    def copy() -> str:
        path = db()
        for suffix in ("", "-wal", "-shm"):  # the store closed: normally the main file only
            if os.path.exists(template + suffix):
                shutil.copyfile(template + suffix, path + suffix)
        return path

    return copy


def make_langgraph(deps: Deps, secs: dict[int, float] | None, db: Callable[[], str] | None) -> Runner:
    from langgraph.graph import END, START, StateGraph

    def build() -> Any:
        g = StateGraph(State)
        dependents: dict[int, list[int]] = {i: [] for i in deps}
        for i, ds in deps.items():

            async def node(state: State, i: int = i, ds: list[int] = ds) -> dict[str, Any]:
                _ = [state["out"][f"s{d}"] for d in ds]  # reference resolution
                if secs is not None:
                    await step_sleep(i, secs[i])
                return {"out": {f"s{i}": 1}}

            g.add_node(f"s{i}", node)
            for d in ds:
                dependents[d].append(i)
        for i, ds in deps.items():
            if not ds:
                g.add_edge(START, f"s{i}")
            elif len(ds) == 1:
                g.add_edge(f"s{ds[0]}", f"s{i}")
            else:
                g.add_edge([f"s{d}" for d in ds], f"s{i}")
            if not dependents[i]:
                g.add_edge(f"s{i}", END)
        return g

    config: dict[str, Any] = {"recursion_limit": len(deps) + 10}

    def prepare() -> Run:
        graph = build()
        path = db() if db is not None else None
        if path is not None:  # the database and its tables exist, as they do after a first run
            from langgraph.checkpoint.sqlite import SqliteSaver

            with SqliteSaver.from_conn_string(path) as saver:
                saver.setup()

        async def run() -> None:
            if path is None:
                await graph.compile().ainvoke({"out": {}}, config)
                return
            from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

            async with AsyncSqliteSaver.from_conn_string(path) as saver:
                await saver.conn.execute("PRAGMA synchronous=FULL")
                compiled = graph.compile(checkpointer=saver)
                thread = {**config, "configurable": {"thread_id": "t"}}
                await compiled.ainvoke({"out": {}}, thread, durability="sync")

        return run

    return prepare


def merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    a.update(b)  # in place: LangGraph is not charged for copying a growing dict
    return a


class State(TypedDict):
    out: Annotated[dict[str, Any], merge]


def make_runner(
    engine: str, deps: Deps, secs: dict[int, float] | None, args: argparse.Namespace, tmp: str
) -> Runner:
    count = [0]

    def db() -> str:  # a database file per run: no run reads another's
        count[0] += 1
        return os.path.join(tmp, f"run{count[0]}.db")

    if engine == "bare":
        return make_bare(deps, secs)
    if engine == "llmcompiler":
        return make_llmcompiler(deps, secs, args.llmcompiler)
    if engine == "executor":
        return make_executor(deps, secs)
    if engine == "agent":
        return make_agent(deps, secs, db)
    if engine == "agent-history":
        return make_agent(deps, secs, with_history(deps, secs, args.history, tmp, db))
    if engine == "langgraph":
        return make_langgraph(deps, secs, None)
    if engine == "langgraph-sqlite":
        return make_langgraph(deps, secs, db)
    raise SystemExit(f"unknown engine {engine!r}")


# ------------------------------------------------------------------------------ one process


async def measure(prepare: Runner, deps: Deps, secs: dict[int, float] | None) -> dict[str, float]:
    run = prepare()
    START.clear()
    END.clear()
    c0 = time.process_time()
    t0 = time.perf_counter()
    await run()
    t1 = time.perf_counter()
    out = {"wall_s": t1 - t0, "cpu_s": time.process_time() - c0}
    if secs is not None:
        assert len(END) == len(deps), f"ran {len(END)} of {len(deps)} sleeps"
        late = [START[i] - max(END[d] for d in ds) for i, ds in deps.items() if ds]
        out["ratio"] = (t1 - t0) / critical_path(deps, secs)
        out["ratio_actual"] = (t1 - t0) / critical_path(deps, {i: END[i] - START[i] for i in deps})
        out["max_late_ms"] = max(late) * 1e3
        out["first_start_ms"] = (min(START.values()) - t0) * 1e3
    else:
        out["us_per_step"] = (t1 - t0) / len(deps) * 1e6
    return out


def child(args: argparse.Namespace) -> None:
    if args.scenario == "noop":
        deps, secs = fan(args.n), None
    else:
        deps, secs = sleep_dag()
    with tempfile.TemporaryDirectory(prefix="bench-exec-") as tmp:
        run = make_runner(args.child, deps, secs, args, tmp)  # imports happen here, untimed
        results = [asyncio.run(measure(run, deps, secs)) for _ in range(args.runs_per_process)]
    print(json.dumps(results))


# ------------------------------------------------------------------------------ the driver


def spawn(engine: str, scenario: str, args: argparse.Namespace, src: str) -> list[dict[str, float]] | str:
    python = args.peers_python if engine in PEERS else sys.executable
    if engine in PEERS and not (python and Path(python).exists()):
        return "skipped: no --peers-python"
    if engine == "llmcompiler" and not (
        args.llmcompiler and (Path(args.llmcompiler) / "src/llm_compiler/task_fetching_unit.py").exists()
    ):
        return "skipped: no LLMCompiler checkout (--llmcompiler or $LLMCOMPILER_SRC)"
    env = dict(os.environ)
    if engine not in PEERS:
        env["PYTHONPATH"] = src
    cmd = [python, str(HERE), "--child", engine, "--scenario", scenario, "--n", str(args.n)]
    cmd += ["--history", str(args.history)]
    cmd += ["--runs-per-process", str(args.runs_per_process)]
    if args.llmcompiler:
        cmd += ["--llmcompiler", args.llmcompiler]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900, check=False)
    if proc.returncode != 0:
        return "failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1]
    result: list[dict[str, float]] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def loadavg() -> str:
    try:
        return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__str__()
    except OSError:
        return "?"


def python_reference() -> float:
    """Seconds this interpreter takes for ``for i in range(10_000_000): x += i`` (min of 3):
    relates one day's figures to another's on a shared machine."""
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        x = 0
        for i in range(10_000_000):
            x += i
        best = min(best, time.process_time() - t0)
    return best


def median_of(results: list[list[dict[str, float]]], run: int, key: str) -> float:
    return statistics.median(r[run][key] for r in results)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=6001, help="steps of the no-op fan-out/fan-in")
    p.add_argument("--processes", type=int, default=3, help="fresh processes per engine and scenario")
    p.add_argument("--runs-per-process", type=int, default=2, help="1st = first run in process")
    p.add_argument("--engines", default=",".join(ENGINES))
    p.add_argument("--peers-python", default=os.environ.get("PEERS_PYTHON", "/work/venvs/peers/bin/python"))
    p.add_argument("--llmcompiler", default=os.environ.get("LLMCOMPILER_SRC", "/work/venvs/llmcompiler-src"))
    p.add_argument("--history", type=int, default=4, help="earlier runs in agent-history's database")
    p.add_argument(
        "--src",
        action="append",
        default=[],
        help="forethought sources the forethought engines import (default: this checkout's); "
        "given twice, e.g. main's and a branch's, both run interleaved, in one table",
    )
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--scenario", default="noop", help=argparse.SUPPRESS)
    p.add_argument("--json", action="store_true", help="also print all measurements as JSON")
    args = p.parse_args()
    if args.child:
        child(args)
        return
    print(
        f"# {time.strftime('%Y-%m-%d %H:%M:%S %Z')}, {os.cpu_count()} cores, Python {sys.version.split()[0]}"
    )
    srcs = args.src or [str(ROOT / "src")]
    print(f"# load average at start: {loadavg()}")
    for i, src in enumerate(srcs):
        print(f"# sources [{i}]: {src}")
    print(f"# pure-Python reference: {python_reference():.3f} s for a 10M-iteration loop (min of 3)")
    engines = [e for e in args.engines.split(",") if e]
    rows: list[tuple[str, str, str]] = []  # (row key, engine, sources)
    for engine in engines:
        if engine in PEERS or engine == "bare" or len(srcs) == 1:
            rows.append((engine, engine, srcs[0]))
        else:
            rows += [(f"{engine}@{i}", engine, src) for i, src in enumerate(srcs)]
    raw: dict[str, dict[str, Any]] = {}
    # Interleaved: process k of every engine (and sources) runs before process k+1 of any, so
    # a change in the machine's load spreads over all rows instead of falling on one.
    for _ in range(args.processes):
        for scenario in ("noop", "sleep"):
            for key, engine, src in rows:
                got = spawn(engine, scenario, args, src)
                slot = raw.setdefault(key, {}).setdefault(scenario, [])
                if isinstance(got, str):
                    raw[key][scenario] = got
                elif isinstance(slot, list):
                    slot.append(got)
    print(f"# load average at end: {loadavg()}")
    print(f"# pure-Python reference: {python_reference():.3f} s for a 10M-iteration loop (min of 3)")
    print()
    print(
        "| engine | µs/step, no-op DAG, 1st run | 2nd run | CPU s/run (1st) | CPU µs/step (1st) "
        "| makespan / critical path, 1st run | 2nd run | latest start after deps, ms (1st) "
        "| first step starts, ms (1st) | CPU s/run, sleep DAG (1st) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for key, engine, _ in rows:
        cells = [TITLES[engine] + (f" [{key.rpartition('@')[2]}]" if "@" in key else "")]
        noop, sleep = raw[key]["noop"], raw[key]["sleep"]
        if isinstance(noop, str):
            cells += [noop, "", "", ""]
        else:
            last = args.runs_per_process - 1
            cells += [
                f"{median_of(noop, 0, 'us_per_step'):.1f}",
                f"{median_of(noop, last, 'us_per_step'):.1f}",
                f"{median_of(noop, 0, 'cpu_s'):.3f}",
                f"{median_of(noop, 0, 'cpu_s') / args.n * 1e6:.1f}",
            ]
        if isinstance(sleep, str):
            cells += [sleep, "", "", "", ""]
        else:
            last = args.runs_per_process - 1
            cells += [
                f"{median_of(sleep, 0, 'ratio'):.3f}",
                f"{median_of(sleep, last, 'ratio'):.3f}",
                f"{median_of(sleep, 0, 'max_late_ms'):.2f}",
                f"{median_of(sleep, 0, 'first_start_ms'):.2f}",
                f"{median_of(sleep, 0, 'cpu_s'):.3f}",
            ]
        print("| " + " | ".join(cells) + " |")
    print()
    print(f"Medians of {args.processes} fresh processes per cell; n = {args.n} for the no-op DAG.")
    if args.json:
        print(json.dumps(raw))


if __name__ == "__main__":
    main()
