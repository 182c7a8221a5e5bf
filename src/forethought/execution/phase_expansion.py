"""Planning a phase while the run goes on: ask for its sub-plan, splice it in, install it.

A phase step (``phase: {goal, tools, max_steps}``) calls nothing itself. When it becomes ready
it runs like any step — in a worker task, so the other ready branches of the plan keep running
while its planner thinks — and what it does is this:

1. ask the run's ``PhasePlanner`` (the agent's planner model, or a replay's record) for the
   sub-plan, with the plan and the run's state in view;
2. splice the sub-plan into the *current* plan (another phase may have been spliced in
   meanwhile) with ``plan.phases.splice_phase``, which enforces the phase's tools and
   ``max_steps``; validate the result like any plan version;
3. record it as the next version (``plan_revised`` naming the phase), let the planner's side
   ``admit`` it (the approval gate learns of it; a policy may approve it), and schedule it: the
   sub-steps start as their dependencies allow and the approval gate decides for each.

Nothing is recorded for the phase step before its version is: a run killed while a phase is
planned resumes with the phase still pending and plans it again; once the version is recorded,
a resume runs that version and never plans the phase again. A sub-plan that cannot be used fails
the phase step with one line naming the phase and why, and its ``on_failure`` applies.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

from pydantic import ValidationError

from forethought.events import kinds as E
from forethought.execution.context import RunContext
from forethought.execution.outcomes import SUCCEEDED, Failed, Outcome
from forethought.plan.model import Plan, Step
from forethought.plan.phases import PhaseExpansionError, splice_phase


class PhaseScheduler(Protocol):
    """What phase expansion needs from the scheduler."""

    def stopping(self) -> bool:
        """The run is stopping or failed: a sub-plan that arrives now is not installed."""
        ...

    def splice_in(self, plan: Plan, phase_id: str, reason: str) -> str | None:
        """Record and install ``plan`` in place of phase ``phase_id``; why not, or None."""
        ...


async def expand_phase(run: RunContext, step: Step, scheduler: PhaseScheduler) -> Outcome:
    """Plan phase ``step``, splice its sub-plan in as the next plan version; its outcome."""
    sid = step.id
    planner = run.phase_planner
    if planner is None:
        return _fail(
            run,
            sid,
            f"phase {sid!r} cannot be planned: no phase planner is configured "
            "(run the plan through an Agent, or pass ExecutorOptions(phase_planner=...))",
        )
    assert run.plan is not None
    # Write-ahead, as for a tool call: the planner sees only results that are durable, so a
    # resumed run plans the phase from the same record (and a recorded version follows them).
    await run.until_durable(run.seq - 1)
    try:
        sub_plan = await planner.plan_phase(run.plan, step, run.state)
    except Exception as exc:
        return _fail(run, sid, f"phase {sid!r}: planning its sub-plan failed: {_one_line(exc)}")
    if scheduler.stopping():
        # The run stopped while the planner answered: nothing is recorded, the phase stays
        # pending (a resume plans it again). Cancelled like any step the stop cut off.
        raise asyncio.CancelledError
    current = run.plan
    assert current is not None
    try:
        new = splice_phase(current, sid, sub_plan)
    except (PhaseExpansionError, ValidationError, KeyError, ValueError) as exc:
        return _fail(run, sid, f"phase {sid!r}: its sub-plan cannot be used: {_one_line(exc)}")
    reason = (
        f"phase {sid!r} planned: {len(sub_plan.steps)} step(s) "
        f"({', '.join(s.id for s in new.steps if s.id.startswith(sid + '__'))})"
    )
    problem = scheduler.splice_in(new, sid, reason)
    if problem is not None:
        return _fail(run, sid, f"phase {sid!r}: {problem}")
    return SUCCEEDED


def _fail(run: RunContext, sid: str, message: str) -> Failed:
    run.emit(E.StepFailed, step_id=sid, attempt=0, error=message, failure_class="error")
    return Failed("error", message, False)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 400 else text[:397] + "..."
