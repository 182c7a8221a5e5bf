"""A human's review of steps that were interrupted (running when the run stopped).

A step that was running at a crash and is not idempotent is not run again on its own: someone
checks whether it took effect and records that here, before the run is resumed. The same
``--retry`` names a step that failed for good: a person's decision to run it once more.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from forethought.errors import UserError
from forethought.events import kinds as E
from forethought.events.kinds import Event
from forethought.events.state import RunState
from forethought.execution._parts import ApproveAll, Gate
from forethought.plan.model import Plan, Step
from forethought.runs.approval import approval_gate
from forethought.runs.leases import append_under_lease
from forethought.runs.store.base import Store
from forethought.tools.base import ToolSpec


@dataclass(frozen=True)
class InterruptedStepsReview:
    """A human's decision about steps that were running when the run stopped.

    ``succeeded`` maps a step id to the output to record (the human checked it took effect);
    ``retry`` lists steps to run again (the human checked it did not).
    """

    succeeded: Mapping[str, Any] = field(default_factory=dict)
    retry: Iterable[str] = ()


_INTERRUPTED = ("needs_review", "running", "cancelled")


def review_events(state: RunState, review: InterruptedStepsReview, reviewer: str) -> list[dict[str, Any]]:
    """The events recording a person's review: ``succeeded`` for interrupted steps that took
    effect; ``retry`` re-opens interrupted steps and steps that failed for good (a ``step_ready``
    with ``retry_by``, which a side-effecting step's fresh approval must follow)."""
    out: list[dict[str, Any]] = []
    for sid, allowed in [
        *((sid, _INTERRUPTED) for sid in review.succeeded),
        *((sid, (*_INTERRUPTED, "failed")) for sid in review.retry),
    ]:
        st = state.steps.get(sid)
        if st is None:
            raise UserError(f"step {sid!r} is not in run {state.run_id}; check the step id")
        if st.status not in allowed:
            raise UserError(
                f"step {sid!r} of run {state.run_id} is {st.status}, not awaiting "
                "review; only steps that were interrupted can be marked, and only those or "
                "steps that failed can be retried"
            )
    for sid, output in review.succeeded.items():
        out.append(
            {
                "cls": E.StepSucceeded,
                "step_id": sid,
                "attempt": max(state.steps[sid].attempts, 1),
                "output": output,
            }
        )
    for sid in review.retry:
        out.append({"cls": E.StepReady, "step_id": sid, "retry_by": reviewer})
    return out


def retry_decisions(events: Iterable[Event]) -> dict[str, int]:
    """Step id → seq of the latest recorded decision of a person to run it again."""
    return {e.step_id: e.seq for e in events if isinstance(e, E.StepReady) and e.retry_by}


class FreshApprovalGate:
    """A gate for a run with retried steps: a retried step that needs approval also needs one
    recorded after the retry decision (an approval given before it covered the earlier call)."""

    def __init__(self, base: Gate, fresh: Mapping[str, Gate]) -> None:
        self._base = base
        self._fresh = dict(fresh)

    def allows(self, step: Step, spec: ToolSpec | None) -> bool:
        fresh = self._fresh.get(step.id)
        return self._base.allows(step, spec) and (fresh is None or fresh.allows(step, spec))


def fresh_approval_gate(
    base: Gate, events: Sequence[Event], specs: Mapping[str, ToolSpec], known: Mapping[str, Plan]
) -> Gate:
    """``base``, plus: each retried step needs an approval recorded after its retry decision."""
    decisions = retry_decisions(events)
    if not decisions or isinstance(base, ApproveAll):
        return base
    by_seq: dict[int, Gate] = {}
    for seq in set(decisions.values()):
        later = [e for e in events if not (isinstance(e, E.PlanApproved) and e.seq < seq)]
        by_seq[seq] = approval_gate(later, specs, known=known)
    return FreshApprovalGate(base, {sid: by_seq[seq] for sid, seq in decisions.items()})


def record_review(
    store: Store, run_id: str, review: InterruptedStepsReview, reviewer: str = "operator"
) -> list[Event]:
    """Record a human's review of interrupted steps (see ``InterruptedStepsReview``) before resuming."""
    return append_under_lease(store, run_id, lambda st: review_events(st, review, reviewer))
