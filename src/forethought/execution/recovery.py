"""Recovery after a failure: replanning (plan vN+1) and rollback (compensations, rollback steps).

This module's one responsibility is what happens once the scheduler has given up on the plan as
it stands: ask the replanner for a revised plan and install it, or undo completed steps in
reverse order and run the plan's rollback steps. Both run only when the scheduler is quiescent
(no step running), so they can replace the plan and read the state without racing the hot path.
They share the event stream, tools and keys through the ``RunContext``; the few scheduler
operations they need (install a plan, give up, reopen after a halt, ask the gate) are the
``Scheduler`` protocol, which the executor implements — recovery never sees its internals.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol

from forethought.errors import ToolError
from forethought.events import kinds as E
from forethought.execution._parts import needs_approval, normalize_output
from forethought.execution._steps import TOOL_FAILURES, classify, plan_record, secret_env, spec_of
from forethought.execution.attempts import attempts
from forethought.execution.context import RunContext
from forethought.plan.model import Plan, Step
from forethought.plan.references import ReferenceResolutionError, resolve
from forethought.tools.base import ToolContext, ToolSpec


class Scheduler(Protocol):
    """The scheduler operations recovery needs, and nothing else."""

    def take_replan_requests(self) -> list[dict[str, Any]]:
        """The failures that asked for a replan since the last one (the queue is emptied)."""
        ...

    def install(self, plan: Plan) -> None:
        """Schedule ``plan`` (already ``RunContext.plan``) from the current state; lift a halt."""
        ...

    def give_up(self, reason: str) -> None:
        """Fail the run with ``reason``: cancel running steps, skip the rest."""
        ...

    def rollback_due(self) -> bool:
        """A step with ``on_failure: rollback`` failed, and nobody stopped the run meanwhile."""
        ...

    def step_ever(self, step_id: str) -> Step | None:
        """A step of any plan version of this run (compensations cover retired steps too)."""
        ...

    def reopen(self) -> None:
        """Lift the halt so that rollback steps may run (they are started by recovery)."""
        ...

    def approved(self, step: Step, spec: ToolSpec | None) -> bool:
        """Whether the approval gate lets ``step`` run now."""
        ...

    def denial(self, step: Step) -> str:
        """Why the gate just refused ``step`` (one line)."""
        ...


REPLANNER_RAISED = "replanner raised: "
"""How a ``replan_requested`` event recording that the replanner itself failed begins."""


class RecordedReplannerError(Exception):
    """A replanner failure served from a run's record (replay): its text is the recorded one."""


def replanner_error_text(exc: BaseException) -> str:
    """How a replanner's failure is told: its type and message (a recorded one verbatim)."""
    return str(exc) if isinstance(exc, RecordedReplannerError) else f"{type(exc).__name__}: {exc}"


async def replan(run: RunContext, scheduler: Scheduler) -> None:
    """Ask the replanner for plan vN+1 after a `replan` failure; install it or give up."""
    assert run.replanner is not None and run.plan is not None
    failures = scheduler.take_replan_requests()
    first = failures[0]
    info = {**first, "failed_steps": [f["step_id"] for f in failures]}
    reason = f"step {first['step_id']!r} failed ({first['failure_class']}): {first['error']}"
    if run.state.replans >= run.max_replans:
        scheduler.give_up(f"{reason}; no replan left (max_replans={run.max_replans})")
        return
    run.emit(E.ReplanRequested, step_id=first["step_id"], reason=reason)
    try:
        new = await run.replanner(run.plan, run.state, info)
    except Exception as exc:
        scheduler.give_up(f"{reason}; the replanner failed: {replanner_error_text(exc)}")
        return
    if new is None:
        scheduler.give_up(f"{reason}; the replanner returned no revised plan")
        return
    problem = adopt(run, scheduler, new, reason)
    if problem is not None:
        scheduler.give_up(f"{reason}; {problem}")


def adopt(
    run: RunContext,
    scheduler: Scheduler,
    new: Plan,
    reason: str,
    *,
    phase: str | None = None,
    admit: Callable[[Plan], None] | None = None,
) -> str | None:
    """Install ``new`` as the run's next plan version (``plan_revised``), or say why not.

    Steps already succeeded keep their results when the new version keeps them by id; a changed
    step is a new call and gets a new idempotency key. Shared by the replan after a failure, the
    coverage repair of a streamed plan and a phase's sub-plan (``phase``: its id; ``admit`` hears
    of the recorded version before its steps are scheduled, see ``PhasePlanner.admit``).
    """
    assert run.plan is not None
    old = run.plan
    if new.version <= old.version:
        new = new.model_copy(update={"version": old.version + 1, "parent_version": old.version})
    from forethought.plan.diff import diff_plans
    from forethought.plan.validation import validate_plan

    problems = validate_plan(new, {n: t.spec for n, t in run.tools.items()})
    if problems:
        return f"revised plan v{new.version} is invalid: {problems[0]}"
    diff = diff_plans(old, new)
    for sid in diff.changed:  # a changed step is a new call: it must not reuse the old key
        run.keys[sid] = f"{run.run_id}:{sid}:v{new.version}"
    run.plan = new
    data, digest = plan_record(new)
    run.plan_hash = digest
    run.emit(
        E.PlanRevised,
        old_version=old.version,
        new_version=new.version,
        plan=data,
        plan_hash=digest,
        diff=diff.to_dict(),
        reason=reason,
        phase=phase,
    )
    if admit is not None:
        admit(new)
    scheduler.install(new)
    return None


async def rollback(run: RunContext, scheduler: Scheduler) -> None:
    """Compensate completed steps in reverse completion order, then run the plan's rollback.

    Each compensation and rollback step is a call like any other: the one policy decides whether
    it needs approval and, if so, the gate decides — a compensation is covered by the approval of
    the step that carries it (asked again now: the tools may have changed since that step ran), a
    rollback step by the approval of a plan version containing it. One that is not covered does
    not run: it is recorded (``compensation_failed`` / ``step_skipped``, "not approved: …") and
    the run's reason says the rollback is incomplete.
    """
    if not scheduler.rollback_due():
        return
    state = run.state
    outputs = state.outputs
    refused: list[str] = []
    for sid in reversed(list(state.completion_order)):
        step = scheduler.step_ever(sid)
        if step is None or step.compensate is None or sid in state.compensations:
            continue
        call = step.compensate
        tool = run.tools.get(call.tool)
        if needs_approval(call, tool.spec if tool is not None else None) and not scheduler.approved(
            step, spec_of(run.tools, step)
        ):
            what = f"compensation {call.tool!r} of step {sid!r}"
            run.emit(
                E.CompensationFailed, step_id=sid, error=f"not approved: {what}: {scheduler.denial(step)}"
            )
            refused.append(what)
            continue
        try:
            args = resolve(call.args, outputs, secret_env)
        except ReferenceResolutionError as exc:
            run.emit(E.CompensationFailed, step_id=sid, error=f"reference {exc}")
            continue
        run.emit(E.CompensationStarted, step_id=sid, tool=call.tool, args=args)
        try:
            if tool is None:
                raise ToolError(f"unknown compensation tool {call.tool!r}")
            ctx = ToolContext(
                run_id=run.run_id,
                step_id=sid,
                idempotency_key=f"{run.run_id}:{sid}:compensate",
                workspace=run.workspace,
            )
            async with asyncio.timeout(tool.spec.timeout_s):
                output = normalize_output(await run.backends["local"].call(tool, args, ctx))
        except TOOL_FAILURES as exc:
            limit = tool.spec.timeout_s if tool is not None else None
            run.emit(E.CompensationFailed, step_id=sid, error=classify(exc, limit).message)
            continue
        run.emit(E.CompensationSucceeded, step_id=sid, output=output)
    scheduler.reopen()
    for step in run.plan.rollback if run.plan else ():
        done = state.steps.get(step.id)
        if done is not None and done.status in ("succeeded", "failed", "needs_review"):
            continue  # a finished rollback step is never repeated (resume after a rollback)
        spec = spec_of(run.tools, step)
        if needs_approval(step, spec) and not scheduler.approved(step, spec):
            what = f"rollback step {step.id!r}"
            run.emit(E.StepSkipped, step_id=step.id, reason=f"not approved: {what}: {scheduler.denial(step)}")
            refused.append(what)
            continue
        await attempts(run, step, run.how_to_run(step, spec))
    if refused:
        scheduler.give_up(
            f"{_rollback_cause(run, scheduler)}; rollback incomplete, not approved: {', '.join(refused)}"
        )


def _rollback_cause(run: RunContext, scheduler: Scheduler) -> str:
    """The failure that started the rollback, as the run's reason names it."""
    for sid, st in run.state.steps.items():
        step = scheduler.step_ever(sid)
        if st.status == "failed" and step is not None and step.on_failure == "rollback":
            return f"step {sid!r} failed ({st.failure_class}): {st.error}"
    return "the run failed"
