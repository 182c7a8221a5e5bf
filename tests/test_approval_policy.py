"""The one approval policy (oversight.policy.needs_approval) and the cases where it changed behaviour.

Before, the executor (`needs_approval` in execution) and the approvals module (`has_side_effects`)
answered differently for unknown tools and for steps with a compensation; the fail-closed answer
now holds for both.
"""

from __future__ import annotations

import asyncio
from typing import Any

from _executor_helpers import FnTool, failing, registry
from forethought.execution.executor import Executor
from forethought.execution.options import ExecutorOptions
from forethought.oversight.approvals import Approval, ApprovalGate, side_effect_steps
from forethought.oversight.policy import needs_approval
from forethought.plan.model import Plan, Step, ToolCall
from forethought.tools.base import ToolSpec

READ = ToolSpec(name="read", effect="read_only")
WRITE = ToolSpec(name="write", effect="mutating")
WIPE = ToolSpec(name="wipe", effect="destructive")
SPECS = {"read": READ, "write": WRITE, "wipe": WIPE}


def step(**fields: Any) -> Step:
    return Step.model_validate({"id": "s", **fields})


def plan_of(*steps: dict[str, Any], rollback: tuple[dict[str, Any], ...] = ()) -> Plan:
    return Plan.model_validate({"goal": "test", "steps": list(steps), "rollback": list(rollback)})


async def run(plan: Plan, tools: dict[str, Any], **kw: Any) -> Executor:
    ex = Executor(plan, tools, ExecutorOptions(**kw))
    await asyncio.wait_for(ex.run(), timeout=20)
    return ex


# ------------------------------------------------------------------------------ the policy


def test_read_only_tool_needs_no_approval() -> None:
    assert not needs_approval(step(tool="read"), READ)
    assert not needs_approval(ToolCall(tool="read"), READ)
    assert not needs_approval("read", READ)  # a read-only tool called inside an agent step


def test_mutating_tool_needs_approval() -> None:
    assert needs_approval(step(tool="write"), WRITE)
    assert needs_approval("write", WRITE)


def test_destructive_tool_needs_approval() -> None:
    assert needs_approval(step(tool="wipe"), WIPE)
    assert needs_approval("wipe", WIPE)


def test_unknown_tool_needs_approval() -> None:
    # Changed for the executor: it used to let a step with an unknown tool start.
    assert needs_approval(step(tool="mystery"), None)
    assert needs_approval(ToolCall(tool="mystery"), None)
    assert needs_approval("mystery", None)


def test_agent_step_needs_approval() -> None:
    assert needs_approval(step(agent="summarize the logs"), None)


def test_approval_required_needs_approval_even_if_read_only() -> None:
    assert needs_approval(step(tool="read", approval="required"), READ)


def test_compensation_with_a_destructive_tool_needs_approval() -> None:
    comp = ToolCall(tool="wipe", args={"what": "all"})
    assert needs_approval(comp, WIPE)
    assert needs_approval(comp, None)  # unknown compensation tool
    # The step that carries it needs approval too, even though its own tool is read-only:
    # changed for the executor, which used to run such a step without asking.
    assert needs_approval(step(tool="read", compensate={"tool": "wipe"}), READ)


def test_rollback_step_is_decided_like_any_step() -> None:
    assert not needs_approval(step(tool="read"), READ)
    assert needs_approval(step(tool="wipe"), WIPE)
    assert needs_approval(step(tool="mystery"), None)


# ------------------------------------------------------------------------------ behaviour changes


async def test_executor_holds_a_step_with_an_unknown_tool_for_approval() -> None:
    # Before: the step started without approval (and failed as "unknown tool").
    ex = await run(plan_of({"id": "u", "tool": "mystery"}), {})
    assert ex.state.status == "awaiting_approval"
    assert not [e for e in ex.log if e.kind == "step_started"]


async def test_executor_holds_a_read_only_step_whose_compensation_is_destructive() -> None:
    # Before: `look` ran without approval and its destructive compensation could later run.
    look, wipe = FnTool("look"), FnTool("wipe", effect="destructive")
    plan = plan_of({"id": "look", "tool": "look", "compensate": {"tool": "wipe"}})
    ex = await run(plan, registry(look, wipe))
    assert ex.state.status == "awaiting_approval"
    assert look.calls == [] and wipe.calls == []


async def test_executor_skips_an_unapproved_rollback_step_with_an_unknown_tool() -> None:
    # Before: a rollback step whose tool is unknown was attempted without asking the gate.
    plan = plan_of(
        {"id": "d", "tool": "fail", "on_failure": "rollback", "retry": {"attempts": 1}},
        rollback=({"id": "r", "tool": "mystery"},),
    )
    ex = await run(plan, registry(failing()))
    skipped = [e for e in ex.log if e.kind == "step_skipped" and e.step_id == "r"]
    assert skipped and skipped[0].reason == (  # type: ignore[union-attr]
        "not approved: rollback step 'r': no approval covers it"
    )
    assert not [e for e in ex.log if e.kind == "step_started" and e.step_id == "r"]


def test_approval_must_cover_a_step_with_a_read_only_compensation() -> None:
    # Before: the approvals module looked the compensation's tool up and let this step through;
    # now a step with a compensation always needs approval (executor and gate agree).
    plan = plan_of({"id": "c", "tool": "read", "compensate": {"tool": "read"}}, {"id": "ok", "tool": "read"})
    assert [s.id for s in side_effect_steps(plan, SPECS)] == ["c"]
    gate = ApprovalGate([plan], [], SPECS)
    assert not gate.allows(plan.step("c"), READ)
    assert gate.allows(plan.step("ok"), READ)
    gate.add(approval=Approval.grant(plan, SPECS, approver="t"))
    assert gate.allows(plan.step("c"), READ)


def test_executor_and_gate_agree_on_every_case() -> None:
    plan = plan_of(
        {"id": "r", "tool": "read"},
        {"id": "w", "tool": "write"},
        {"id": "x", "tool": "wipe"},
        {"id": "u", "tool": "mystery"},
        {"id": "a", "agent": "do it"},
        {"id": "q", "tool": "read", "approval": "required"},
        {"id": "c", "tool": "read", "compensate": {"tool": "wipe"}},
    )
    gated = {s.id for s in plan.steps if needs_approval(s, SPECS.get(s.tool or ""))}
    assert gated == {s.id for s in side_effect_steps(plan, SPECS)} == {"w", "x", "u", "a", "q", "c"}
