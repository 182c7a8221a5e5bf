"""Issue 15 item 2: every call the executor makes that can have an effect asks the one policy.

A step, its retries, its compensation, a plan rollback step and a tool call inside an agent step
are each decided by ``oversight.policy`` and, when the policy says approval is needed, by the
gate. An approval covers a step by its content, so it covers the step's compensation and the
tools an agent step lists in ``args.tools`` — as they were defined when it was approved. A call
nothing covers does not run, and the run says so (never a silent skip).

Repro from the issue: ``approve="read_only"``, a read-only step ``look`` with
``compensate: {tool: wipe}`` (destructive), a later step failing with ``on_failure: rollback``:
``wipe`` ran.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from forethought.errors import ToolError
from forethought.events.state import RunState
from forethought.execution.agent_step import AgentStepRunner
from forethought.execution.executor import ApproveAll, Executor
from forethought.execution.options import ExecutorOptions
from forethought.models.scripted import ScriptedModel
from forethought.oversight.approvals import Approval, ApprovalGate
from forethought.plan.model import Effect, Plan
from forethought.tools.base import ToolContext, ToolSpec

Fn = Callable[[dict[str, Any], ToolContext], Awaitable[Any]]


class Recorded:
    """A tool that records every call; ``fn`` (optional) decides what a call does."""

    def __init__(
        self, name: str, effect: Effect = "read_only", *, fn: Fn | None = None, description: str = ""
    ) -> None:
        self.spec = ToolSpec(
            name=name, effect=effect, description=description, idempotent=effect == "read_only"
        )
        self.fn = fn
        self.calls: list[dict[str, Any]] = []

    async def invoke(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        self.calls.append(dict(args))
        if self.fn is not None:
            return await self.fn(args, ctx)
        return f"{self.spec.name} done"


async def _boom(args: dict[str, Any], ctx: ToolContext) -> Any:
    raise ToolError("boom", retryable=False)


def tools_of(*tools: Recorded) -> dict[str, Recorded]:
    return {t.spec.name: t for t in tools}


def specs_of(tools: Mapping[str, Recorded]) -> dict[str, ToolSpec]:
    return {n: t.spec for n, t in tools.items()}


def plan_of(*steps: dict[str, Any], rollback: tuple[dict[str, Any], ...] = ()) -> Plan:
    return Plan.model_validate({"goal": "g", "steps": list(steps), "rollback": list(rollback)})


async def execute(plan: Plan | None, tools: Mapping[str, Any], **options: Any) -> Executor:
    prior = options.pop("prior_events", ())
    ex = Executor(plan, tools, ExecutorOptions(**options), prior_events=prior)
    await asyncio.wait_for(ex.run(), timeout=20)
    return ex


def kinds(ex: Executor, kind: str, step_id: str | None = None) -> list[Any]:
    return [
        e for e in ex.log if e.kind == kind and (step_id is None or getattr(e, "step_id", None) == step_id)
    ]


def read_only_gate(plan: Plan, tools: Mapping[str, Recorded]) -> ApprovalGate:
    """``approve="read_only"``: the run's gate holds no approval, read-only work runs."""
    return ApprovalGate([plan], [], specs_of(tools))


# The issue's plan: look (read-only, destructive compensation) -> boom (fails, rollback).
REPRO = plan_of(
    {"id": "look", "tool": "look", "compensate": {"tool": "wipe", "args": {"what": "everything"}}},
    {"id": "boom", "tool": "boom", "depends_on": ["look"], "on_failure": "rollback"},
)


def repro_tools() -> dict[str, Recorded]:
    return tools_of(Recorded("look"), Recorded("wipe", "destructive"), Recorded("boom", fn=_boom))


# ------------------------------------------------------------------------------ compensations


async def test_issue_repro_read_only_approval_never_runs_the_destructive_compensation() -> None:
    tools = repro_tools()
    ex = await execute(REPRO, tools, gate=read_only_gate(REPRO, tools))
    assert tools["wipe"].calls == []
    # The step that carries the undo is held: approving it is what approves the undo.
    assert tools["look"].calls == []
    assert ex.state.status == "awaiting_approval"
    assert ex.state.reason == "approval needed for: look (no approval covers this side-effecting step)"


async def test_issue_repro_through_the_agent_with_approve_read_only() -> None:
    from forethought.agent import Agent

    tools = repro_tools()
    agent = Agent(list(tools.values()), model=ScriptedModel([]))
    result = await asyncio.wait_for(agent.run(REPRO, approve="read_only"), timeout=20)
    assert tools["wipe"].calls == [] and tools["look"].calls == []
    assert result.status == "awaiting_approval"


async def test_compensation_is_not_run_when_its_tool_changed_since_the_approval() -> None:
    """The step ran under an approval; on resume the compensation's tool is another one."""
    tools = repro_tools()
    approval = Approval.grant(REPRO, specs_of(tools))
    holder: dict[str, Executor] = {}

    async def look_then_stop(args: dict[str, Any], ctx: ToolContext) -> Any:
        holder["ex"].stop("paused", "operator paused the run")
        return "looked"

    tools["look"].fn = look_then_stop
    first = Executor(REPRO, tools, ExecutorOptions(gate=ApprovalGate([REPRO], [approval], specs_of(tools))))
    holder["ex"] = first
    await asyncio.wait_for(first.run(), timeout=20)
    assert first.state.steps["look"].status == "succeeded"
    assert first.state.status == "paused"

    # The wipe tool is redefined before the resume: the approval pinned the old definition.
    changed = Recorded("wipe", "destructive", description="now also deletes the backups")
    tools["wipe"] = changed
    gate = ApprovalGate([REPRO], [approval], specs_of(tools))
    ex = await execute(None, tools, gate=gate, prior_events=first.log)
    assert changed.calls == []
    failed = kinds(ex, "compensation_failed", "look")
    assert len(failed) == 1
    assert failed[0].error.startswith("not approved: compensation 'wipe' of step 'look'")
    assert "changed since it was approved" in failed[0].error
    assert not kinds(ex, "compensation_started")
    assert ex.state.status == "failed"
    assert "rollback incomplete" in ex.state.reason and "'look'" in ex.state.reason
    assert "\n" not in ex.state.reason


async def test_destructive_compensation_needs_the_execution_time_confirmation() -> None:
    """Under ``reconfirm_destructive`` a destructive undo is a destructive call like any other."""
    tools = repro_tools()
    approval = Approval.grant(REPRO, specs_of(tools))
    gate = ApprovalGate([REPRO], [approval], specs_of(tools), reconfirm_destructive=True)
    ex = await execute(REPRO, tools, gate=gate)
    assert tools["wipe"].calls == []
    assert ex.state.status == "awaiting_approval"
    assert "look" in ex.state.reason
    assert "forethought approve RUN --step look" in gate.reason_denied["look"]

    # Confirmed now: the step runs, and so does its undo when the rollback comes.
    tools = repro_tools()
    confirm = Approval.grant(REPRO, specs_of(tools), steps=["look"])
    gate = ApprovalGate([REPRO], [approval, confirm], specs_of(tools), reconfirm_destructive=True)
    ex = await execute(REPRO, tools, gate=gate)
    assert tools["wipe"].calls == [{"what": "everything"}]
    assert [e.kind for e in ex.log if e.kind.startswith("compensation_")] == [
        "compensation_started",
        "compensation_succeeded",
    ]


async def test_approved_compensation_runs() -> None:
    """The other way round: with the plan approved the compensation does run."""
    tools = repro_tools()
    gate = ApprovalGate([REPRO], [Approval.grant(REPRO, specs_of(tools))], specs_of(tools))
    ex = await execute(REPRO, tools, gate=gate)
    assert tools["look"].calls == [{}]
    assert tools["wipe"].calls == [{"what": "everything"}]
    assert kinds(ex, "compensation_succeeded", "look")
    assert ex.state.status == "failed"
    assert "rollback incomplete" not in (ex.state.reason or "")


# ------------------------------------------------------------------------------ plan rollback steps

ROLLBACK_PLAN = plan_of(
    {"id": "boom", "tool": "boom", "on_failure": "rollback"},
    rollback=({"id": "restore", "tool": "wipe", "args": {"what": "staging"}},),
)


async def test_destructive_rollback_step_does_not_run_under_read_only_approval() -> None:
    tools = repro_tools()
    ex = await execute(ROLLBACK_PLAN, tools, gate=read_only_gate(ROLLBACK_PLAN, tools))
    assert tools["boom"].calls == [{}]  # read-only: runs without approval
    assert tools["wipe"].calls == []
    assert not kinds(ex, "step_started", "restore")
    skipped = kinds(ex, "step_skipped", "restore")
    assert len(skipped) == 1
    assert skipped[0].reason.startswith("not approved: rollback step 'restore'")
    assert ex.state.status == "failed"
    assert ex.state.reason.startswith("step 'boom' failed")
    assert "rollback incomplete, not approved: rollback step 'restore'" in ex.state.reason
    assert "\n" not in ex.state.reason


async def test_destructive_rollback_step_runs_when_the_plan_is_approved() -> None:
    tools = repro_tools()
    approval = Approval.grant(ROLLBACK_PLAN, specs_of(tools))
    gate = ApprovalGate([ROLLBACK_PLAN], [approval], specs_of(tools))
    ex = await execute(ROLLBACK_PLAN, tools, gate=gate)
    assert tools["wipe"].calls == [{"what": "staging"}]
    assert kinds(ex, "step_succeeded", "restore")
    assert not kinds(ex, "step_skipped", "restore")
    assert "rollback incomplete" not in (ex.state.reason or "")


async def test_rollback_step_not_in_the_approved_version_does_not_run() -> None:
    """An approval of a plan without the rollback step does not cover it (content, not id)."""
    tools = repro_tools()
    approved = plan_of(
        {"id": "boom", "tool": "boom", "on_failure": "rollback"},
        rollback=({"id": "restore", "tool": "wipe", "args": {"what": "tmp"}},),
    )
    gate = ApprovalGate(
        [approved, ROLLBACK_PLAN], [Approval.grant(approved, specs_of(tools))], specs_of(tools)
    )
    ex = await execute(ROLLBACK_PLAN, tools, gate=gate)
    assert tools["wipe"].calls == []
    assert kinds(ex, "step_skipped", "restore")[0].reason.startswith("not approved:")


# ------------------------------------------------------------------------------ agent steps


def _call(tool: str, **args: Any) -> str:
    return json.dumps({"action": "call", "tool": tool, "args": args})


def _finish(answer: Any) -> str:
    return json.dumps({"action": "finish", "answer": answer})


AGENT_PLAN = plan_of({"id": "a", "agent": "tidy up", "args": {"tools": ["write_note"]}})


def agent_tools() -> dict[str, Recorded]:
    return tools_of(Recorded("fetch"), Recorded("write_note", "mutating"), Recorded("send_mail", "mutating"))


async def run_agent(model: ScriptedModel, tools: dict[str, Recorded], gate: Any) -> Executor:
    runner = AgentStepRunner({"default": model}, tools)
    ex = Executor(AGENT_PLAN, tools, ExecutorOptions(gate=gate, agent_runner=runner))
    runner.record = ex.record
    await asyncio.wait_for(ex.run(), timeout=20)
    return ex


async def test_agent_step_cannot_call_a_mutating_tool_its_approval_does_not_list() -> None:
    tools = agent_tools()
    gate = ApprovalGate([AGENT_PLAN], [Approval.grant(AGENT_PLAN, specs_of(tools))], specs_of(tools))
    model = ScriptedModel(
        [_call("send_mail", to="all@example.test"), _call("write_note", text="hi"), _finish("done")]
    )
    ex = await run_agent(model, tools, gate)
    model.assert_all_used()
    assert tools["send_mail"].calls == []
    assert tools["write_note"].calls == [{"text": "hi"}]
    called = [(e.tool, e.error) for e in kinds(ex, "tool_called", "a")]
    assert called == [
        ("send_mail", "refused: that tool is not available to this step"),
        ("write_note", None),
    ]
    assert ex.state.status == "succeeded"


async def test_agent_step_does_not_run_when_a_listed_tool_changed_since_the_approval() -> None:
    tools = agent_tools()
    approval = Approval.grant(AGENT_PLAN, specs_of(tools))
    tools["write_note"] = Recorded("write_note", "mutating", description="also posts it publicly")
    gate = ApprovalGate([AGENT_PLAN], [approval], specs_of(tools))
    model = ScriptedModel([_call("write_note", text="hi"), _finish("done")])
    ex = await run_agent(model, tools, gate)
    assert tools["write_note"].calls == []
    assert not kinds(ex, "step_started", "a")
    assert ex.state.status == "awaiting_approval"
    assert gate.reason_denied["a"] == "tool 'write_note' changed since it was approved; re-approve the plan"


async def test_agent_step_without_approval_calls_nothing() -> None:
    tools = agent_tools()
    model = ScriptedModel([_call("write_note", text="hi"), _finish("done")])
    ex = await run_agent(model, tools, read_only_gate(AGENT_PLAN, tools))
    assert tools["write_note"].calls == [] and model.requests == []
    assert ex.state.status == "awaiting_approval"


# ------------------------------------------------------------------------------ retries


async def test_retry_of_a_changed_side_effecting_step_waits_for_approval_of_the_new_version() -> None:
    """``pay`` fails, the replanner changes it: the changed ``pay`` is a new call to approve."""
    attempts: list[dict[str, Any]] = []

    async def pay_once(args: dict[str, Any], ctx: ToolContext) -> Any:
        attempts.append(dict(args))
        raise ToolError("card declined", retryable=False)

    tools = tools_of(Recorded("pay", "mutating", fn=pay_once))
    v1 = plan_of({"id": "pay", "tool": "pay", "args": {"amount": 100}, "on_failure": "replan"})
    gate = ApprovalGate([v1], [Approval.grant(v1, specs_of(tools))], specs_of(tools))

    async def replanner(plan: Plan, state: RunState, info: Mapping[str, Any]) -> Plan:
        new = plan_of({"id": "pay", "tool": "pay", "args": {"amount": 10000}})
        new = new.model_copy(update={"version": plan.version + 1, "parent_version": plan.version})
        gate.add(plan=new)
        return new

    ex = await execute(v1, tools, gate=gate, replanner=replanner)
    assert attempts == [{"amount": 100}]  # the approved v1 call only
    assert ex.state.status == "awaiting_approval"
    assert ex.state.reason.startswith("approval needed for: pay (")

    # Approving v2 is what lets the changed call run.
    attempts.clear()
    gate2 = ApprovalGate([v1], [Approval.grant(v1, specs_of(tools))], specs_of(tools))

    async def replanner_approved(plan: Plan, state: RunState, info: Mapping[str, Any]) -> Plan:
        new = await replanner(plan, state, info)
        gate2.add(plan=new, approval=Approval.grant(new, specs_of(tools)))
        return new

    ex = await execute(v1, tools, gate=gate2, replanner=replanner_approved)
    assert attempts == [{"amount": 100}, {"amount": 10000}]


async def test_approve_all_gate_still_runs_everything() -> None:
    tools = repro_tools()
    ex = await execute(REPRO, tools, gate=ApproveAll())
    assert tools["wipe"].calls == [{"what": "everything"}]
    assert ex.state.status == "failed"


# ------------------------------------------------------------------------------ the policy's helpers


def test_policy_lists_every_tool_a_step_may_call() -> None:
    from forethought.oversight.policy import agent_may_call, tools_called
    from forethought.plan.model import Step

    look = Step.model_validate({"id": "s", "tool": "look", "compensate": {"tool": "wipe"}})
    assert tools_called(look) == ("look", "wipe")
    agent = Step.model_validate({"id": "a", "agent": "x", "args": {"tools": ["write_note", "fetch", 3]}})
    assert tools_called(agent) == ("write_note", "fetch")
    assert tools_called(Step.model_validate({"id": "b", "agent": "x"})) == ()

    read, write = ToolSpec(name="fetch"), ToolSpec(name="write_note", effect="mutating")
    wipe = ToolSpec(name="wipe", effect="destructive")
    assert agent_may_call(agent, "write_note", write) and agent_may_call(agent, "fetch", read)
    assert not agent_may_call(agent, "send_mail", ToolSpec(name="send_mail", effect="mutating"))
    bare = Step.model_validate({"id": "b", "agent": "x"})
    assert agent_may_call(bare, "fetch", read)
    assert not agent_may_call(bare, "write_note", write)
    listed_wipe = Step.model_validate({"id": "c", "agent": "x", "args": {"tools": ["wipe"]}})
    assert not agent_may_call(listed_wipe, "wipe", wipe)  # never, even when listed
    assert not agent_may_call(bare, "mystery", None)
