"""A human's review of steps that were interrupted (running when the run stopped).

A step that was running at a crash and is not idempotent is not run again on its own: someone
checks whether it took effect and records that here, before the run is resumed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from forethought.errors import UserError
from forethought.events import kinds as E
from forethought.events.kinds import Event
from forethought.events.state import RunState
from forethought.runs.leases import append_under_lease
from forethought.runs.store.base import Store


@dataclass(frozen=True)
class InterruptedStepsReview:
    """A human's decision about steps that were running when the run stopped.

    ``succeeded`` maps a step id to the output to record (the human checked it took effect);
    ``retry`` lists steps to run again (the human checked it did not).
    """

    succeeded: Mapping[str, Any] = field(default_factory=dict)
    retry: Iterable[str] = ()


def review_events(state: RunState, review: InterruptedStepsReview, reviewer: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    reviewable = ("needs_review", "running", "cancelled")
    for sid in [*review.succeeded, *review.retry]:
        st = state.steps.get(sid)
        if st is None:
            raise UserError(f"step {sid!r} is not in run {state.run_id}; check the step id")
        if st.status not in reviewable:
            raise UserError(
                f"step {sid!r} of run {state.run_id} is {st.status}, not awaiting "
                "review; only steps that were interrupted can be marked"
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
        out.append(
            {
                "cls": E.StepFailed,
                "step_id": sid,
                "attempt": state.steps[sid].attempts,
                "error": f"reviewed by {reviewer}: did not take effect; retry",
                "failure_class": "crashed",
                "final": True,
            }
        )
    return out


def record_review(
    store: Store, run_id: str, review: InterruptedStepsReview, reviewer: str = "operator"
) -> list[Event]:
    """Record a human's review of interrupted steps (see ``InterruptedStepsReview``) before resuming."""
    return append_under_lease(store, run_id, lambda st: review_events(st, review, reviewer))
