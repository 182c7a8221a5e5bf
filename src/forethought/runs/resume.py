"""Resume a stored run: completed steps keep their outputs and are never run again."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Mapping, Sequence

from forethought.errors import UserError
from forethought.events.kinds import Event
from forethought.events.state import RunState, fold
from forethought.execution.backends.base import Backend
from forethought.execution.executor import (
    Executor,
    ExecutorOptions,
    recorded_failure,
    rollback_finished,
)
from forethought.plan.model import Plan
from forethought.runs.approval import approval_gate
from forethought.runs.integrity import refuse_if_modified
from forethought.runs.leases import DEFAULT_LEASE_TTL_S, append_under_lease
from forethought.runs.recording import execute_recorded
from forethought.runs.review import InterruptedStepsReview, fresh_approval_gate, review_events
from forethought.runs.run_ids import resolve_run_id
from forethought.runs.store.base import Store
from forethought.runs.store.recorder import OnCommit
from forethought.runs.store.sqlite import new_owner_id
from forethought.tools.base import Tool


class NothingToResume(UserError):
    """The run failed for good and its rollback (if any) finished: resuming would run nothing."""

    exit_code = 1


def _refuse_finished_failure(run_id: str, events: Sequence[Event], plan: Plan, state: RunState) -> None:
    """A run that failed for good and finished its rollback is over: say so, run nothing."""
    sid = recorded_failure(events, plan, state)
    if sid is None:
        return
    rolled_back = plan.step(sid).on_failure == "rollback"
    if rolled_back and not rollback_finished(plan, state):
        return  # the rollback was interrupted: its unfinished part runs
    how = " and was rolled back" if rolled_back else ""
    raise NothingToResume(
        f"run {run_id} failed at step {sid!r}{how}; nothing to resume — "
        f"`forethought resume {run_id} --retry {sid}` runs {sid} again"
    )


async def resume_run(
    store: Store,
    run_id: str,
    tools: Mapping[str, Tool],
    options: ExecutorOptions | None = None,
    *,
    approve_all: bool = False,
    review: InterruptedStepsReview | None = None,
    reviewer: str = "operator",
    owner: str | None = None,
    lease_ttl_s: float = DEFAULT_LEASE_TTL_S,
    on_commit: OnCommit | None = None,
    on_executor: Callable[[Executor], None] | None = None,
    backend_factories: Mapping[str, Callable[[], Backend]] | None = None,
    plan_open: bool = False,
) -> RunState:
    """Continue a stored run: completed steps keep their outputs and are never run again.

    ``plan_open``: the plan grows while the run goes on (a step-wise run: the caller extends
    and closes it, ``execution.stepwise``).

    Raises ``LeaseHeld`` when another live process is driving the run.
    """
    run_id = resolve_run_id(store, run_id)
    owner = owner or new_owner_id()
    # Take the lease before reading: the events we fold must be the last word on the run.
    await asyncio.to_thread(store.acquire_lease, run_id, owner, lease_ttl_s)
    try:
        await asyncio.to_thread(refuse_if_modified, store, run_id)  # edited/trimmed/spliced record
        events = await asyncio.to_thread(store.events, run_id)
        state = fold(events)
        plan = Plan.model_validate(state.plan) if state.plan else None
        if state.status == "succeeded":
            raise UserError(
                f"run {run_id} already succeeded; nothing to resume "
                "(`forethought replay` re-executes it from the record)"
            )
        if plan is None:
            raise UserError(f"run {run_id} has no recorded plan, so it cannot be resumed")
        missing = sorted(
            {
                s.tool
                for s in plan.iter_all_steps()
                if s.tool and s.tool not in tools and state.step(s.id).status != "succeeded"
            }
        )
        if missing:
            raise UserError(
                f"run {run_id} still needs tool(s) {', '.join(missing)}; pass the "
                "--tools file(s) that define them"
            )
        if review is not None and (review.succeeded or list(review.retry)):
            stamped = await asyncio.to_thread(
                append_under_lease,
                store,
                run_id,
                lambda st: review_events(st, review, reviewer),
                owner=owner,
                ttl_s=lease_ttl_s,
            )
            await asyncio.to_thread(store.acquire_lease, run_id, owner, lease_ttl_s)
            events = [*events, *stamped]
            state = fold(events)
        _refuse_finished_failure(run_id, events, plan, state)
        specs = {name: t.spec for name, t in tools.items()}
        opts = options if options is not None else ExecutorOptions()
        known = {state.plan_hash: plan}
        if opts.gate is None:
            opts = dataclasses.replace(
                opts,
                gate=approval_gate(events, specs, approve_all=approve_all, known=known, run_id=run_id),
            )
        if not approve_all:  # a retried step with side effects needs an approval given after it
            assert opts.gate is not None
            opts = dataclasses.replace(opts, gate=fresh_approval_gate(opts.gate, events, specs, known))
        return await execute_recorded(
            store,
            plan,
            tools,
            opts,
            prior_events=events,
            on_commit=on_commit,
            owner=owner,
            lease_ttl_s=lease_ttl_s,
            on_executor=on_executor,
            backend_factories=backend_factories,
            plan_open=plan_open,
        )
    finally:
        # execute_recorded released it already on the normal path; this covers early errors.
        await asyncio.to_thread(store.release_lease, run_id, owner)
