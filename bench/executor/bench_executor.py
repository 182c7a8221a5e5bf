"""Executor benchmarks: scheduling overhead, makespan vs critical path, peak memory.

Peers (LangGraph, LLMCompiler's task-fetching unit) are optional and never package dependencies:
install LangGraph in a separate venv (see REPORT.md) and pass ``--llmcompiler DIR`` pointing at a
directory holding LLMCompiler's ``task_fetching_unit.py`` (obtained outside this repository).

    python bench/executor/bench_executor.py [--n 10000] [--repeats 5] [--rounds 3] [--llmcompiler DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import importlib.util
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from forethought import Plan, Step, ToolContext, ToolSpec
from forethought.events.state import fold
from forethought.execution.eventloop import new_event_loop
from forethought.execution.executor import Executor
from forethought.execution.options import ExecutorOptions

Deps = dict[int, list[int]]


# ------------------------------------------------------------------------------ DAG shapes


def chain(n: int) -> Deps:
    return {i: ([i - 1] if i else []) for i in range(n)}


def fan(n: int) -> Deps:
    mid = list(range(1, n - 1))
    return {0: [], **{i: [0] for i in mid}, n - 1: mid}


def layered(n: int, width: int = 100, seed: int = 7) -> Deps:
    rng = random.Random(seed)
    deps: Deps = {}
    prev: list[int] = []
    i = 0
    while i < n:
        layer = list(range(i, min(n, i + width)))
        for j in layer:
            deps[j] = sorted(rng.sample(prev, k=min(len(prev), rng.randint(1, 3)))) if prev else []
        prev, i = layer, i + width
    return deps


SHAPES: dict[str, Callable[[int], Deps]] = {"chain": chain, "fan-out/fan-in": fan, "random layered": layered}


# ------------------------------------------------------------------------------ forethought

# Actual duration of every sleep, by step index, for every implementation alike: the critical
# path over these is what the DAG could not beat on this machine (its timers are late, and
# late by different amounts), so makespan / that path isolates what the scheduler adds.
ACTUAL: dict[int, float] = {}


async def step_sleep(i: int, seconds: float) -> None:
    t0 = time.perf_counter()
    await asyncio.sleep(seconds)
    ACTUAL[i] = time.perf_counter() - t0


class NoopTool:
    spec = ToolSpec(name="noop")

    async def invoke(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        return 1


class SleepTool:
    spec = ToolSpec(name="sleep")

    async def invoke(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        await step_sleep(int(ctx.step_id[1:]), args["s"])
        return 1


def make_plan(deps: Deps, tool: str = "noop", secs: dict[int, float] | None = None) -> Plan:
    steps = []
    for i, ds in deps.items():
        # every dependency is expressed as a reference, so resolution runs for every edge
        args: dict[str, Any] = {f"in{k}": f"${{s{d}}}" for k, d in enumerate(ds)}
        if secs is not None:
            args["s"] = secs[i]
        steps.append(Step(id=f"s{i}", tool=tool, args=args))
    return Plan(goal="bench", steps=steps)


def prepare(plan: Plan) -> Plan:
    """What happens to a plan before any run (validation, review, approval) and is cached on it.

    The plan hash (approval is bound to it) and the dependency maps are computed once per plan
    object — the counterpart of LangGraph's ``compile()``, which is also outside its timing.
    ``--cold`` rows measure a fresh plan object with all of it inside the timing.
    """
    for s in plan.steps:
        s.all_dependencies()
    plan.plan_hash()
    plan.dependents_map()
    return plan


async def run_forethought(plan: Plan, tools: dict[str, Any], keep_log: bool = True) -> tuple[float, Executor]:
    ex = Executor(plan, tools, ExecutorOptions(keep_log=keep_log))
    count = 0

    async def consume() -> None:  # a live subscriber: events are on and consumed
        nonlocal count
        async for _ in ex.events():
            count += 1

    consumer = asyncio.create_task(consume())
    t0 = time.perf_counter()
    await ex.run()
    elapsed = time.perf_counter() - t0
    await consumer
    assert ex.state.status == "succeeded" and (count == len(ex.log) or not keep_log)
    return elapsed, ex


# ------------------------------------------------------------------------------ bare asyncio


async def _bare(deps: Deps, secs: dict[int, float] | None = None) -> float:
    loop = asyncio.get_running_loop()
    futs = {i: loop.create_future() for i in deps}

    async def step(i: int) -> None:
        vals = [await futs[d] for d in deps[i]]
        if secs is not None:
            await step_sleep(i, secs[i])
        futs[i].set_result(len(vals))

    t0 = time.perf_counter()
    await asyncio.gather(*(step(i) for i in deps))
    return time.perf_counter() - t0


# ------------------------------------------------------------------------------ LLMCompiler


def load_llmcompiler(path: str | None) -> Any:
    if not path:
        return None
    sys.path.insert(0, path)
    spec = importlib.util.spec_from_file_location("tfu", f"{path}/task_fetching_unit.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["tfu"] = mod  # dataclasses look the module up while the class is created
    spec.loader.exec_module(mod)
    return mod


async def _llmcompiler(mod: Any, deps: Deps, secs: dict[int, float] | None = None) -> float:
    async def noop(*args: Any) -> Any:
        if secs is not None:
            await step_sleep(args[-2], args[-1])
        return 1

    tfu = mod.TaskFetchingUnit()
    tasks = {}
    for i, ds in deps.items():
        args = [f"${{{d}}}" for d in ds] + ([i, secs[i]] if secs is not None else [])
        tasks[i] = mod.Task(idx=i, name="noop", tool=noop, args=args, dependencies=ds)
    tfu.set_tasks(tasks)
    t0 = time.perf_counter()
    await tfu.schedule()
    return time.perf_counter() - t0


# ------------------------------------------------------------------------------ LangGraph


def merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    a.update(b)  # in place: keeps the reducer O(1) so LangGraph is not charged for copies
    return a


class State(TypedDict):
    out: Annotated[dict[str, Any], merge]


def _langgraph_graph(deps: Deps, secs: dict[int, float] | None = None) -> Any:
    from langgraph.graph import END, START, StateGraph

    g = StateGraph(State)
    dependents: dict[int, list[int]] = {i: [] for i in deps}
    for i, ds in deps.items():

        def node(state: State, i: int = i, ds: list[int] = deps[i]) -> dict[str, Any]:
            _ = [state["out"][f"s{d}"] for d in ds]  # reference resolution
            return {"out": {f"s{i}": 1}}

        async def anode(state: State, i: int = i, ds: list[int] = deps[i]) -> dict[str, Any]:
            _ = [state["out"][f"s{d}"] for d in ds]
            await step_sleep(i, secs[i])  # type: ignore[index]
            return {"out": {f"s{i}": 1}}

        g.add_node(f"s{i}", anode if secs is not None else node)
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
    return g.compile()


def langgraph_graph_or_none(deps: Deps) -> Any:
    try:
        return _langgraph_graph(deps)
    except ImportError:
        return None


def timed(fn: Callable[[], Any]) -> tuple[float, float, float]:
    """(wall, cpu, gc) seconds of ``fn()``: gc is the time spent in garbage collections.

    CPU time is robust to other processes on the machine; the garbage collector's share is
    reported because a full collection of a heap holding a 10,000-step plan takes ~80 ms, and
    whether one falls inside a run depends on the allocation history, not on the scheduler.
    """
    gc.collect()
    in_gc = [0.0, 0.0]

    def clock_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            in_gc[1] = time.perf_counter()
        else:
            in_gc[0] += time.perf_counter() - in_gc[1]

    gc.callbacks.append(clock_gc)
    try:
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    finally:
        gc.callbacks.remove(clock_gc)
    return wall, cpu, in_gc[0]


async def _langgraph_sleep(graph: Any, n: int) -> float:
    t0 = time.perf_counter()
    await graph.ainvoke({"out": {}}, {"recursion_limit": n + 10})
    return time.perf_counter() - t0


# ------------------------------------------------------------------------------ makespan


def critical_path(deps: Deps, secs: dict[int, float]) -> float:
    finish: dict[int, float] = {}
    for i in sorted(deps):
        finish[i] = max((finish[d] for d in deps[i]), default=0.0) + secs[i]
    return max(finish.values())


def sleep_dag(n: int, jitter: bool, seed: int) -> tuple[Deps, dict[int, float]]:
    rng = random.Random(seed)
    deps = layered(n, width=10, seed=seed)
    secs = {i: (rng.uniform(0.005, 0.040) if jitter else 0.02) for i in deps}
    return deps, secs


LOOPS: dict[str, Callable[[], asyncio.AbstractEventLoop]] = {
    "stock asyncio loop": asyncio.new_event_loop,
    "forethought loop, no spin": lambda: new_event_loop(spin_s=0),
    "forethought loop": new_event_loop,
}


def run_on(loop_factory: Callable[[], asyncio.AbstractEventLoop], coro: Any) -> Any:
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        return runner.run(coro)


def makespan_ratios(
    n: int, jitter: bool, llm: Any, repeats: int, loop_factory: Callable[[], asyncio.AbstractEventLoop]
) -> dict[str, tuple[float, float, float]]:
    """Per implementation, medians over seeds of (wall time / critical path of the nominal
    sleeps, wall time / critical path of the sleeps as they actually lasted, CPU seconds of the
    whole process during the run — what a spinning selector costs shows up here)."""
    out: dict[str, list[tuple[float, float, float]]] = {}

    def measure(name: str, coro: Any, deps: Deps, cp: float) -> None:
        ACTUAL.clear()
        cpu0 = time.process_time()
        result = run_on(loop_factory, coro)
        cpu = time.process_time() - cpu0
        elapsed = float(result[0] if isinstance(result, tuple) else result)
        assert len(ACTUAL) == len(deps), f"{name} ran {len(ACTUAL)} of {len(deps)} sleeps"
        out.setdefault(name, []).append((elapsed / cp, elapsed / critical_path(deps, ACTUAL), cpu))

    for r in range(repeats):
        deps, secs = sleep_dag(n, jitter, seed=r)
        cp = critical_path(deps, secs)
        plan = prepare(make_plan(deps, "sleep", secs))
        measure("forethought", run_forethought(plan, {"sleep": SleepTool()}), deps, cp)
        measure("bare asyncio", _bare(deps, secs), deps, cp)
        if llm is not None:
            measure("LLMCompiler", _llmcompiler(llm, deps, secs), deps, cp)
        with contextlib.suppress(ImportError):  # LangGraph not installed: measure the rest
            graph = _langgraph_graph(deps, secs)
            measure("LangGraph", _langgraph_sleep(graph, len(deps)), deps, cp)
    return {
        k: (
            statistics.median(a for a, _, _ in v),
            statistics.median(b for _, b, _ in v),
            statistics.median(c for _, _, c in v),
        )
        for k, v in out.items()
    }


# ------------------------------------------------------------------------------ slow sibling

# layer 1: a, b; layer 2: a_slow (400 ms, after a), b2 (10 ms, after b); layer 3: c (after b2)
SIBLING = {0: [], 1: [], 2: [0], 3: [1], 4: [3]}
SIBLING_S = {0: 0.01, 1: 0.01, 2: 0.4, 3: 0.01, 4: 0.01}


def slow_sibling_forethought() -> float:
    plan = make_plan(SIBLING, "sleep", SIBLING_S)
    _, ex = asyncio.run(run_forethought(plan, {"sleep": SleepTool()}))
    st = ex.state.steps
    return st["s4"].started_at - st["s3"].ended_at  # type: ignore[operator]


def slow_sibling_langgraph() -> float | None:
    marks: dict[str, float] = {}
    try:
        from langgraph.graph import END, START, StateGraph
    except ImportError:
        return None
    g = StateGraph(State)
    for i, ds in SIBLING.items():

        async def node(state: State, i: int = i) -> dict[str, Any]:
            marks[f"start{i}"] = time.time()
            await asyncio.sleep(SIBLING_S[i])
            marks[f"end{i}"] = time.time()
            return {"out": {f"s{i}": 1}}

        g.add_node(f"s{i}", node)
        if not ds:
            g.add_edge(START, f"s{i}")
        for d in ds:
            g.add_edge(f"s{d}", f"s{i}")
    g.add_edge("s2", END)
    g.add_edge("s4", END)
    asyncio.run(g.compile().ainvoke({"out": {}}))
    return marks["start4"] - marks["end3"]


# ------------------------------------------------------------------------------ memory


def peak_memory_child(n: int) -> None:
    deps = layered(n)
    plan = make_plan(deps)
    gc.collect()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    _, ex = asyncio.run(run_forethought(plan, {"noop": NoopTool()}))
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # What a resume pays before anything runs again: the state rebuilt from the run's events.
    folds = []
    for _ in range(3):
        t0 = time.perf_counter()
        rebuilt = fold(ex.log)
        folds.append(time.perf_counter() - t0)
    assert rebuilt.steps == ex.state.steps
    print(
        json.dumps(
            {
                "before_kib": before,
                "peak_kib": after,
                "traced_peak_kib": traced_peak / 1024,
                "events": len(ex.log),
                "fold_s": min(folds),
            }
        )
    )


def peak_memory(n: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--memory-child", str(n)], capture_output=True, text=True, check=True
    )
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return {
        "before_mib": data["before_kib"] / 1024,
        "peak_mib": data["peak_kib"] / 1024,
        "run_mib": data["traced_peak_kib"] / 1024,
        "events": data["events"],
        "fold_s": data["fold_s"],
    }


# ------------------------------------------------------------------------------ main


def overhead_child(shape: str, impl: str, n: int, repeats: int, llm_dir: str | None) -> None:
    """One implementation on one DAG shape, in a fresh interpreter; prints every sample.

    Each measurement gets its own process so that no implementation pays for another's heap
    (LangGraph's compiled 10,000-node graphs, earlier runs' garbage): garbage collection and
    cache behaviour depend on everything alive in the process.
    """
    deps = SHAPES[shape](n)
    samples: list[tuple[float, float, float]] = []
    loop_only: list[float] = []
    build: list[float] = []
    if impl.startswith("forethought"):
        keep_log = impl != "forethought keep_log=False"
        fresh = [make_plan(deps) for _ in range(repeats)] if impl.endswith("fresh plan") else []
        plan = make_plan(deps) if fresh == [] else fresh[0]
        if not fresh:
            prepare(plan)
        for _ in range(repeats):
            this = fresh.pop() if fresh else plan
            box: list[Executor] = []
            samples.append(
                timed(
                    lambda p=this, b=box: b.append(
                        asyncio.run(run_forethought(p, {"noop": NoopTool()}, keep_log=keep_log))[1]
                    )
                )
            )
            st = box[0].state.steps  # outside the timing: first start → last end
            loop_only.append(
                max(v.ended_at for v in st.values() if v.ended_at)
                - min(v.started_at for v in st.values() if v.started_at)
            )
    elif impl == "bare asyncio futures":
        samples = [timed(lambda: asyncio.run(_bare(deps))) for _ in range(repeats)]
    elif impl == "LLMCompiler":
        llm = load_llmcompiler(llm_dir)
        samples = [timed(lambda: asyncio.run(_llmcompiler(llm, deps)))]  # one run: it is slow
    elif impl == "LangGraph":
        t0 = time.perf_counter()
        graph = langgraph_graph_or_none(deps)
        build.append(time.perf_counter() - t0)  # StateGraph + compile(): its "fresh plan" cost
        if graph is None:
            print(json.dumps(None))
            return
        limit = {"recursion_limit": n + 10}
        samples = [timed(lambda: graph.invoke({"out": {}}, limit))]  # one run: it is slow
    print(
        json.dumps(
            {
                "wall": [w for w, _, _ in samples],
                "cpu": [c for _, c, _ in samples],
                "gc": [g for _, _, g in samples],
                "loop_only": loop_only,
                "build": build,
            }
        )
    )


def overhead_in_child(
    shape: str, impl: str, n: int, repeats: int, llm_dir: str | None
) -> dict[str, Any] | None:
    cmd = [
        sys.executable,
        __file__,
        "--overhead-child",
        shape,
        impl,
        "--n",
        str(n),
        "--repeats",
        str(repeats),
    ]
    if llm_dir:
        cmd += ["--llmcompiler", llm_dir]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    result: dict[str, Any] | None = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def overhead_section(args: argparse.Namespace) -> None:
    print(
        "\n(1) scheduling overhead, µs per step (no-op tools, events + references on); CPU and "
        "wall time of the whole run; each implementation in its own interpreter, the cheap ones "
        f"in {args.rounds} interleaved rounds of {args.repeats} runs (peers: one run)"
    )
    print(
        f"{'shape':<16}{'implementation':<28}{'cpu min':>9}{'wall min':>10}{'wall median':>13}"
        f"{'in gc, median':>15}{'min / bare':>12}"
    )
    cheap = ["forethought", "forethought keep_log=False", "forethought, fresh plan", "bare asyncio futures"]
    for name in SHAPES:
        runs: dict[str, dict[str, list[float]]] = {}
        for _ in range(args.rounds):  # interleaved: a slow spell of the machine hits all alike
            for impl in cheap:
                result = overhead_in_child(name, impl, args.n, args.repeats, args.llmcompiler)
                assert result is not None
                into = runs.setdefault(impl, {})
                for field, values in result.items():
                    into.setdefault(field, []).extend(values)
        for impl in ("LLMCompiler", "LangGraph"):
            if impl == "LLMCompiler" and not args.llmcompiler:
                continue
            n = args.llmcompiler_chain_n if impl == "LLMCompiler" and name == "chain" else args.n
            result = overhead_in_child(name, impl, n, 1, args.llmcompiler)
            if result is not None:  # None: LangGraph not installed
                runs[f"{impl} (n={n})" if n != args.n else impl] = {**result, "n": [n]}
        bare = min(runs["bare asyncio futures"]["wall"])
        for label, r in runs.items():
            n = int(r["n"][0]) if "n" in r else args.n
            per = 1e6 / n
            print(
                f"{name:<16}{label:<28}{min(r['cpu']) * per:>9.1f}{min(r['wall']) * per:>10.1f}"
                f"{statistics.median(r['wall']) * per:>13.1f}"
                f"{statistics.median(r['gc']) * per:>15.1f}"
                f"{min(r['wall']) / bare * args.n / n:>12.2f}",
                flush=True,
            )
        for label, r in runs.items():
            if r.get("build"):
                n = int(r["n"][0]) if "n" in r else args.n
                print(
                    f"{name:<16}{label + ', build + compile':<28}{'':>9}"
                    f"{(r['build'][0] + min(r['wall'])) * 1e6 / n:>10.1f}",
                    flush=True,
                )
        loop_only = runs["forethought"]["loop_only"]
        print(
            f"{name:<16}{'forethought, loop only':<28}{'':>9}{min(loop_only) * 1e6 / args.n:>10.1f}"
            f"{statistics.median(loop_only) * 1e6 / args.n:>13.1f}",
            flush=True,
        )


def makespan_section(args: argparse.Namespace, llm: Any) -> None:
    print(
        "\n(2) makespan / critical path (200-step layered sleep DAGs, width 10; critical path of "
        "the nominal sleeps, and of the sleeps as they actually lasted; CPU ms of the run; "
        "median of seeds)"
    )
    for loop_name, factory in LOOPS.items():
        for jitter in (False, True):
            ratios = makespan_ratios(200, jitter, llm, args.repeats, factory)
            label = "jittered 5-40 ms" if jitter else "fixed 20 ms"
            print(
                f"{loop_name}, {label} — nominal / actual sleeps, CPU: "
                + "  ".join(f"{k} {a:.4f} / {b:.4f}, {c * 1e3:.0f} ms" for k, (a, b, c) in ratios.items()),
                flush=True,
            )
    print(
        "\n(2b) slow sibling: start delay of a layer-3 step after its own dependency ended, "
        "while an unrelated layer-2 step takes 400 ms (median of repeats)"
    )
    sibling = statistics.median(slow_sibling_forethought() for _ in range(args.repeats))
    line = f"forethought {sibling * 1e3:.2f} ms"
    lg_delays = [slow_sibling_langgraph() for _ in range(args.repeats)]
    if lg_delays[0] is not None:
        line += f"  LangGraph {statistics.median(d for d in lg_delays if d is not None) * 1e3:.2f} ms"
    print(line)


def memory_section(args: argparse.Namespace) -> None:
    print(f"\n(3) peak memory of a {args.n}-step run (random layered, events kept in memory)")
    mem = peak_memory(args.n)
    print(
        f"process RSS after building the plan {mem['before_mib']:.1f} MiB, peak RSS "
        f"{mem['peak_mib']:.1f} MiB; peak Python allocations during run() "
        f"(tracemalloc) {mem['run_mib']:.1f} MiB"
    )
    print(
        f"rebuilding its RunState from its {mem['events']} events (what a resume does first): "
        f"{mem['fold_s'] * 1e3:.0f} ms"
    )


def machine_state() -> str:
    """How much the machine itself disturbs timing right now: CPU stolen by the hypervisor, and
    how late a plain 5 ms ``time.sleep`` wakes (no event loop involved)."""

    def steal_and_total() -> tuple[int, int]:
        try:
            with open("/proc/stat") as f:
                fields = [int(x) for x in f.readline().split()[1:]]
        except OSError:
            return 0, 0
        return (fields[7] if len(fields) > 7 else 0), sum(fields)

    s0, t0 = steal_and_total()
    late = []
    for _ in range(100):
        w = time.perf_counter()
        time.sleep(0.005)
        late.append(time.perf_counter() - w - 0.005)
    s1, t1 = steal_and_total()
    late.sort()
    stolen = f"{100 * (s1 - s0) / (t1 - t0):.1f}%" if t1 > t0 else "n/a"
    return (
        f"CPU stolen by the hypervisor {stolen}; 5 ms sleep wakes late by {late[50] * 1e6:.0f} µs "
        f"median, {late[90] * 1e6:.0f} µs p90"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--llmcompiler", default=None, help="dir with task_fetching_unit.py")
    ap.add_argument(
        "--llmcompiler-chain-n",
        type=int,
        default=300,
        help="LLMCompiler polls every 10 ms: a 10k chain would take ~100 s",
    )
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument(
        "--rounds", type=int, default=3, help="interleaved rounds of the cheap implementations in section (1)"
    )
    ap.add_argument("--sections", default="1,2,3", help="which sections to run, e.g. 2 or 1,3")
    ap.add_argument("--memory-child", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--overhead-child", nargs=2, metavar=("SHAPE", "IMPL"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.memory_child:
        peak_memory_child(args.memory_child)
        return
    if args.overhead_child:
        overhead_child(*args.overhead_child, args.n, args.repeats, args.llmcompiler)
        return
    llm = load_llmcompiler(args.llmcompiler)
    print(
        f"python {sys.version.split()[0]}, n={args.n}, repeats={args.repeats}, "
        f"load average at start {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
    )
    print(f"machine at start: {machine_state()}")
    sections = set(args.sections.split(","))
    if "1" in sections:
        overhead_section(args)
    if "2" in sections:
        makespan_section(args, llm)
    if "3" in sections:
        memory_section(args)
    print(f"\nmachine at end: {machine_state()}")


if __name__ == "__main__":
    main()
