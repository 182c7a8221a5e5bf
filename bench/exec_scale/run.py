"""`forethought exec` end to end: sync tools, root-step skew, and 10k/100k-step plans.

Every figure comes from a fresh `python -m forethought exec --json --yes-all` child process with
its own run database (the default SQLite store, as a user gets it), the median of ``--repeats``
children. The child's CPU seconds and peak RSS come from ``os.wait4`` (its ``rusage``).

Rows (``main()`` returns them as dicts, for a combined report):

- ``sync fan-out`` / ``async fan-out``: a 6,001-step fan-out/fan-in (one root, 5,999 middle
  steps, one sink) of no-op ``def`` / ``async def`` tools; µs/step is the run's makespan (first
  step start to last step end, from the summary) divided by the steps.
- ``root skew``: 8 root steps and a sink; the tools module holds a CPU-bound sync tool (20 ms of
  Python) and an async one. The skew is the latest root start minus the earliest, in ms.
  ``all sync``: the 8 roots call the sync tool; ``mixed``: they alternate.
- ``--max-concurrency 6001`` rows: the same fan-outs with every step allowed to run at once. With
  the default (8) each step's ``step_started`` must be on disk before its tool is called, so at
  most 8 steps share an fsync (~4 ms here): ~500 µs/step is the floor of the default rows on
  this disk, whatever the CPU cost. These rows show the per-step cost without that floor.
- ``first run: late imports / regex compiles``: modules imported and regular expressions
  compiled after the first step of a fresh process started (sync and async tools, a
  reference); both should be 0: nothing is loaded on the run's critical path.
- ``exec 10k`` / ``exec 100k``: a fan-out/fan-in of async no-op tools; wall time of the whole
  command (start-up, loading, validation, the run, the JSON summary), CPU seconds, peak RSS.

Children run from bytecode caches, as an installed program does: the sources given by ``--src``
are byte-compiled once first (``compile_sources``; ``PYTHONDONTWRITEBYTECODE`` is dropped from
the children's environment, which had made each child compile forethought again, +0.11 CPU s).

Usage: python bench/exec_scale/run.py [--repeats 3] [--src PATH] [--skip-100k] [--only LABEL-PART ...]
(``--src`` runs another checkout's ``src``, e.g. ``/work/main/src`` for a before/after.)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

TOOLS = """
import asyncio
import time

from forethought import tool


@tool
def noop(x: int = 0) -> int:
    "Returns x (a plain def: runs on a worker thread)."
    return x


@tool
async def anoop(x: int = 0) -> int:
    "Returns x."
    return x


@tool
def busy(ms: int = 0) -> int:
    "Spins in Python for ms milliseconds (holds the GIL)."
    end = time.perf_counter() + ms / 1000
    while time.perf_counter() < end:
        pass
    return ms


@tool
async def nap(ms: int = 0) -> int:
    "Sleeps ms milliseconds."
    await asyncio.sleep(ms / 1000)
    return ms
"""

# The lazy-work probe: the first step notes the modules loaded and starts noting regular
# expressions compiled from then on (a spy on `re`'s compile cache: bench code, never the
# library's); the last step reports what the run imported or compiled after its first step.
LAZY_TOOLS = """
import re
import sys

from forethought import tool

_SEEN = {}
_COMPILED = []
_real_compile = re._compile


def _spy(pattern, flags):
    if "modules" in _SEEN and (type(pattern), pattern, flags) not in re._cache:
        _COMPILED.append(str(pattern))
    return _real_compile(pattern, flags)


re._compile = _spy


@tool
async def first(x: int = 0) -> int:
    "Notes what is loaded when the run's first step starts."
    _SEEN["modules"] = set(sys.modules)
    return x


@tool
def middle(x: int = 0) -> str:
    "A sync step whose output holds a reference-like text."
    return "a ${b}"


@tool
async def last(x: int = 0) -> dict:
    "What was imported or compiled after the first step started."
    return {"modules": sorted(set(sys.modules) - _SEEN["modules"]), "regexes": _COMPILED}
"""

LAZY_PLAN = {
    "goal": "lazy work during a first run",
    "steps": [
        {"id": "a", "tool": "first"},
        {"id": "b", "tool": "middle", "args": {"x": "${a}"}},
        {"id": "c", "tool": "middle", "args": {"x": 1}, "depends_on": ["a"]},
        {"id": "d", "tool": "middle", "args": {"x": 2}, "depends_on": ["b"]},
        {"id": "z", "tool": "last", "depends_on": ["c", "d"]},
    ],
}

REPO = Path(__file__).resolve().parents[2]


def exec_workspace(work: Path, steps: int) -> Path:
    """``work`` made ready for one in-process ``exec`` of a ``steps``-step fan plan of no-op
    async tools: the tools module, the plan file (returned), and this process's run database
    and plan memory inside ``work`` (``phases.py``, ``rss_timeline.py``)."""
    (work / "tools.py").write_text(TOOLS)
    plan = work / "plan.json"
    plan.write_text(json.dumps(fan_plan(steps - 2, "anoop")))
    os.environ["FORETHOUGHT_DB"] = str(work / "runs.sqlite")
    os.environ["FORETHOUGHT_MEMORY"] = str(work / "memory.sqlite")
    return plan


def exec_quietly(run: Callable[[list[str]], int], plan: Path, work: Path) -> int:
    """``forethought exec PLAN --tools tools.py --json --yes-all`` in this process through the
    CLI's ``run``, its output thrown away; the exit code."""
    argv = ["exec", str(plan), "--tools", str(work / "tools.py"), "--json", "--yes-all"]
    with contextlib.ExitStack() as quiet:
        sink = quiet.enter_context(open(os.devnull, "w"))
        quiet.enter_context(contextlib.redirect_stdout(sink))
        quiet.enter_context(contextlib.redirect_stderr(sink))
        return run(argv)


def fan_plan(n_middle: int, tool: str) -> dict[str, Any]:
    steps: list[dict[str, Any]] = [{"id": "root", "tool": tool, "args": {"x": 0}}]
    steps += [
        {"id": f"m{i}", "tool": tool, "args": {"x": 1}, "depends_on": ["root"]} for i in range(n_middle)
    ]
    steps.append(
        {"id": "sink", "tool": tool, "args": {"x": 2}, "depends_on": [f"m{i}" for i in range(n_middle)]}
    )
    return {"goal": f"fan-out/fan-in of {n_middle + 2} steps", "steps": steps}


def roots_plan(tools: list[str]) -> dict[str, Any]:
    steps: list[dict[str, Any]] = [
        {"id": f"r{i}", "tool": tools[i % len(tools)], "args": {"ms": 20}} for i in range(8)
    ]
    steps.append({"id": "sink", "tool": "nap", "args": {"ms": 1}, "depends_on": [f"r{i}" for i in range(8)]})
    return {"goal": "eight roots", "steps": steps}


def run_exec(
    work: Path, plan: Path, src: Path, extra: Sequence[str] = (), tools: str = "tools.py"
) -> dict[str, Any]:
    """One `forethought exec` child: its summary, wall time, CPU seconds and peak RSS."""
    db = work / f"runs-{time.monotonic_ns()}.sqlite"
    env = {
        **child_environ(),
        "PYTHONPATH": str(src),
        "FORETHOUGHT_DB": str(db),
        "FORETHOUGHT_MEMORY": str(work / "memory.sqlite"),
    }
    argv = [sys.executable, "-m", "forethought", "exec", str(plan), "--tools", str(work / tools)]
    out = work / "out.json"
    with out.open("w") as stdout:
        started = time.perf_counter()
        proc = subprocess.Popen(
            [*argv, "--json", "--yes-all", *extra],
            env=env,
            stdout=stdout,
            stderr=subprocess.DEVNULL,
            cwd=work,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    for leftover in work.glob(db.name + "*"):
        leftover.unlink()
    summary = json.loads(out.read_text())
    if summary.get("status") != "succeeded":
        raise RuntimeError(f"{plan.name}: run {summary.get('status')}: {summary.get('reason')}")
    return {
        "summary": summary,
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_rss_mb": usage.ru_maxrss / 1024,
    }


def child_environ() -> dict[str, str]:
    """This process's environment for a child, but with bytecode caches allowed.

    An installed program runs from its ``__pycache__`` (pip compiles at install time). With
    ``PYTHONDONTWRITEBYTECODE`` set (some shells and sandboxes set it), every child compiled all
    of forethought's sources again: 0.11 CPU s of each ``exec`` measured here, none of which a
    user pays (``compile_sources`` fills the caches once before the first child)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def compile_sources(src: Path, work: Path) -> None:
    """Byte-compile ``src`` and the tools modules in ``work`` once, as an install does."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(src), str(work)],
        env=child_environ(),
        check=True,
        stdout=subprocess.DEVNULL,
    )


def median_of(repeats: int, once: Callable[[], dict[str, float]]) -> dict[str, float]:
    samples = [once() for _ in range(repeats)]
    return {key: statistics.median(s[key] for s in samples) for key in samples[0]}


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--src", type=Path, default=REPO / "src", help="the forethought sources to run")
    ap.add_argument("--skip-100k", action="store_true")
    ap.add_argument("--only", action="append", default=[], help="run only rows whose label contains this")
    args = ap.parse_args(argv)

    def wanted(label: str) -> bool:
        return not args.only or any(part in label for part in args.only)

    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="exec-scale-") as tmp:
        work = Path(tmp)
        (work / "tools.py").write_text(TOOLS)
        (work / "lazy_tools.py").write_text(LAZY_TOOLS)
        compile_sources(args.src, work)

        def plan_file(name: str, data: dict[str, Any]) -> Path:
            path = work / f"{name}.json"
            path.write_text(json.dumps(data))
            return path

        fans = [
            ("sync fan-out, 6,001 steps", "noop", ()),
            ("async fan-out, 6,001 steps", "anoop", ()),
            # Every step may run at once: one group commit (fsync) covers many steps' starts.
            ("sync fan-out, 6,001 steps, --max-concurrency 6001", "noop", ("--max-concurrency", "6001")),
            ("async fan-out, 6,001 steps, --max-concurrency 6001", "anoop", ("--max-concurrency", "6001")),
        ]
        for label, tool, extra in fans:
            if not wanted(label):
                continue
            path = plan_file(tool, fan_plan(5999, tool))

            def fan(path: Path = path, extra: Sequence[str] = extra) -> dict[str, float]:
                r = run_exec(work, path, args.src, extra)
                n = len(r["summary"]["steps"])
                return {
                    "us_per_step": r["summary"]["makespan_s"] / n * 1e6,
                    "wall_s": r["wall_s"],
                    "cpu_s": r["cpu_s"],
                    "peak_rss_mb": r["peak_rss_mb"],
                }

            rows.append({"row": label, **median_of(args.repeats, fan)})

        for label, tools in (("root skew, all sync", ["busy"]), ("root skew, mixed", ["nap", "busy"])):
            if not wanted(label):
                continue
            path = plan_file(label.replace(" ", "_").replace(",", ""), roots_plan(tools))

            def skew(path: Path = path) -> dict[str, float]:
                r = run_exec(work, path, args.src)
                starts = [s["started_at"] for sid, s in r["summary"]["steps"].items() if sid != "sink"]
                return {
                    "skew_ms": (max(starts) - min(starts)) * 1e3,
                    "wall_s": r["wall_s"],
                    "cpu_s": r["cpu_s"],
                }

            rows.append({"row": label, **median_of(args.repeats, skew)})

        if wanted("first run: late imports"):
            path = plan_file("lazy", LAZY_PLAN)

            def lazy(path: Path = path) -> dict[str, float]:
                r = run_exec(work, path, args.src, (), "lazy_tools.py")
                found = r["summary"]["steps"]["z"]["output"]
                if found["modules"] or found["regexes"]:
                    print(f"imported or compiled during the run: {found}", file=sys.stderr)
                return {
                    "late_imports": float(len(found["modules"])),
                    "late_regexes": float(len(found["regexes"])),
                }

            rows.append({"row": "first run: late imports / regex compiles", **median_of(args.repeats, lazy)})

        sizes = [10_000] if args.skip_100k else [10_000, 100_000]
        for n in sizes:
            if not wanted(f"exec {n:,} steps"):
                continue
            path = plan_file(f"fan{n}", fan_plan(n - 2, "anoop"))

            def whole(path: Path = path) -> dict[str, float]:
                r = run_exec(work, path, args.src)
                return {"wall_s": r["wall_s"], "cpu_s": r["cpu_s"], "peak_rss_mb": r["peak_rss_mb"]}

            rows.append({"row": f"exec {n:,} steps", **median_of(args.repeats, whole)})
    return rows


def _table(rows: list[dict[str, Any]]) -> str:
    cols = ["us_per_step", "skew_ms", "wall_s", "cpu_s", "peak_rss_mb", "late_imports", "late_regexes"]
    lines = ["| row | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for r in rows:
        cells = [f"{r[c]:.3g}" if isinstance(r.get(c), float) else "" for c in cols]
        lines.append(f"| {r['row']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(f"load average at start: {loadavg()}; {os.cpu_count()} CPUs; Python {sys.version.split()[0]}")
    result = main()
    print(_table(result))
    print(f"load average at end: {loadavg()}")
