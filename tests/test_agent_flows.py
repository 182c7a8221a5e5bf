"""End-to-end flows of the Agent with a scripted planner, real tools and a real SQLite store:
approval bound to plan hashes (replan, edit, tampered rows), and budgets that stop runs."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from forethought import tool
from forethought.agent import Agent, Decision, PlanReview
from forethought.models.base import ModelResponse, Usage
from forethought.models.scripted import ScriptedModel
from forethought.oversight.supervisor import Budgets
from forethought.plan.model import Plan
from forethought.runs.integrity import RecordModified
from forethought.runs.store.sqlite import SqliteStore

EFFECTS: list[str] = []
STATE: dict[str, Any] = {}


@tool
def read_config(name: str) -> dict[str, str]:
    """Read a configuration value."""
    EFFECTS.append(f"read {name}")
    return {"value": f"<{name}>"}


@tool(effect="mutating")
def write_config(name: str, value: str) -> str:
    """Write a configuration value."""
    EFFECTS.append(f"write {name}={value}")
    return "ok"


@tool(effect="mutating")
def flaky_deploy(target: str) -> str:
    """Fails the first time it is called."""
    STATE["deploys"] = STATE.get("deploys", 0) + 1
    EFFECTS.append(f"deploy {target}")
    if STATE["deploys"] == 1:
        from forethought.errors import ToolError

        raise ToolError("deploy target busy", retryable=False)
    return "deployed"


@tool
async def hang_forever(seconds: float) -> str:
    """Never finishes (records whether it was cancelled)."""
    try:
        await asyncio.sleep(seconds)
    finally:
        STATE["hang_cleaned_up"] = True
    return "impossible"


TOOLS = [read_config, write_config, flaky_deploy, hang_forever]


@pytest.fixture(autouse=True)
def _reset() -> None:
    EFFECTS.clear()
    STATE.clear()


def plan_json(*steps: dict[str, Any]) -> str:
    return json.dumps({"steps": list(steps)})


READ = {"id": "s1", "tool": "read_config", "args": {"name": "db"}}
WRITE = {"id": "s2", "tool": "write_config", "args": {"name": "db", "value": "${s1.value}"}}


def agent(store: SqliteStore, model: ScriptedModel, **kw: Any) -> Agent:
    return Agent(TOOLS, model=model, store=store, **kw)


@pytest.fixture
def store(tmp_path: Path) -> SqliteStore:
    s = SqliteStore(tmp_path / "runs.db")
    yield s
    s.close()


def kinds(store: SqliteStore, run_id: str) -> list[str]:
    return [e.kind for e in store.events(run_id)]


async def test_yes_all_runs_and_records_a_signed_approval(store: SqliteStore) -> None:
    model = ScriptedModel([plan_json(READ, WRITE)])
    result = await agent(store, model).run("copy the db setting", approve="all")
    model.assert_all_used()
    assert result.status == "succeeded"
    assert EFFECTS == ["read db", "write db=<db>"]
    events = store.events(result.run_id)
    assert [e.kind for e in events[:5]] == [
        "run_created",
        "model_called",
        "plan_proposed",
        "plan_validated",
        "plan_approved",
    ]
    approved = events[4]
    assert approved.plan_hash == result.plan.plan_hash()  # type: ignore[union-attr]
    assert approved.signature and approved.approver.endswith("(--yes-all)")
    assert [e.seq for e in events] == list(range(len(events)))


async def test_without_approval_nothing_runs_then_approve_and_resume(store: SqliteStore) -> None:
    model = ScriptedModel([plan_json(READ, WRITE)])
    a = agent(store, model)
    first = await a.run("copy the db setting")
    assert first.status == "awaiting_approval"
    assert EFFECTS == []
    # --yes would have run the read-only step only:
    second = await agent(store, ScriptedModel([plan_json(READ, WRITE)])).run(
        "copy the db setting", approve="read_only"
    )
    assert second.status == "awaiting_approval"
    assert EFFECTS == ["read db"]
    assert second.state.steps["s2"].status in ("pending", "ready")
    # A human approves the first run (as `forethought approve` does), then it continues.
    from forethought.events import kinds as E
    from forethought.oversight.approvals import Approval

    plan = first.plan
    assert plan is not None
    grant = Approval.grant(plan, a.specs, approver="alice", run_id=first.run_id)
    last = store.events(first.run_id)[-1].seq
    store.append_many(
        [
            E.PlanApproved(
                run_id=first.run_id,
                seq=last + 1,
                plan_hash=grant.plan_hash,
                approver="alice",
                tool_hashes=dict(grant.tool_hashes),
                signature=grant.signature,
            )
        ]
    )
    EFFECTS.clear()
    resumed = await a.resume(first.run_id)
    assert resumed.status == "succeeded"
    assert EFFECTS == ["read db", "write db=<db>"]


async def test_tampered_plan_row_never_runs_the_side_effect(store: SqliteStore) -> None:
    model = ScriptedModel([plan_json(READ, WRITE)])
    first = await agent(store, model).run("copy the db setting", approve="read_only")
    assert first.status == "awaiting_approval"
    from forethought.events import kinds as E
    from forethought.oversight.approvals import Approval

    plan = first.plan
    assert plan is not None
    grant = Approval.grant(plan, {t.spec.name: t.spec for t in TOOLS}, approver="alice", run_id=first.run_id)
    last = store.events(first.run_id)[-1].seq
    store.append_many(
        [
            E.PlanApproved(
                run_id=first.run_id,
                seq=last + 1,
                plan_hash=grant.plan_hash,
                approver="alice",
                tool_hashes=dict(grant.tool_hashes),
                signature=grant.signature,
            )
        ]
    )
    # Someone edits the stored plan after approval: the mutating step now writes elsewhere.
    path = store.path
    store.close()
    con = sqlite3.connect(path)
    body = con.execute(
        "SELECT body FROM events WHERE run_id=? AND kind='plan_proposed'", (first.run_id,)
    ).fetchone()[0]
    tampered = body.replace('"value":"${s1.value}"', '"value":"pwned"')
    assert tampered != body
    con.execute("UPDATE events SET body=? WHERE run_id=? AND kind='plan_proposed'", (tampered, first.run_id))
    con.commit()
    con.close()
    EFFECTS.clear()
    reopened = SqliteStore(path)
    try:
        # The edit breaks the record's chain: the run is refused before anything is decided.
        with pytest.raises(RecordModified, match="modified outside forethought"):
            await Agent(TOOLS, model=ScriptedModel([]), store=reopened).resume(first.run_id)
    finally:
        reopened.close()
    assert not any(e.startswith("write") for e in EFFECTS)


async def test_reviewer_edit_binds_approval_to_the_edited_plan(store: SqliteStore) -> None:
    model = ScriptedModel([plan_json(READ, WRITE)])
    seen: list[PlanReview] = []

    async def reviewer(review: PlanReview) -> Decision:
        seen.append(review)
        if len(seen) == 1:
            data = review.plan.to_data()
            data["steps"][1]["args"]["value"] = "edited"
            return Decision("edit", Plan.model_validate(data))
        return Decision("approve")

    result = await agent(store, model).run("copy the db setting", reviewer=reviewer)
    assert result.status == "succeeded"
    assert EFFECTS == ["read db", "write db=edited"]
    assert [r.plan.version for r in seen] == [1, 2]
    events = store.events(result.run_id)
    approved = [e for e in events if e.kind == "plan_approved"]
    proposed = [e for e in events if e.kind == "plan_proposed"]
    assert [p.source for p in proposed] == ["planner", "edit"]
    assert [a.plan_hash for a in approved] == [proposed[1].plan_hash]


async def test_reject_cancels_the_run(store: SqliteStore) -> None:
    async def reviewer(review: PlanReview) -> Decision:
        return Decision("reject", note="wrong database")

    result = await agent(store, ScriptedModel([plan_json(READ, WRITE)])).run(
        "copy the db setting", reviewer=reviewer
    )
    assert result.status == "cancelled"
    assert "rejected by" in result.state.reason and "wrong database" in result.state.reason
    assert EFFECTS == []


async def test_replan_adding_a_side_effect_needs_fresh_approval(store: SqliteStore) -> None:
    deploy = {
        "id": "s2",
        "tool": "flaky_deploy",
        "args": {"target": "prod"},
        "depends_on": ["s1"],
        "on_failure": "replan",
    }
    replanned = plan_json(
        {
            "id": "s3",
            "tool": "write_config",
            "args": {"name": "target", "value": "canary"},
            "depends_on": ["s1"],
        }
    )

    async def reviewer(review: PlanReview) -> Decision:
        return Decision("approve")

    # s1 only orders s2 (its output goes nowhere): the coverage check flags it, so --force.
    model = ScriptedModel([plan_json(READ, deploy), replanned])
    result = await agent(store, model).run("deploy the db setting to prod", reviewer=reviewer, force=True)
    model.assert_all_used()
    # v1 was approved by a human; v2's new write was not, so it must not run.
    assert result.status == "awaiting_approval"
    assert "write target=canary" not in EFFECTS
    assert kinds(store, result.run_id).count("plan_revised") == 1

    # With --yes-all the same replan is approved (and recorded) automatically.
    STATE.clear()
    EFFECTS.clear()
    model = ScriptedModel([plan_json(READ, deploy), replanned])
    auto = await agent(store, model).run("deploy the db setting to prod", approve="all", force=True)
    assert auto.status == "succeeded"
    assert EFFECTS == ["read db", "deploy prod", "write target=canary"]
    assert kinds(store, auto.run_id).count("plan_approved") == 2


async def test_planner_that_always_replans_stops_at_max_replans(store: SqliteStore) -> None:
    STATE["deploys"] = -100  # always fails
    step = {"id": "s1", "tool": "flaky_deploy", "args": {"target": "x"}, "on_failure": "replan"}

    def again(request: Any) -> str:
        return plan_json({**step, "id": f"r{len(EFFECTS)}"})

    @tool(effect="mutating")
    def always_fail(target: str) -> str:
        """Deploy a target; always fails."""
        EFFECTS.append("try")
        raise RuntimeError("no")

    step["tool"] = "always_fail"
    model = ScriptedModel([plan_json(step), again, again])
    a = Agent([always_fail], model=model, store=store, budgets=Budgets(max_replans=2))
    result = await a.run("deploy x", approve="all")
    model.assert_all_used()
    assert result.status == "failed"
    assert "max_replans=2" in result.state.reason
    assert EFFECTS == ["try", "try", "try"]


async def test_token_burning_agent_step_is_stopped_by_the_token_budget(store: SqliteStore) -> None:
    burn = ModelResponse(
        text=json.dumps({"action": "call", "tool": "read_config", "args": {"name": "x"}}),
        usage=Usage(input_tokens=4000, output_tokens=1000),
        model="scripted",
    )
    planner = ScriptedModel([plan_json({"id": "think", "agent": "analyse the config"})])
    executor = ScriptedModel([burn] * 3)
    a = Agent(
        TOOLS,
        planner_model=planner,
        executor_model=executor,
        store=store,
        budgets=Budgets(max_tokens=8000, on_breach="abort"),
    )
    result = await a.run("analyse", approve="all")
    assert result.status == "failed"
    assert "budget max_tokens exceeded" in result.state.reason
    assert executor.remaining >= 1  # stopped before the loop used its last turn
    assert "budget_exceeded" in kinds(store, result.run_id)


async def test_step_that_never_ends_is_stopped_by_the_wall_clock(store: SqliteStore) -> None:
    model = ScriptedModel([plan_json({"id": "s1", "tool": "hang_forever", "args": {"seconds": 3600}})])
    a = agent(store, model, budgets=Budgets(max_wall_s=0.5))
    result = await asyncio.wait_for(a.run("wait 3600 seconds", approve="all"), timeout=30)
    assert result.status == "paused"
    assert "budget max_wall_s exceeded" in result.state.reason
    assert STATE.get("hang_cleaned_up") is True  # the hung call was cancelled, not left running
    assert result.state.steps["s1"].status in ("cancelled", "pending", "failed")


async def test_model_critic_checks_results_and_disagreement_is_recorded(store: SqliteStore) -> None:
    step = {
        "id": "s1",
        "tool": "read_config",
        "args": {"name": "db"},
        "check": {"expr": "len(output.value) > 0", "critic": "the value must name a host"},
        "retry": {"attempts": 2, "backoff_s": 0, "retry_on": ["check"]},
    }
    planner = ScriptedModel([plan_json(step)])
    critic = ScriptedModel(
        [json.dumps({"ok": False, "reason": "no host in it"}), json.dumps({"ok": True, "reason": "fine"})]
    )
    a = Agent(TOOLS, planner_model=planner, critic_model=critic, store=store)
    result = await a.run("read the db setting", approve="all")
    critic.assert_all_used()
    assert result.status == "succeeded"
    assert result.state.steps["s1"].attempts == 2  # the critic's rejection triggered a retry
    events = store.events(result.run_id)
    failed = [e for e in events if e.kind == "check_failed"]
    assert [f.criterion for f in failed] == ["critic"]
    assert "evaluator disagreement" in failed[0].detail
    assert [e.role for e in events if e.kind == "model_called"].count("critic") == 2


def test_secrets_in_outputs_never_reach_cli_output(tmp_path: Path) -> None:
    import subprocess
    import sys

    secret = "sk-proj-" + "Zq9" * 16
    (tmp_path / "leaky.py").write_text(
        "from forethought import tool\n\n"
        "@tool\ndef leak() -> dict:\n"
        f"    'Return a config with a key in it.'\n    return {{'api_key': '{secret}'}}\n"
    )
    (tmp_path / "plan.yaml").write_text("goal: leak\nsteps:\n  - {id: s1, tool: leak}\n")
    for extra in ([], ["--json"]):
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "forethought",
                "exec",
                "plan.yaml",
                "--tools",
                "leaky.py",
                "--yes",
                "--db",
                str(tmp_path / "r.db"),
                *extra,
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        assert secret not in result.stdout + result.stderr
        assert "REDACTED" in result.stdout + result.stderr or extra == []
    db_bytes = b"".join(p.read_bytes() for p in tmp_path.glob("r.db*"))
    assert secret.encode() not in db_bytes


async def test_agent_steps_are_routed_to_their_executor_pool(store: SqliteStore) -> None:
    planner = ScriptedModel(
        [
            plan_json(
                {"id": "cheap_step", "agent": "summarize", "executor": "cheap"},
                {"id": "main_step", "agent": "think"},
            )
        ]
    )
    cheap = ScriptedModel([json.dumps({"action": "finish", "answer": "short"})], name="cheap")
    default = ScriptedModel([json.dumps({"action": "finish", "answer": "deep"})], name="big")
    a = Agent(
        TOOLS,
        planner_model=planner,
        executor_model=default,
        executors={"cheap": cheap, "unused": "openai:gpt-4o"},
        store=store,
    )
    result = await a.run("two agent steps", approve="all")
    assert result.status == "succeeded", result.state.reason
    cheap.assert_all_used()
    default.assert_all_used()
    assert result.state.outputs == {"cheap_step": "short", "main_step": "deep"}
    # the `unused` pool names a provider with no API key here: never resolved, never an error


@tool(effect="destructive")
def drop_table(name: str) -> str:
    """Drop a table."""
    EFFECTS.append(f"drop {name}")
    return "dropped"


async def test_destructive_steps_can_require_confirmation_at_execution_time(store: SqliteStore) -> None:
    steps = [READ, {"id": "d", "tool": "drop_table", "args": {"name": "old"}, "depends_on": ["s1"]}]
    a = Agent(
        [*TOOLS, drop_table],
        model=ScriptedModel([plan_json(*steps)]),
        store=store,
        reconfirm_destructive=True,
    )
    first = await a.run("read the db setting, then drop the old table", approve="all", force=True)
    assert first.status == "awaiting_approval"  # --yes-all is not a confirmation
    assert EFFECTS == ["read db"]
    with pytest.raises(Exception, match="no step 'nope'"):
        await a.approve(first.run_id, steps=["nope"])
    done = await a.approve(first.run_id, steps=["d"], approver="alice")
    assert done is not None and done.status == "succeeded"
    assert EFFECTS == ["read db", "drop old"]
    confirmations = [e for e in store.events(first.run_id) if e.kind == "plan_approved" and e.steps]
    assert [(c.approver, c.steps) for c in confirmations] == [("alice", ["d"])]
