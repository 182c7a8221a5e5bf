"""Where the memory of one large ``forethought exec`` peaks: RSS at the run's landmarks.

Runs ``exec PLAN --tools tools.py --json --yes-all`` of ``run.py``'s fan-out/fan-in plan (async
no-ops) in this interpreter, as the ``forethought`` program does, and prints the resident set
size (current and peak, MB) with the CPU seconds so far at: the plan file loaded and validated,
the execution's start, the recorder's largest queue (the fan-out's ``step_ready`` burst), every
commit of more than 1,000 events, the execution's end and the command's end; and the peak a
sampler thread saw. The landmarks are found by wrapping functions: bench code only.

Usage (from the repository root; ``PYTHONPATH`` picks the sources)::

    .venv/bin/python bench/exec_scale/rss_timeline.py --steps 100000
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import exec_quietly, exec_workspace  # this directory's bench, not a package

MARKS: list[tuple[str, float, int, int]] = []


def rss_mb() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 2**20


def mark(label: str) -> None:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    MARKS.append((label, time.process_time(), rss_mb(), peak))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=100_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="exec-rss-") as tmp:
        work = Path(tmp)
        plan = exec_workspace(work, args.steps)
        from forethought import agent
        from forethought.interfaces.cli.main import own_process, run
        from forethought.plan import files
        from forethought.runs.store import recorder

        own_process()  # as the `forethought` program
        mark("start")
        load = files.load_validated_plan

        def loaded(*a: Any, **k: Any) -> Any:
            out = load(*a, **k)
            mark("plan file loaded and validated")
            return out

        files.load_validated_plan = loaded  # type: ignore[assignment]
        commit_next, committed = recorder.Recorder._commit_next, recorder.Recorder._committed
        most = [0]

        def next_commit(self: Any) -> None:
            if len(self._events) > max(most[0], 1000):
                most[0] = len(self._events)
                mark(f"commit starts, {len(self._events):,} events queued")
            commit_next(self)

        def done(self: Any, future: Any, batch: Any) -> None:
            committed(self, future, batch)
            if len(batch) > 1000:
                mark(f"committed {len(batch):,}, {len(self._events):,} queued")

        recorder.Recorder._commit_next = next_commit  # type: ignore[method-assign]
        recorder.Recorder._committed = done  # type: ignore[method-assign]
        execute = agent.Agent._execute

        async def executed(self: Any, *a: Any, **k: Any) -> Any:
            mark("execution starts")
            out = await execute(self, *a, **k)
            mark("execution ends")
            return out

        agent.Agent._execute = executed  # type: ignore[method-assign]
        peak = [0, 0.0]
        stop = threading.Event()

        def sample() -> None:
            while not stop.wait(0.02):
                now = rss_mb()
                if now > peak[0]:
                    peak[0], peak[1] = now, time.process_time()

        threading.Thread(target=sample, daemon=True).start()
        code = exec_quietly(run, plan, work)
        mark("command ends")
        stop.set()
    print(f"exec of {args.steps:,} steps (exit {code}); load average {os.getloadavg()[0]:.2f}")
    print(f"  {'landmark':44s} {'CPU s':>7s} {'RSS MB':>7s} {'peak MB':>8s}")
    for label, cpu, now, top in MARKS:
        print(f"  {label:44s} {cpu:7.2f} {now:7d} {top:8d}")
    print(f"  sampled peak {peak[0]} MB at {peak[1]:.2f} CPU s")


if __name__ == "__main__":
    main()
