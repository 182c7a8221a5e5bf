"""Approvals of a stored run: granting one under the run's lease, and the gate a continued run
uses (its recorded, authentic approvals)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from forethought.errors import UserError
from forethought.events import kinds as E
from forethought.events.kinds import Event
from forethought.events.state import RunState
from forethought.execution.executor import ApproveAll
from forethought.oversight.approvals import Approval, ApprovalGate, recorded_approval
from forethought.plan.model import Plan
from forethought.runs.integrity import refuse_if_modified
from forethought.runs.leases import append_under_lease
from forethought.runs.store.base import Store
from forethought.tools.base import ToolSpec


def grant_approval(
    store: Store,
    run_id: str,
    specs: Mapping[str, ToolSpec],
    approver: str,
    *,
    plan_hash: str | None = None,
    steps: Sequence[str] = (),
    note: str = "",
    require_waiting: bool = False,
) -> list[Event]:
    """Record a signed approval of the run's current plan, under the run's lease.

    ``plan_hash`` (a prefix of at least 8 characters) refuses a plan that changed since it was
    reviewed; ``steps`` makes it an execution-time confirmation of those steps;
    ``require_waiting`` refuses runs that are not awaiting approval or paused. A run whose record
    was modified outside forethought is refused first (``RecordModified``): approving it would
    sign whatever an editor put there.
    """
    refuse_if_modified(store, run_id, "approved")

    def build(state: RunState) -> list[dict[str, Any]]:
        if not state.plan:
            raise UserError(f"run {run_id} has no plan to approve")
        if require_waiting and state.status not in ("awaiting_approval", "paused"):
            raise UserError(
                f"run {run_id} is {state.status}; only a run awaiting approval or paused can be approved"
            )
        plan = Plan.model_validate(state.plan)
        current = plan.plan_hash()
        if plan_hash is not None and not (len(plan_hash) >= 8 and current.startswith(plan_hash)):
            raise UserError(
                f"run {run_id}: the plan changed since it was reviewed (current hash "
                f"{current[:12]}, approved {plan_hash[:12]}); review it again with "
                f"`forethought show {run_id}`"
            )
        known = {s.id for s in plan.iter_all_steps()}
        unknown = [sid for sid in steps if sid not in known]
        if unknown:
            raise UserError(f"run {run_id}: no step {unknown[0]!r} in the current plan")
        grant = Approval.grant(plan, specs, approver=approver, steps=steps, run_id=run_id)
        return [
            {
                "cls": E.ApprovalDecided,
                "plan_hash": grant.plan_hash,
                "decision": "approved",
                "approver": grant.approver,
                "note": note,
            },
            {"cls": E.PlanApproved, **grant.event_fields()},
        ]

    return append_under_lease(store, run_id, build)


def approval_gate(
    events: Sequence[Event],
    specs: Mapping[str, ToolSpec],
    *,
    approve_all: bool = False,
    known: Mapping[str, Plan] | None = None,
    run_id: str | None = None,
) -> Any:
    """The gate a continued run uses: the run's recorded, authentic approvals (or ``--yes-all``).

    ``known`` maps plan hashes to plans the caller already validated, so a 10,000-step plan is
    not validated twice. Approvals count only if signed for ``run_id`` (default: the run the
    events name).
    """
    if approve_all:
        return ApproveAll()
    by_hash = dict(known or {})
    plans = list(by_hash.values())
    for e in events:
        if isinstance(e, (E.PlanProposed, E.PlanRevised)) and e.plan_hash not in by_hash:
            by_hash[e.plan_hash] = Plan.model_validate(e.plan)
            plans.append(by_hash[e.plan_hash])
    versions = {h: p.version for h, p in by_hash.items()}
    approvals = [recorded_approval(e, versions, run_id) for e in events if isinstance(e, E.PlanApproved)]
    return ApprovalGate(plans, approvals, specs)
