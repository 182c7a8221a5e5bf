"""What one large ``forethought exec`` holds in memory at its landmarks, by source line.

Runs ``exec PLAN --tools tools.py --json --yes-all`` of ``run.py``'s fan-out/fan-in plan (async
no-ops) in this interpreter under ``tracemalloc`` and prints, at each landmark, the live traced
memory (MB, and KB a step) and the source lines that allocated most of it: the plan file loaded
and validated, the execution's start (the ``Agent.run`` preamble done), the run's end before its
summary is built, the summary built. ``--diff`` prints what each landmark added to the one
before instead. The landmarks are found by wrapping functions: bench code only.

tracemalloc makes the run several times slower; 20,000 steps show the per-step shares of a
100,000-step run (multiply by 5) in about a minute.

Usage (from the repository root; ``PYTHONPATH`` picks the sources)::

    PYTHONPATH=src .venv/bin/python bench/exec_scale/mem_snapshot.py --steps 20000 --top 15
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import exec_quietly, exec_workspace  # this directory's bench, not a package

SNAPSHOTS: list[tuple[str, tracemalloc.Snapshot]] = []


def snap(label: str) -> None:
    SNAPSHOTS.append((label, tracemalloc.take_snapshot()))


def _short(filename: str) -> str:
    for anchor in ("/forethought/", "/site-packages/", "/lib/python3"):
        at = filename.rfind(anchor)
        if at >= 0:
            return filename[at + 1 :]
    return filename


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20_000)
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--frames", type=int, default=1, help="traceback depth kept by tracemalloc")
    ap.add_argument("--diff", action="store_true", help="what each landmark added to the previous one")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="exec-mem-") as tmp:
        work = Path(tmp)
        plan = exec_workspace(work, args.steps)
        from forethought import agent
        from forethought.interfaces.cli.main import own_process, run
        from forethought.plan import files

        own_process()  # as the `forethought` program
        load = files.load_validated_plan

        def loaded(*a: Any, **k: Any) -> Any:
            out = load(*a, **k)
            snap("plan file loaded and validated")
            return out

        files.load_validated_plan = loaded  # type: ignore[assignment]
        execute, drive = agent.Agent._execute, agent.Agent._drive

        async def executed(self: Any, *a: Any, **k: Any) -> Any:
            snap("execution starts (preamble done)")
            out = await execute(self, *a, **k)
            snap("summary built")
            return out

        async def driven(self: Any, *a: Any, **k: Any) -> Any:
            out = await drive(self, *a, **k)
            snap("run ends, before its summary")
            return out

        agent.Agent._execute = executed  # type: ignore[method-assign]
        agent.Agent._drive = driven  # type: ignore[method-assign]
        tracemalloc.start(args.frames)
        code = exec_quietly(run, plan, work)
        tracemalloc.stop()
    print(f"exec of {args.steps:,} steps under tracemalloc (exit {code})")
    previous: tracemalloc.Snapshot | None = None
    for label, snapshot in SNAPSHOTS:
        snapshot = snapshot.filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
        total = sum(s.size for s in snapshot.statistics("filename"))
        print(f"\n== {label}: {total / 2**20:.1f} MB live, {total / args.steps / 1024:.2f} KB a step")
        if args.diff and previous is not None:
            stats: list[Any] = snapshot.compare_to(previous, "lineno")
            rows = [(s.size_diff, s.count_diff, s.traceback[0]) for s in stats[: args.top]]
        else:
            rows = [(s.size, s.count, s.traceback[0]) for s in snapshot.statistics("lineno")[: args.top]]
        for size, count, frame in rows:
            where = f"{_short(frame.filename)}:{frame.lineno}"
            print(f"  {size / 2**20:8.2f} MB {count:9,d} blocks  {size / args.steps:7.0f} B/step  {where}")
        previous = snapshot


if __name__ == "__main__":
    main()
