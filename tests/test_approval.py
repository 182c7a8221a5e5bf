from __future__ import annotations

import dataclasses
from typing import Any

from forethought.oversight.approvals import Approval, ApprovalGate, needs_new_approval
from forethought.oversight.policy import needs_approval
from forethought.plan.model import Plan
from forethought.tools.base import ToolSpec

SPECS = {
    "read": ToolSpec(name="read", effect="read_only"),
    "write": ToolSpec(name="write", effect="mutating"),
    "drop": ToolSpec(name="drop", effect="destructive"),
}


def plan(**changes: Any) -> Plan:
    steps = [
        {"id": "r", "tool": "read", "args": {"path": "a"}},
        {"id": "w", "tool": "write", "args": {"path": "b", "text": "${r}"}},
        {"id": "d", "tool": "drop", "args": {"table": "old"}, "depends_on": ["w"]},
    ]
    for sid, fields in changes.items():
        for s in steps:
            if s["id"] == sid:
                s.update(fields)
    return Plan.model_validate({"goal": "g", "steps": steps})


def test_without_approval_only_read_only_steps_may_run() -> None:
    p = plan()
    gate = ApprovalGate([p], [], SPECS)
    assert gate.allows(p.step("r"), SPECS["read"])
    assert not gate.allows(p.step("w"), SPECS["write"])
    assert needs_new_approval(p, gate) == ["w", "d"]
    assert gate.reason_denied["w"] == "no approval covers this side-effecting step"


def test_approval_covers_exactly_the_approved_side_effects() -> None:
    p1 = plan()
    approval = Approval.grant(p1, SPECS, approver="alice")
    assert approval.is_authentic()
    assert needs_new_approval(p1, ApprovalGate([p1], [approval], SPECS)) == []

    # A read-only change keeps the approval; a changed side-effecting step needs a new one.
    p2 = plan(r={"args": {"path": "other"}})
    assert needs_new_approval(p2, ApprovalGate([p1, p2], [approval], SPECS)) == []
    p3 = plan(d={"args": {"table": "users"}})
    assert needs_new_approval(p3, ApprovalGate([p1, p3], [approval], SPECS)) == ["d"]
    # So does a new side-effecting step added by a replan.
    data = p1.to_data()
    data["steps"].append({"id": "w2", "tool": "write", "args": {"path": "c", "text": "x"}})
    p4 = Plan.model_validate(data)
    assert needs_new_approval(p4, ApprovalGate([p1, p4], [approval], SPECS)) == ["w2"]


def test_read_only_scope_does_not_cover_side_effects() -> None:
    p = plan()
    approval = Approval.grant(p, SPECS, scope="read_only")
    assert needs_new_approval(p, ApprovalGate([p], [approval], SPECS)) == ["w", "d"]


def test_forged_or_mismatched_approvals_cover_nothing() -> None:
    p = plan()
    real = Approval.grant(p, SPECS, approver="alice")
    forged = dataclasses.replace(real, approver="mallory")  # signature no longer matches
    unsigned = dataclasses.replace(real, signature="")
    assert needs_new_approval(p, ApprovalGate([p], [forged, unsigned], SPECS)) == ["w", "d"]
    # The stored plan row was edited: its hash no longer matches the approved one.
    tampered = plan(d={"args": {"table": "users"}})
    assert needs_new_approval(tampered, ApprovalGate([tampered], [real], SPECS)) == ["w", "d"]


def test_changed_tool_definition_disables_the_step_until_reapproved() -> None:
    p = plan()
    approval = Approval.grant(p, SPECS)
    changed = dict(SPECS, drop=ToolSpec(name="drop", effect="destructive", description="now cascades"))
    gate = ApprovalGate([p], [approval], changed)
    assert not gate.allows(p.step("d"), changed["drop"])
    assert "tool 'drop' changed since it was approved" in gate.reason_denied["d"]
    assert gate.allows(p.step("w"), changed["write"])


def test_agent_steps_unknown_tools_and_required_approval_are_side_effecting() -> None:
    p = Plan.model_validate(
        {
            "goal": "g",
            "steps": [
                {"id": "a", "agent": "summarize the logs"},
                {"id": "u", "tool": "mystery"},
                {"id": "q", "tool": "read", "approval": "required"},
                {"id": "c", "tool": "read", "compensate": {"tool": "write", "args": {}}},
                {"id": "ok", "tool": "read"},
            ],
        }
    )
    assert [s.id for s in p.steps if needs_approval(s, SPECS.get(s.tool or ""))] == ["a", "u", "q", "c"]


def test_reconfirm_policy_needs_an_execution_time_step_confirmation() -> None:
    p = plan()
    blanket = Approval.grant(p, SPECS, approver="alice")
    gate = ApprovalGate([p], [blanket], SPECS, reconfirm_destructive=True)
    assert gate.allows(p.step("w"), SPECS["write"])  # mutating: the plan approval suffices
    assert not gate.allows(p.step("d"), SPECS["drop"])
    assert "forethought approve RUN --step d" in gate.reason_denied["d"]
    confirm = Approval.grant(p, SPECS, approver="alice", steps=["d"])
    gate.add(approval=confirm)
    assert gate.allows(p.step("d"), SPECS["drop"])
    # the confirmation is signed with its step list: widening it forges nothing
    forged = dataclasses.replace(confirm, steps=("d", "w"))
    assert not ApprovalGate([p], [blanket, forged], SPECS, reconfirm_destructive=True).allows(
        p.step("d"), SPECS["drop"]
    )
    # a confirmation for a changed step (edited plan) does not carry over
    edited = plan(d={"args": {"table": "users"}})
    again = ApprovalGate(
        [p, edited], [Approval.grant(edited, SPECS), confirm], SPECS, reconfirm_destructive=True
    )
    assert not again.allows(edited.step("d"), SPECS["drop"])
