"""A small command's start-up, before and after: fresh processes of two source trees, interleaved.

Each case runs ``--repeats`` times per tree, alternating which tree goes first, every child with
its own run database and (unless the case keeps it) plan memory in a temporary directory, from
bytecode caches (both trees are byte-compiled first; ``PYTHONDONTWRITEBYTECODE`` is dropped from
the children's environment, as in ``run.py``). Wall time is the parent's clock around the child;
CPU seconds are the child's own (``os.wait4``). Prints the median, min and max of each.

Cases:
- ``exec 3 steps``: a 3-step plan of async and ``def`` no-op tools whose goal its plan does not
  cover by the coverage rules (so it is judged, and refused by plan memory, on every run);
- ``exec 3 steps, kept``: a plan that covers its goal, run once before the timed runs, so plan
  memory holds it already;
- ``--help``; ``run``: ``forethought run "what is 2 ** 10" --yes-all``.

Usage: python bench/exec_scale/startup.py --before OTHER/src [--after src] [--repeats 10]
       [--only CASE-PART ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOOLS = """
from forethought import tool


@tool
async def anoop(x: int = 0) -> int:
    "Returns x."
    return x


@tool
def noop(x: int = 0) -> int:
    "Returns x (a plain def)."
    return x


@tool
def sdouble(x: int = 0) -> int:
    "Returns twice x."
    return 2 * x
"""

STEPS = [
    {"id": "a", "tool": "anoop", "args": {"x": 1}},
    {"id": "b", "tool": "noop", "args": {"x": "${a}"}},
    {"id": "c", "tool": "sdouble", "args": {"x": "${b}"}},
]
UNCOVERED = {"goal": "three no-op steps", "steps": STEPS}  # "x = 1" is not the goal's
COVERED = {"goal": "anoop 1, then noop and sdouble", "steps": STEPS}

EXEC = ["-m", "forethought", "exec", "{plan}", "--tools", "tools.py", "--json", "--yes-all"]
CASES: dict[str, tuple[list[str], dict[str, object] | None, bool]] = {
    # name: (argv, plan, plan memory kept across the case's runs)
    "exec 3 steps": (EXEC, UNCOVERED, False),
    "exec 3 steps, kept": (EXEC, COVERED, True),
    "--help": (["-m", "forethought", "--help"], None, False),
    "run": (["-m", "forethought", "run", "what is 2 ** 10", "--yes-all"], None, False),
}

REPO = Path(__file__).resolve().parents[2]


def child_environ(src: Path, work: Path, memory: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    stamp = time.monotonic_ns()
    env["PYTHONPATH"] = str(src)
    env["FORETHOUGHT_DB"] = str(work / f"runs-{stamp}.sqlite")
    env["FORETHOUGHT_MEMORY"] = str(memory or work / f"memory-{stamp}.sqlite")
    return env


def once(argv: list[str], env: dict[str, str], work: Path, is_exec: bool) -> tuple[float, float]:
    """One child: (wall s, CPU s); fails unless it succeeded."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, *argv], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=work
    )
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0 or (is_exec and json.loads(out)["status"] != "succeeded"):
        raise RuntimeError(f"{argv}: {out[-300:]!r}")
    return wall, usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, required=True, help="the other tree's src")
    ap.add_argument("--after", type=Path, default=REPO / "src")
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--only", action="append", default=[], help="run only cases whose name contains this")
    args = ap.parse_args(argv)
    trees = {"before": args.before, "after": args.after}
    print(f"load average at start: {loadavg()}; {os.cpu_count()} CPUs; Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory(prefix="startup-") as tmp:
        work = Path(tmp)
        (work / "tools.py").write_text(TOOLS)
        plain = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        for src in trees.values():
            subprocess.run(
                [sys.executable, "-m", "compileall", "-q", str(src), str(work)],
                env=plain,
                check=True,
                stdout=subprocess.DEVNULL,
            )
        for case, (case_argv, plan, keep) in CASES.items():
            if args.only and not any(part in case for part in args.only):
                continue
            if plan is not None:
                (work / "plan.json").write_text(json.dumps(plan))
            child_argv = [a.replace("{plan}", "plan.json") for a in case_argv]
            memories = {name: work / f"kept-{name}.sqlite" if keep else None for name in trees}
            if keep:  # one run first: plan memory then holds the plan
                for name, src in trees.items():
                    once(child_argv, child_environ(src, work, memories[name]), work, plan is not None)
            samples: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
            for i in range(args.repeats):
                order = list(trees.items())
                for name, src in order if i % 2 == 0 else order[::-1]:
                    env = child_environ(src, work, memories[name])
                    samples[name].append(once(child_argv, env, work, plan is not None))
            for name, got in samples.items():
                walls, cpus = [w * 1e3 for w, _ in got], [c * 1e3 for _, c in got]
                print(
                    f"{case:20s} {name:6s} wall median {statistics.median(walls):5.0f} ms "
                    f"(min {min(walls):.0f}, max {max(walls):.0f}), "
                    f"CPU median {statistics.median(cpus):5.0f} ms "
                    f"(min {min(cpus):.0f}, max {max(cpus):.0f})",
                    flush=True,
                )
    print(f"load average at end: {loadavg()}")


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


if __name__ == "__main__":
    main()
