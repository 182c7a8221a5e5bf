"""Issue 15 item 6: a tool's processes die with the runner, and review + retry never doubles an effect.

Command tools run in their own session. Before the fix, after ``kill -9`` of the runner the tool
(``sh -c "sleep; echo charged >> effects"``) kept running, the operator saw no effect, retried the
step, and the charge landed twice. Now (Linux) the tool's process group is killed when the runner
dies, ``step_process`` records pid/pgid/start time, and ``resume`` kills any survivor of the run
before an interrupted step is reviewed or retried.

The runner is a fresh interpreter (exec, not fork) that is killed from outside once the tool has
written its STARTED marker; every wait is a bounded wait on a condition, never a sleep as sync.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from forethought import Plan, Step
from forethought.events.state import fold
from forethought.execution.executor import ApproveAll
from forethought.execution.options import ExecutorOptions
from forethought.runs.recording import execute_recorded
from forethought.runs.resume import resume_run
from forethought.runs.review import InterruptedStepsReview
from forethought.runs.store.sqlite import SqliteStore
from forethought.tools._proc import ProcInfo, proc_info, reap_orphans
from forethought.tools.command import CommandTool, CommandToolConfig

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

ROOT = Path(__file__).resolve().parents[2]
RUN_ID = "orphan-run"
# The charge lands 2 s after the tool starts; a background job of the same group would add "late"
# after 3 s (a tool that exits normally has its leftover background jobs killed: no "late" then).
SCRIPT = (
    "(sleep 3; echo late >> effects.txt) &\n"
    "echo $$ > started.tmp && mv started.tmp started\n"
    "sleep 2\n"
    "echo charged >> effects.txt\n"
)


def _tools(workdir: Path) -> dict[str, CommandTool]:
    config = CommandToolConfig(name="pay", script=SCRIPT, effect="mutating", timeout_s=60)
    return {"pay": CommandTool(config, base_dir=workdir, source="test")}


PLAN = Plan(goal="charge once", steps=(Step(id="pay", tool="pay"),))


def _pgid(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rpartition(")")[2].split()[2])


def _group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes whose process group is ``pgid``."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[2]) == pgid:
            out.append(int(entry))
    return out


def _wait_for(cond, timeout_s: float) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return bool(cond())


def _child(db: str, workdir: str) -> None:
    store = SqliteStore(db)
    opts = ExecutorOptions(gate=ApproveAll(), approved_by="test")
    asyncio.run(execute_recorded(store, PLAN, _tools(Path(workdir)), opts, run_id=RUN_ID))


def _start_runner(db: Path, workdir: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.Popen([sys.executable, __file__, "--child", str(db), str(workdir)], env=env)


def test_runner_killed_mid_tool_takes_the_tool_group_and_review_retry_charges_once(tmp_path: Path) -> None:
    db, work = tmp_path / "runs.db", tmp_path / "work"
    work.mkdir()
    runner = _start_runner(db, work)
    try:
        assert _wait_for(lambda: (work / "started").exists(), 60), "the tool never started"
        tool_pid = int((work / "started").read_text())
        pgid = _pgid(tool_pid)
        assert pgid is not None, "the tool ended before the runner was killed"
        assert _group_members(pgid), "the tool's group is empty while it runs"
    finally:
        runner.kill()
        runner.wait(timeout=30)

    # The runner is gone: so must be every process of the tool's group, well before the charge.
    assert _wait_for(lambda: not _group_members(pgid), 2.0), (
        f"tool process group {pgid} outlived the killed runner: {_group_members(pgid)}"
    )

    # The operator's review flow: resume (interrupted step → needs review), look at the world,
    # mark it succeeded if the charge is there, retry it otherwise; resume again.
    effects = work / "effects.txt"
    store = SqliteStore(str(db))
    try:
        state = asyncio.run(resume_run(store, RUN_ID, _tools(work), approve_all=True))
        assert state.status == "paused"
        assert state.steps["pay"].status == "needs_review"
        charged = effects.exists() and "charged" in effects.read_text()
        review = (
            InterruptedStepsReview(succeeded={"pay": {"exit_code": 0}})
            if charged
            else InterruptedStepsReview(retry=["pay"])
        )
        state = asyncio.run(resume_run(store, RUN_ID, _tools(work), approve_all=True, review=review))
        assert state.status == "succeeded", state.reason
        recorded = fold(store.events(RUN_ID))
    finally:
        store.close()
    procs = [e for e in store_events(db) if e["kind"] == "step_process"]
    # The retry's process is on record (the killed attempt's record may not have reached the disk:
    # it follows the spawn and is not written ahead; the supervisor covers that window).
    assert procs and procs[-1]["pgid"] == procs[-1]["pid"] and int(str(procs[-1]["start_time"])) > 0
    assert recorded.steps["pay"].status == "succeeded"
    # Give an orphan (had one survived) the time to land its effects: 3 s after it started.
    started = (work / "started").stat().st_mtime
    _wait_for(lambda: time.time() > started + 4.0, 10.0)
    lines = effects.read_text().splitlines() if effects.exists() else []
    assert lines.count("charged") == 1, f"effects: {lines}"
    assert "late" not in lines, "a background job of the killed tool's group ran on"


def store_events(db: Path) -> list[dict[str, object]]:
    with SqliteStore(str(db)) as store:
        return [json.loads(e.model_dump_json()) for e in store.events(RUN_ID)]


def _unsupervised(env_extra: dict[str, str]) -> subprocess.Popen[bytes]:
    """A stand-in for a group that escaped the supervisor (e.g. no setpriv): its own session."""
    env = {"PATH": os.environ.get("PATH", os.defpath), **env_extra}
    return subprocess.Popen(["sh", "-c", "sleep 60 & wait"], env=env, start_new_session=True)


def test_resume_reaps_a_surviving_group_found_by_its_run_tag(tmp_path: Path) -> None:
    victim = _unsupervised({"FORETHOUGHT_RUN_ID": "tagged-run", "FORETHOUGHT_STEP_ID": "pay"})
    bystander = _unsupervised({"FORETHOUGHT_RUN_ID": "another-run"})
    try:
        assert _wait_for(lambda: len(_group_members(victim.pid)) == 2, 10)
        killed = reap_orphans("tagged-run", [])
        assert victim.pid in killed
        assert victim.wait(timeout=10) == -9
        assert _wait_for(lambda: not _group_members(victim.pid), 5), "the group's sleep survived"
        assert bystander.poll() is None, "another run's tool was killed"
    finally:
        for p in (victim, bystander):
            p.kill()
            p.wait(timeout=10)


def test_resume_reaps_a_recorded_group_and_ignores_a_reused_pid(tmp_path: Path) -> None:
    untagged = _unsupervised({})
    try:
        assert _wait_for(lambda: len(_group_members(untagged.pid)) == 2, 10)
        real = proc_info(untagged.pid)
        assert real.pgid == untagged.pid and real.start_time > 0
        stale = ProcInfo(real.pid, real.pgid, real.start_time + 1)  # the pid, reused by another
        assert reap_orphans("some-run", [stale]) == []
        assert untagged.poll() is None
        assert untagged.pid in reap_orphans("some-run", [real])
        assert untagged.wait(timeout=10) == -9
        assert _wait_for(lambda: not _group_members(real.pgid), 5)
    finally:
        untagged.kill()
        untagged.wait(timeout=10)


def test_crash_harness_sample_has_no_duplicates_and_no_lost_steps(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "crash" / "harness.py"),
            "--kills",
            "5",
            "--seed",
            "15",
            "--dir",
            str(tmp_path),
            "--json",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    assert figures["kills"] >= 5
    assert figures["duplicated_effects"] == 0
    assert figures["lost_steps"] == 0
    assert figures["runs_succeeded"] == figures["runs"]


if __name__ == "__main__" and sys.argv[1:2] == ["--child"]:
    _child(sys.argv[2], sys.argv[3])
