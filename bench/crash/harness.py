"""Crash harness for issue 15 item 6: kill -9 the runner while a slow command tool is mid-effect.

Every step of a 12-step plan runs a command tool that writes ``BEGIN run step`` to ``begins.txt``,
sleeps a little, then appends ``EFFECT run step`` to ``effects.txt`` (the outside world: a charge).
The parent starts a runner (a fresh interpreter), waits until some tool has begun, waits a random
moment (before, during or after the effect), and ``kill -9``s the runner. The next runner plays
the person's review flow, as an operator would with the CLI:

1. ``resume`` the run (``forethought resume RUN``): the interrupted step comes back ``needs_review``;
2. look at the outside world: mark the step succeeded if its EFFECT line is there, retry it if not;
3. ``resume`` again with that review; repeat until the run succeeds.

Kills land in any of these phases too. When enough kills are done, a last runner per unfinished
run finishes it without interference, then the books are checked: every step of every run has
exactly one EFFECT line (``duplicated_effects`` counts extra lines, ``lost_steps`` missing ones or
runs that did not succeed).

    PYTHONPATH=src python bench/crash/harness.py --kills 100 --seed 15

prints the figures (``--json``: one JSON object on the last line) and exits 1 if any duplicate or
lost step was found.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import select
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from forethought import Plan, Step
from forethought.events.state import fold
from forethought.execution.executor import ApproveAll
from forethought.execution.options import ExecutorOptions
from forethought.runs.recording import execute_recorded
from forethought.runs.resume import resume_run
from forethought.runs.review import InterruptedStepsReview
from forethought.runs.store.sqlite import SqliteStore
from forethought.tools.command import CommandTool, CommandToolConfig

STEPS = 12
SCRIPT = (
    'echo "BEGIN $FORETHOUGHT_RUN_ID $FORETHOUGHT_STEP_ID" >> begins.txt\n'
    "sleep {{delay}}\n"
    'echo "EFFECT $FORETHOUGHT_RUN_ID $FORETHOUGHT_STEP_ID" >> effects.txt\n'
)


def tools(workdir: Path) -> dict[str, CommandTool]:
    config = CommandToolConfig(
        name="charge",
        description="append one line to effects.txt after a delay (not idempotent)",
        parameters=[{"name": "delay", "type": "string", "required": True}],  # type: ignore[list-item]
        script=SCRIPT,
        effect="mutating",
        timeout_s=60,
    )
    return {"charge": CommandTool(config, base_dir=workdir, source="bench/crash")}


# Tool delays: long enough that a killed runner's tool is often still running when the next
# runner has started and the person looks (the repro used `sleep 3`).
MIN_DELAY_S, MAX_DELAY_S = 0.5, 2.0


def plan(seed: int) -> Plan:
    """12 steps in layers of three; each depends on one or two steps of the layer before."""
    rng = random.Random(seed)
    steps = []
    for i in range(STEPS):
        layer = i // 3
        deps = sorted({f"s{(layer - 1) * 3 + rng.randrange(3)}" for _ in range(2)}) if layer else []
        delay = f"{rng.uniform(MIN_DELAY_S, MAX_DELAY_S):.2f}"
        steps.append(Step(id=f"s{i}", tool="charge", args={"delay": delay}, depends_on=tuple(deps)))
    return Plan(goal="charge twelve customers exactly once", steps=tuple(steps))


# ------------------------------------------------------------------------------ the runner


def _review(workdir: Path, run_id: str, state: Any) -> InterruptedStepsReview:
    """The person: an interrupted step took effect iff its EFFECT line is in the world."""
    effects = workdir / "effects.txt"
    text = effects.read_text() if effects.exists() else ""
    done: dict[str, Any] = {}
    retry: list[str] = []
    for sid, st in state.steps.items():
        if st.status in ("needs_review", "running", "cancelled"):
            if f"EFFECT {run_id} {sid}\n" in text:
                done[sid] = {"exit_code": 0, "stdout": "", "stderr": "", "truncated": False}
            else:
                retry.append(sid)
    return InterruptedStepsReview(succeeded=done, retry=retry)


async def _runner(db: str, workdir: Path, run_id: str, seed: int, out: int) -> None:
    store = SqliteStore(db)
    kit = tools(workdir)
    try:
        if store.get_run(run_id) is None:
            os.write(out, b"PHASE run\n")
            opts = ExecutorOptions(gate=ApproveAll(), approved_by="crash-harness")
            state = await execute_recorded(store, plan(seed), kit, opts, run_id=run_id)
        else:
            state = fold(store.events(run_id))
        for _ in range(20):
            if state.status == "succeeded":
                break
            os.write(out, b"PHASE resume\n")  # forethought resume RUN: orphans killed first
            state = await resume_run(store, run_id, kit, approve_all=True)
            if state.status == "succeeded":
                break
            review = _review(workdir, run_id, state)
            os.write(out, f"REVIEW {len(review.succeeded)} {len(list(review.retry))}\n".encode())
            state = await resume_run(store, run_id, kit, approve_all=True, review=review, reviewer="harness")
        os.write(out, f"DONE {state.status}\n".encode())
    finally:
        store.close()


def _child(db: str, workdir: str, run_id: str, seed: int, fd: int) -> None:
    os.write(fd, b"READY\n")
    code = 0
    try:
        asyncio.run(_runner(db, Path(workdir), run_id, seed, fd))
    except BaseException as exc:
        os.write(fd, f"ERROR {type(exc).__name__}: {exc}\n".encode())
        code = 1
    os._exit(code)


# ------------------------------------------------------------------------------ the parent


def _spawn(db: Path, workdir: Path, run_id: str, seed: int) -> tuple[int, int]:
    r, w = os.pipe()
    os.set_inheritable(w, True)
    argv = [sys.executable, __file__, "--child", str(db), str(workdir), run_id, str(seed), str(w)]
    pid = os.posix_spawn(sys.executable, argv, dict(os.environ))
    os.close(w)
    buf = bytearray()
    while b"READY\n" not in buf:
        chunk = os.read(r, 1)
        if not chunk:
            break
        buf.extend(chunk)
    return pid, r


def _read(fd: int, deadline: float | None, buf: bytearray) -> bool:
    """Read the runner's output until ``deadline`` (None: EOF); True once EOF was reached."""
    while True:
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return False
        chunk = os.read(fd, 65536)
        if not chunk:
            return True
        buf.extend(chunk)


def _still_running(run_id: str) -> list[int]:
    """Processes carrying the run's environment tag (self-contained: also works on old code)."""
    tag = f"FORETHOUGHT_RUN_ID={run_id}".encode()
    out = []
    for proc in Path("/proc").iterdir():
        try:
            if (
                proc.name.isdigit()
                and tag in (proc / "environ").read_bytes().split(b"\0")
                and (proc / "stat").read_text().rpartition(")")[2].split()[0] != "Z"
            ):
                out.append(int(proc.name))
        except OSError:
            continue
    return out


def _absorb(text: str, figures: Counter[str], errors: list[str]) -> None:
    for line in text.splitlines():
        parts = line.split()
        if parts[:1] == ["REVIEW"] and len(parts) == 3:
            figures["reviews"] += 1
            figures["reviewed_marked_succeeded"] += int(parts[1])
            figures["reviewed_retried"] += int(parts[2])
        elif line.startswith("ERROR"):
            errors.append(line)


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def _wait_for_begin(begins: Path, seen: int, fd: int, buf: bytearray, timeout_s: float) -> bool:
    """Until a tool has begun since ``seen`` lines (True), or the runner ended (False)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if len(_lines(begins)) > seen:
            return True
        if _read(fd, time.monotonic() + 0.01, buf):
            return False
    return False


def run(kills_wanted: int, seed: int, workdir: Path) -> dict[str, Any]:
    rng = random.Random(seed)
    db = workdir / "runs.db"
    world = workdir / "world"
    world.mkdir(parents=True, exist_ok=True)
    begins, effects = world / "begins.txt", world / "effects.txt"
    figures: Counter[str] = Counter()
    runs: dict[str, str] = {}  # run id → last status seen
    # Run ids unique to this invocation: resume reaps processes tagged with the run id, so two
    # harnesses (or databases) sharing ids on one host would kill each other's tools.
    prefix = f"crash-{os.getpid()}-{seed}-"
    current = f"{prefix}000"
    errors: list[str] = []
    started = time.monotonic()
    while figures["kills"] < kills_wanted:
        runs.setdefault(current, "running")
        pid, fd = _spawn(db, world, current, seed)
        buf = bytearray()
        began = _wait_for_begin(begins, len(_lines(begins)), fd, buf, 30.0)
        eof = False
        if began:
            eof = _read(fd, time.monotonic() + rng.uniform(0.0, MAX_DELAY_S), buf)
        else:
            eof = _read(fd, None, buf)
        if not eof:
            in_flight = len(_lines(begins)) - len(_lines(effects))
            os.kill(pid, signal.SIGKILL)
            figures["kills"] += 1
            figures["kills_with_tool_in_flight"] += in_flight > 0
            _read(fd, None, buf)
        os.close(fd)
        os.waitpid(pid, 0)
        text = buf.decode(errors="replace")
        _absorb(text, figures, errors)
        if "DONE succeeded" in text:
            runs[current] = "succeeded"
            current = f"{prefix}{len(runs):03d}"
    # Finish every run without interference.
    for run_id, status in list(runs.items()):
        if status == "succeeded":
            continue
        pid, fd = _spawn(db, world, run_id, seed)
        buf = bytearray()
        if not _read(fd, time.monotonic() + 300, buf):
            os.kill(pid, signal.SIGKILL)
            errors.append(f"ERROR final runner of {run_id} did not finish in 300 s")
        os.close(fd)
        os.waitpid(pid, 0)
        text = buf.decode(errors="replace")
        _absorb(text, figures, errors)
        if "DONE succeeded" in text:
            runs[run_id] = "succeeded"
    # Nothing of any run may still be running (it could add an effect after we count).
    deadline = time.monotonic() + 30
    while any(_still_running(r) for r in runs) and time.monotonic() < deadline:
        time.sleep(0.05)
    leftover = sorted({p for r in runs for p in _still_running(r)})
    counts = Counter(_lines(effects))
    duplicated = lost = 0
    with SqliteStore(str(db)) as store:
        for run_id in runs:
            state = fold(store.events(run_id))
            for i in range(STEPS):
                n = counts.get(f"EFFECT {run_id} s{i}", 0)
                duplicated += max(0, n - 1)
                lost += (
                    n == 0 or state.steps.get(f"s{i}") is None or state.steps[f"s{i}"].status != "succeeded"
                )
    return {
        "kills": figures["kills"],
        "kills_with_tool_in_flight": figures["kills_with_tool_in_flight"],
        "reviews": figures["reviews"],
        "reviewed_marked_succeeded": figures["reviewed_marked_succeeded"],
        "reviewed_retried": figures["reviewed_retried"],
        "runs": len(runs),
        "runs_succeeded": sum(1 for s in runs.values() if s == "succeeded"),
        "steps": len(runs) * STEPS,
        "effects": sum(counts.values()),
        "duplicated_effects": duplicated,
        "lost_steps": lost,
        "leftover_processes": len(leftover),
        "errors": errors[:10],
        "seconds": round(time.monotonic() - started, 1),
        "seed": seed,
    }


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        db, workdir, run_id, seed, fd = sys.argv[2:7]
        _child(db, workdir, run_id, int(seed), int(fd))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--kills", type=int, default=100)
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--dir", type=Path, default=None, help="work directory (default: a fresh temp dir)")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON line")
    args = ap.parse_args()
    workdir = args.dir or Path(tempfile.mkdtemp(prefix="forethought-crash-"))
    figures = run(args.kills, args.seed, workdir)
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:>26}: {value}")
        print(f"{'work directory':>26}: {workdir}")
    bad = figures["duplicated_effects"] or figures["lost_steps"] or figures["errors"]
    bad = bad or figures["runs_succeeded"] != figures["runs"] or figures["leftover_processes"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
