"""Run events become standard ``logging`` records on ``forethought.run`` (and only when asked)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from forethought import Agent, Plan, Step, tool
from forethought.events import kinds as ev
from forethought.runs.run_log import log_event


@tool
def ok() -> str:
    return "fine"


@tool
def boom() -> str:
    raise RuntimeError("disk on fire")


async def test_a_run_logs_start_failure_and_finish(caplog: pytest.LogCaptureFixture) -> None:
    plan = Plan(goal="log me", steps=(Step(id="a", tool="ok"), Step(id="b", tool="boom", depends_on=("a",))))
    agent = Agent(tools=[ok, boom])
    with caplog.at_level(logging.INFO, logger="forethought.run"):
        result = await agent.run(plan, approve="all")
    assert result.state.status == "failed"
    lines = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "forethought.run"]
    run = result.run_id
    assert (logging.INFO, f"run {run} started: log me") in lines
    assert any(
        lvl == logging.WARNING and "step b failed (error)" in m and "disk on fire" in m for lvl, m in lines
    )
    assert lines[-1][0] == logging.WARNING and lines[-1][1].startswith(f"run {run} finished: failed")


async def test_nothing_is_logged_when_logging_is_off(caplog: pytest.LogCaptureFixture) -> None:
    plan = Plan(goal="quiet", steps=(Step(id="a", tool="ok"),))
    with caplog.at_level(logging.WARNING, logger="forethought.run"):
        result = await Agent(tools=[ok]).run(plan, approve="all")
    assert result.state.status == "succeeded"
    assert [r for r in caplog.records if r.name == "forethought.run"] == []


async def test_messages_are_redacted_and_retries_are_info(caplog: pytest.LogCaptureFixture) -> None:
    secret = "sk-" + "a" * 40
    with caplog.at_level(logging.INFO, logger="forethought.run"):
        await log_event(
            ev.StepFailed(run_id="r", seq=3, step_id="s", attempt=1, error=f"key {secret}", final=False)
        )
        await log_event(ev.ReplanRequested(run_id="r", seq=4, step_id="s", reason="s failed"))
        await log_event(ev.ApprovalRequested(run_id="r", seq=5, plan_hash="h", reason="writes files"))
    got = [(r.levelno, r.getMessage()) for r in caplog.records]
    assert got[0][0] == logging.INFO and "will retry" in got[0][1] and secret not in got[0][1]
    assert got[1:] == [
        (logging.INFO, "run r replanning after step s: s failed"),
        (logging.INFO, "run r waiting for approval: writes files"),
    ]


def test_cli_verbose_sends_run_logs_to_stderr(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "FORETHOUGHT_DB": str(tmp_path / "runs.db")}
    args = [
        "exec",
        str(root / "examples/deploy/plan.yaml"),
        "--tools",
        str(root / "examples/deploy/tools.yaml"),
    ]
    quiet = subprocess.run(
        [sys.executable, "-m", "forethought", *args, "--yes-all"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    loud = subprocess.run(
        [sys.executable, "-m", "forethought", "-v", *args, "--yes-all"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "forethought.run" not in quiet.stderr
    assert "INFO forethought.run: run " in loud.stderr and " started: " in loud.stderr
