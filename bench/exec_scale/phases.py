"""Where the CPU of one `forethought exec` of a large plan goes, phase by phase, in process.

Runs ``exec PLAN --tools tools.py --json --yes-all`` of the fan-out/fan-in plan of ``run.py``
(async no-ops) in this interpreter, as the ``forethought`` program does (its own process, so the
start-up heap is frozen as there), and reports the CPU seconds (``time.process_time``) of:
importing the command's modules, reading/parsing/validating the plan file, the ``Agent.run``
preamble (run, plan and validation events, review) apart from the execution itself, and the
``--json`` output; plus the cyclic collector's time (``gc.callbacks``) and peak RSS.

The phases are timed by wrapping the functions that do them: bench code only, never the library.

Usage (from the repository root; ``PYTHONPATH`` picks the sources, e.g. a ``git archive`` of
another commit)::

    .venv/bin/python bench/exec_scale/phases.py --steps 10000
    PYTHONPATH=/tmp/before/src .venv/bin/python bench/exec_scale/phases.py --steps 100000

Byte-compile the sources first (``python -m compileall -q SRC``), as ``run.py`` does for its
children: without ``__pycache__`` (and with ``PYTHONDONTWRITEBYTECODE`` set) the import row
includes compiling forethought, which an installed program never does.
"""

from __future__ import annotations

import argparse
import functools
import gc
import inspect
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import exec_quietly, exec_workspace  # this directory's bench, not a package

CPU: dict[str, float] = {}


def timed(owner: Any, name: str, label: str) -> None:
    """Replace ``owner.name`` by a wrapper adding its CPU seconds to ``CPU[label]``."""
    fn: Callable[..., Any] = getattr(owner, name)
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def awrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return await fn(*args, **kwargs)
            finally:
                CPU[label] = CPU.get(label, 0.0) + time.process_time() - start

        setattr(owner, name, awrapper)
        return

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            CPU[label] = CPU.get(label, 0.0) + time.process_time() - start

    setattr(owner, name, wrapper)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=10_000)
    args = ap.parse_args()
    collector = {"cpu": 0.0, "start": 0.0, "full": 0.0}

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collector["start"] = time.process_time()
            return
        collector["cpu"] += time.process_time() - collector["start"]
        collector["full"] += info["generation"] == 2

    with tempfile.TemporaryDirectory(prefix="exec-phases-") as tmp:
        work = Path(tmp)
        plan = exec_workspace(work, args.steps)

        started = time.process_time()
        from forethought import agent
        from forethought.interfaces.cli import _common, exec_cmd
        from forethought.interfaces.cli.main import own_process, run
        from forethought.plan import files

        imported = time.process_time() - started
        own_process()  # as the `forethought` program: its start-up heap is settled
        timed(files, "load_validated_plan", "read, parse, validate the file")
        timed(agent.Agent, "run", "Agent.run")
        timed(agent.Agent, "_execute", "execution (Agent._execute)")
        timed(_common, "print_json", "--json output")
        exec_cmd.print_json = _common.print_json  # type: ignore[attr-defined]
        gc.callbacks.append(on_gc)
        code = exec_quietly(run, plan, work)
        total = time.process_time() - started
        gc.callbacks.remove(on_gc)
    preamble = CPU.pop("Agent.run") - CPU["execution (Agent._execute)"]
    rows = {"import the command's modules": imported, **CPU, "Agent.run preamble": preamble}
    print(f"exec of {args.steps:,} steps (exit {code}); load average {os.getloadavg()[0]:.2f}")
    for label, cpu in rows.items():
        print(f"  {label:34s} {cpu:7.3f} CPU s")
    gc_line = f"{collector['cpu']:7.3f} CPU s ({collector['full']:.0f} full collections)"
    print(f"  {'cyclic GC (within the above)':34s} {gc_line}")
    print(f"  {'total in process':34s} {total:7.3f} CPU s")
    print(f"  peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
