"""Issue 15 item 5: resume never redoes a step with a recorded terminal outcome, nor a rollback.

``resume`` of a failed run used to run the failed destructive step again and repeat the finished
rollback. Now a step that failed for good (or succeeded) runs again only when a person names it
with ``--retry STEP`` (which needs a fresh approval if the step has side effects), and a rollback
step with a recorded outcome never runs again; an interrupted rollback resumes only its rest.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from forethought import Plan, Step, ToolContext, tool
from forethought.errors import ToolError, UserError
from forethought.events.kinds import Event
from forethought.execution.executor import ApproveAll, Executor
from forethought.execution.options import ExecutorOptions
from forethought.runs.approval import grant_approval
from forethought.runs.recording import execute_recorded
from forethought.runs.resume import resume_run
from forethought.runs.review import InterruptedStepsReview
from forethought.runs.store.sqlite import SqliteStore

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# ------------------------------------------------------------------------------ the deploy repro


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "forethought", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_deploy_resume_of_a_rolled_back_run_runs_nothing(tmp_path: Path) -> None:
    work = tmp_path / "deploy"
    shutil.copytree(EXAMPLES / "deploy", work, ignore=shutil.ignore_patterns("state"))
    db = str(tmp_path / "runs.db")
    ops = work / "state" / "operations.log"

    bad = _cli(
        "exec", "plan-fails.yaml", "--tools", "tools.yaml", "--yes-all", "--json", "--db", db, cwd=work
    )
    assert bad.returncode == 1, bad.stderr
    run_id = json.loads(bad.stdout)["run_id"]
    before = ops.read_text().splitlines()
    assert before.count("deploy production v2.3.2-broken") == 1
    assert before.count("rollback previous") == 1

    again = _cli("resume", run_id, "--db", db, cwd=work)
    assert again.returncode == 1, again.stderr
    lines = again.stderr.strip().splitlines()
    assert len(lines) == 1, again.stderr
    assert "failed at step 'production' and was rolled back; nothing to resume" in lines[0]
    assert f"forethought resume {run_id} --retry production" in lines[0]
    assert ops.read_text().splitlines() == before  # nothing reached the deployment system
    assert (work / "state" / "notifications.log").read_text().splitlines() == ["Rollback executed"]

    # A person names the step: it needs a fresh approval first (exit 3), nothing runs meanwhile.
    retry = _cli("resume", run_id, "--retry", "production", "--db", db, cwd=work)
    assert retry.returncode == 3, retry.stderr
    assert ops.read_text().splitlines() == before

    # Approved: production runs exactly once more (it fails again); the rollback is not repeated.
    approved = _cli("resume", run_id, "--yes-all", "--db", db, cwd=work)
    assert approved.returncode == 1, approved.stderr
    after = ops.read_text().splitlines()
    assert after.count("deploy production v2.3.2-broken") == 2
    assert after.count("rollback previous") == 1
    assert after[: len(before)] == before and len(after) == len(before) + 1


# ------------------------------------------------------------------------------ executor level

_calls: list[str] = []


@tool(effect="destructive", idempotent=False)
def deploy(tag: str, ctx: ToolContext) -> str:
    _calls.append(f"deploy {tag}")
    raise ToolError(f"health check of {tag} failed", retryable=False)


@tool(effect="mutating", idempotent=False)
def restore(to: str, ctx: ToolContext) -> str:
    _calls.append(f"restore {to}")
    return to


@tool(effect="mutating", idempotent=True)
def announce(message: str, ctx: ToolContext) -> str:
    _calls.append(f"announce {message}")
    return message


@tool(effect="mutating", idempotent=False)
def page(message: str, ctx: ToolContext) -> str:
    _calls.append(f"page {message}")
    return message


TOOLS: dict[str, Any] = {"deploy": deploy, "restore": restore, "announce": announce, "page": page}


def _plan(last_rollback_tool: str = "announce") -> Plan:
    return Plan(
        goal="deploy",
        steps=(
            Step(id="prod", tool="deploy", args={"tag": "v2"}, on_failure="rollback"),
            Step(id="after", tool="announce", args={"message": "done"}, depends_on=("prod",)),
        ),
        rollback=(
            Step(id="undo", tool="restore", args={"to": "v1"}),
            Step(id="tell", tool=last_rollback_tool, args={"message": "rolled back"}),
        ),
    )


@pytest.fixture(autouse=True)
def _clear() -> None:
    _calls.clear()


async def _failed_run(plan: Plan) -> list[Event]:
    ex = Executor(plan, TOOLS, ExecutorOptions(gate=ApproveAll(), approved_by="t"), run_id="r1")
    state = await ex.run()
    assert state.status == "failed"
    assert _calls == ["deploy v2", "restore v1", f"{plan.rollback[1].tool} rolled back"]
    _calls.clear()
    return list(ex.log)


def _store(tmp_path: Path, log: list[Event], cut_after: str | None = None) -> SqliteStore:
    end = len(log)
    if cut_after is not None:
        kind, _, sid = cut_after.partition(":")
        end = next(i for i, e in enumerate(log) if e.kind == kind and getattr(e, "step_id", "") == sid) + 1
    store = SqliteStore(tmp_path / "runs.db")
    store.append_many(log[:end])
    return store


async def test_failed_for_good_step_and_finished_rollback_never_run_again(tmp_path: Path) -> None:
    log = await _failed_run(_plan())
    store = _store(tmp_path, log)
    with pytest.raises(UserError) as exc:
        await resume_run(store, "r1", TOOLS, approve_all=True)
    assert exc.value.exit_code == 1
    assert "failed at step 'prod' and was rolled back; nothing to resume" in str(exc.value)
    assert "--retry prod" in str(exc.value)
    assert _calls == []
    assert store.get_lease("r1") is None

    # The executor itself, given the record, runs nothing either (API users resume this way).
    state = await Executor(None, TOOLS, ExecutorOptions(gate=ApproveAll()), prior_events=log).run()
    assert _calls == []
    assert state.status == "failed"
    assert state.steps["prod"].status == "failed"
    assert state.steps["after"].status == "skipped"  # dependents stay skipped
    assert state.steps["undo"].status == "succeeded"


async def test_interrupted_rollback_resumes_only_the_rest(tmp_path: Path) -> None:
    # Killed while the (idempotent) last rollback step ran: only that step runs again.
    log = await _failed_run(_plan("announce"))
    store = _store(tmp_path, log, "step_started:tell")
    state = await resume_run(store, "r1", TOOLS, approve_all=True)
    assert _calls == ["announce rolled back"]
    assert state.status == "failed"
    assert state.steps["tell"].status == "succeeded"
    assert state.steps["prod"].status == "failed"
    # ... and now the run is finished: a further resume runs nothing.
    with pytest.raises(UserError, match="nothing to resume"):
        await resume_run(store, "r1", TOOLS, approve_all=True)
    assert _calls == ["announce rolled back"]


async def test_interrupted_non_idempotent_rollback_step_needs_review(tmp_path: Path) -> None:
    log = await _failed_run(_plan("page"))
    store = _store(tmp_path, log, "step_started:tell")
    state = await resume_run(store, "r1", TOOLS, approve_all=True)
    assert _calls == []  # neither the deploy, nor the finished undo, nor the maybe-done page
    assert state.steps["tell"].status == "needs_review"
    assert state.status == "paused"
    state = await resume_run(
        store, "r1", TOOLS, approve_all=True, review=InterruptedStepsReview(retry=["tell"])
    )
    assert _calls == ["page rolled back"]
    assert state.steps["tell"].status == "succeeded"


async def test_retry_runs_the_named_step_once_more_after_a_fresh_approval(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "runs.db")
    plan = _plan()
    specs = {n: t.spec for n, t in TOOLS.items()}
    state = await execute_recorded(store, plan, TOOLS, ExecutorOptions(gate=ApproveAll()), run_id="r2")
    assert state.status == "failed"
    _calls.clear()
    grant_approval(store, "r2", specs, "alice")  # an approval given before the retry decision

    state = await resume_run(store, "r2", TOOLS, review=InterruptedStepsReview(retry=["prod"]))
    assert state.status == "awaiting_approval"  # the old approval does not cover the retry
    assert _calls == []

    grant_approval(store, "r2", specs, "alice")
    state = await resume_run(store, "r2", TOOLS)
    assert _calls == ["deploy v2"]  # exactly once more; the finished rollback is not repeated
    assert state.status == "failed"
    assert state.steps["undo"].status == "succeeded"

    with pytest.raises(UserError, match="nothing to resume"):
        await resume_run(store, "r2", TOOLS, approve_all=True)
    assert _calls == ["deploy v2"]


_flaky_calls: list[int] = []


@tool(effect="mutating", idempotent=False)
def flaky_migrate(n: int, ctx: ToolContext) -> int:
    _flaky_calls.append(n)
    if len(_flaky_calls) == 1:
        raise ToolError("database locked", retryable=False)
    return n


async def test_retry_reopens_the_step_and_its_skipped_dependents_only(tmp_path: Path) -> None:
    _flaky_calls.clear()
    tools: dict[str, Any] = {**TOOLS, "flaky_migrate": flaky_migrate}
    plan = Plan(
        goal="migrate",
        steps=(
            Step(id="ok", tool="announce", args={"message": "start"}),
            Step(id="migrate", tool="flaky_migrate", args={"n": 1}),
            Step(id="next", tool="announce", args={"message": "migrated"}, depends_on=("migrate",)),
        ),
    )
    store = SqliteStore(tmp_path / "runs.db")
    opts = ExecutorOptions(gate=ApproveAll(), max_concurrency=1)
    state = await execute_recorded(store, plan, tools, opts, run_id="r3")
    assert state.status == "failed" and state.steps["next"].status == "skipped"
    _calls.clear()

    # Not a step that can be retried: refused in one line, nothing recorded or run.
    with pytest.raises(UserError, match="'next' of run r3 is skipped"):
        await resume_run(store, "r3", tools, review=InterruptedStepsReview(retry=["next"]))
    with pytest.raises(UserError, match="failed at step 'migrate'; nothing to resume"):
        await resume_run(store, "r3", tools, approve_all=True)
    assert _flaky_calls == [1] and _calls == []

    state = await resume_run(
        store, "r3", tools, approve_all=True, review=InterruptedStepsReview(retry=["migrate"]), reviewer="bob"
    )
    assert state.status == "succeeded"
    assert _flaky_calls == [1, 1]  # exactly once more
    assert _calls == ["announce migrated"]  # the dependent ran; the succeeded step did not
    decisions = [e for e in store.events("r3") if e.kind == "step_ready" and e.retry_by]  # type: ignore[union-attr]
    assert [(e.step_id, e.retry_by) for e in decisions] == [("migrate", "bob")]  # type: ignore[union-attr]
