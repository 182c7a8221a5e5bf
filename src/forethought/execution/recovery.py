"""Recovery after a failure: replanning (plan vN+1) and rollback (compensations, rollback steps).

Both run only when the scheduler is quiescent (no step running), so they can read and replace the
executor's plan and state without racing the hot path. They are functions over an ``Executor``
rather than methods so that ``executor.py`` stays the scheduling algorithm.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from forethought.errors import ToolError
from forethought.events import kinds as E
from forethought.execution._parts import needs_approval, normalize_output
from forethought.execution._steps import TOOL_FAILURES, classify, plan_record, spec_of
from forethought.execution.attempts import attempts
from forethought.plan.references import ReferenceError_, resolve
from forethought.tools.base import ToolContext

if TYPE_CHECKING:
    from forethought.execution.executor import Executor


async def replan(ex: Executor) -> None:
    """Ask the replanner for plan vN+1 after a `replan` failure; install it or give up."""
    assert ex._replanner is not None and ex._plan is not None
    failures, ex._replan_queue = ex._replan_queue, []
    first = failures[0]
    info = {**first, "failed_steps": [f["step_id"] for f in failures]}
    reason = f"step {first['step_id']!r} failed ({first['failure_class']}): {first['error']}"
    if ex.state.replans >= ex._max_replans:
        give_up(ex, f"{reason}; no replan left (max_replans={ex._max_replans})")
        return
    ex._emit(E.ReplanRequested, step_id=first["step_id"], reason=reason)
    try:
        new = await ex._replanner(ex._plan, ex.state, info)
    except Exception as exc:
        give_up(ex, f"{reason}; the replanner failed: {type(exc).__name__}: {exc}")
        return
    if new is None:
        give_up(ex, f"{reason}; the replanner returned no revised plan")
        return
    old = ex._plan
    if new.version <= old.version:
        new = new.model_copy(update={"version": old.version + 1,
                                     "parent_version": old.version})
    from forethought.plan.diff import diff_plans
    from forethought.plan.validation import validate_plan

    problems = validate_plan(new, {n: t.spec for n, t in ex._tools.items()})
    if problems:
        give_up(ex, f"{reason}; revised plan v{new.version} is invalid: {problems[0]}")
        return
    diff = diff_plans(old, new)
    for sid in diff.changed:
        ex._keys[sid] = f"{ex.run_id}:{sid}:v{new.version}"
    ex._plan = new
    data, digest = plan_record(new)
    ex._plan_hash = digest
    ex._emit(E.PlanRevised, old_version=old.version, new_version=new.version, plan=data,
             plan_hash=digest, diff=diff.to_dict(), reason=reason)
    ex._halted = False
    ex._blocked.clear()
    ex._install(new)


def give_up(ex: Executor, reason: str) -> None:
    ex._fatal = reason
    ex._halt(f"run failed: {reason}", skip=True)


async def rollback(ex: Executor) -> None:
    """Compensate completed steps in reverse completion order, then run the plan's rollback."""
    if ex._rollback_after is None or ex._stop is not None:
        return
    outputs = ex.state.outputs
    for sid in reversed(list(ex.state.completion_order)):
        step = ex._every_step.get(sid)
        if step is None or step.compensate is None or sid in ex.state.compensations:
            continue
        call = step.compensate
        try:
            args = resolve(call.args, outputs)
        except ReferenceError_ as exc:
            ex._emit(E.CompensationFailed, step_id=sid, error=f"reference {exc}")
            continue
        ex._emit(E.CompensationStarted, step_id=sid, tool=call.tool, args=args)
        tool = ex._tools.get(call.tool)
        try:
            if tool is None:
                raise ToolError(f"unknown compensation tool {call.tool!r}")
            ctx = ToolContext(run_id=ex.run_id, step_id=sid,
                              idempotency_key=f"{ex.run_id}:{sid}:compensate")
            async with asyncio.timeout(tool.spec.timeout_s):
                output = normalize_output(await ex._backends["local"].call(tool, args, ctx))
        except TOOL_FAILURES as exc:
            limit = tool.spec.timeout_s if tool is not None else None
            ex._emit(E.CompensationFailed, step_id=sid, error=classify(exc, limit)[1])
            continue
        ex._emit(E.CompensationSucceeded, step_id=sid, output=output)
    ex._halted = False
    ex._cancelling = False
    ex._cancel_reason = "cancelled"
    for step in ex._plan.rollback if ex._plan else ():
        spec = spec_of(ex._tools, step)
        if needs_approval(step, spec) and not ex._gate.allows(step, spec):
            ex._emit(E.StepSkipped, step_id=step.id, reason="rollback step not approved")
            continue
        await attempts(ex, step, rollback=True)
