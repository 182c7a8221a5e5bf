"""What a replay must reproduce, and the recorded interventions it re-enacts at their positions.

A run's events come from two kinds of author. The scheduler (steps starting, succeeding,
failing, being skipped or cancelled, replans adopted, rollbacks, the final status) reproduces
them by itself when its tools answer as recorded. Collaborators outside the scheduler add the
rest at moments of their own choosing: the supervisor pauses a run on a budget breach, a
streaming planner adds steps and closes the plan, the agent records planner calls, approvals and
validations while a streamed run goes on. A replay has no live supervisor or planner, so the
``Director`` re-enacts each of those at exactly the position the record has it — after the same
preceding events — which makes the replayed events equal to the recorded ones, interleaving
included.

``execution_events`` cuts a log down to what its execution did (the preamble of planning,
validation and review is not re-executed by a replay), ``normalized`` drops what differs between
two executions by nature (time stamps, durations, sequence numbers, the run id), and
``compare_events`` lists the differences.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from forethought.events import kinds as E
from forethought.events.kinds import Event
from forethought.execution.recovery import REPLANNER_RAISED
from forethought.oversight.supervisor import Breach, Budgets, Supervisor
from forethought.plan.model import Plan, Step
from forethought.planning.stepwise import STOP_PREFIX

# Fields that measure time, not behaviour. ``retry_in_s`` carries the retry policy's random
# jitter, drawn afresh by each execution.
_TIMING = frozenset({"ts", "seq", "run_id", "duration_s", "latency_s", "retry_in_s"})
# Events a replay does not reproduce: OS process ids of command tools (no process is started).
_NOT_REPLAYED = frozenset({"step_process"})
# A safety net, not a synchronization: how long a stand-in waits for its recorded turn before
# the replay is declared diverged (a replay that follows its record never waits this long).
STALL_S = 10.0
# What an executor that continues a planned, reviewed run (the Agent's) or starts a given plan
# emits or is handed before its steps run.
_PREAMBLE = frozenset(
    {
        "run_created",
        "model_called",
        "plan_proposed",
        "plan_validated",
        "approval_requested",
        "approval_decided",
        "plan_approved",
    }
)


def is_streamed(events: Sequence[Event]) -> bool:
    """The run's plan streamed in while it ran: no plan was proposed before its steps came."""
    for e in events:
        if isinstance(e, E.PlanProposed):
            return False
        if isinstance(e, E.StepsAdded):
            return True
    return False


def execution_start(events: Sequence[Event]) -> int | None:
    """Index of the first event the run's (first) execution produced, or None if nothing ran.

    A streamed run's executor created the run: everything after ``run_created`` is execution.
    Otherwise the leading planning, validation and review events (and the ``execution_started``
    with which an executor takes over the Agent's preamble; ``run_resumed`` in records made
    before that event existed) are not.
    """
    if not events:
        return None
    if is_streamed(events):
        return 1
    i = 0
    while i < len(events) and events[i].kind in _PREAMBLE:
        i += 1
    if i < len(events) and isinstance(events[i], (E.ExecutionStarted, E.RunResumed)):
        return i + 1
    if i >= len(events) or isinstance(events[i], E.RunFinished):
        return None  # planned and reviewed, but stopped before executing
    return i


def spent_before(events: Sequence[Event]) -> tuple[int, int, float]:
    """Tokens in, tokens out and cost of the model calls before the run's execution began."""
    start = execution_start(events)
    calls = [e for e in events[: start or 0] if isinstance(e, E.ModelCalled)]
    return (
        sum(c.input_tokens for c in calls),
        sum(c.output_tokens for c in calls),
        sum(c.cost_usd for c in calls),
    )


def execution_events(events: Sequence[Event]) -> list[Event]:
    """The events of the run's execution: what a replay must reproduce."""
    start = execution_start(events)
    return [] if start is None else [e for e in events[start:] if e.kind not in _NOT_REPLAYED]


def normalized(event: Event, run_id: str) -> dict[str, Any]:
    """The event's kind and payload without timing, sequence or run identity."""
    data = event.model_dump(mode="json")
    for key in _TIMING:
        data.pop(key, None)
    ikey = data.get("idempotency_key")
    if isinstance(ikey, str) and ikey.startswith(run_id + ":"):
        data["idempotency_key"] = "<run>" + ikey[len(run_id) :]
    return data


_STEP_KINDS = frozenset(
    {
        "step_ready",
        "step_started",
        "step_succeeded",
        "step_failed",
        "step_skipped",
        "step_cancelled",
        "step_needs_review",
        "check_failed",
        "compensation_started",
        "compensation_succeeded",
        "compensation_failed",
        "tool_called",
        "model_called",
    }
)


def lane(event: Event) -> str | None:
    """The step whose own history ``event`` belongs to; None for the run's own events."""
    return getattr(event, "step_id", None) if event.kind in _STEP_KINDS else None


def canonical(events: Sequence[Event]) -> list[Event]:
    """``events`` with each stretch of step events between two run events ordered by step
    (each step's own events keep their order).

    How the events of steps running at the same time interleave is event-loop scheduling (which
    call the loop resumes first, the order one halt's cancellations are written), not
    behaviour: two executions are the same when each step's history is, the run's own events
    are, and every run event (a budget pause, a plan revision, the end) falls between the same
    step events. Comparing canonical forms position by position checks exactly that.
    """
    out: list[Event] = []
    stretch: list[Event] = []

    def flush() -> None:
        ordered: list[Event] = sorted(stretch, key=_lane_key)  # stable: a step's order is kept
        out.extend(ordered)
        stretch.clear()

    for e in events:
        if lane(e) is None:
            flush()
            out.append(e)
        else:
            stretch.append(e)
    flush()
    return out


def _lane_key(event: Event) -> str:
    return lane(event) or ""


def compare_events(
    recorded: Sequence[Event], recorded_run: str, replayed: Sequence[Event], replayed_run: str, limit: int = 5
) -> list[str]:
    """Differences between two execution logs, position by position in their ``canonical``
    forms (empty when they are the same execution)."""
    recorded, replayed = canonical(recorded), canonical(replayed)
    diffs: list[str] = []
    for i, (a, b) in enumerate(zip(recorded, replayed, strict=False)):
        na, nb = normalized(a, recorded_run), normalized(b, replayed_run)
        if na != nb:
            fields = sorted(k for k in set(na) | set(nb) if na.get(k) != nb.get(k))
            diffs.append(
                f"event {i}: recorded {_label(a)}, replayed {_label(b)}"
                + (f" (differs in {', '.join(fields)})" if a.kind == b.kind else "")
            )
            if len(diffs) >= limit:
                return diffs
    if len(recorded) != len(replayed):
        extra = recorded[len(replayed) :] if len(recorded) > len(replayed) else replayed[len(recorded) :]
        where = "record" if len(recorded) > len(replayed) else "replay"
        diffs.append(
            f"{len(extra)} more event(s) in the {where}, from {_label(extra[0])} "
            f"({len(recorded)} recorded, {len(replayed)} replayed)"
        )
    return diffs


def same_order(
    recorded: Sequence[Event], recorded_run: str, replayed: Sequence[Event], replayed_run: str
) -> bool:
    """The two logs are identical position by position, interleaving included."""
    return len(recorded) == len(replayed) and all(
        normalized(a, recorded_run) == normalized(b, replayed_run)
        for a, b in zip(recorded, replayed, strict=True)
    )


def _label(e: Event) -> str:
    sid = getattr(e, "step_id", None)
    return e.kind + (f"({sid})" if sid else "")


# ------------------------------------------------------------------------------------ director


def _is_intervention(e: Event, *, plan_open: bool) -> bool:
    """Recorded events a collaborator outside the scheduler added (re-enacted by the Director)."""
    match e:
        case E.BudgetExceeded() | E.PlanValidated() | E.PlanApproved():
            return True
        case E.StepsAdded():
            return True
        case E.PlanProposed():
            return plan_open  # a streamed plan's close
        case E.ModelCalled(step_id=None):
            return True  # planner calls: streamed plan, replans, coverage repairs
        case E.ReplanRequested(reason=str() as reason):
            # the replanner's own record: a failed planning round, or the replanner's model failing
            return reason.startswith(("replanning failed", REPLANNER_RAISED))
        case E.PlanRevised(reason=str() as reason):
            return reason.startswith(E.STEPWISE_REVISION)  # a step-wise decision's plan version
    return False


@dataclass
class Director:
    """Re-enacts the recorded interventions at their recorded positions in a replay.

    ``after(event)`` is called once each replayed event is fully emitted (see ``replay``): when
    the next recorded event is an intervention, the director performs it there and then — in the
    same synchronous turn, as the live collaborator did — so the replay's events stay aligned
    with the record's.
    """

    record: Sequence[Event]
    """The recorded execution events (``execution_events``)."""
    skip: int
    """Leading events the replaying executor emits that are not part of the execution."""
    executor: Any = None
    budgets: Budgets | None = None
    final: E.RunFinished | None = None
    plan_open: bool = False
    """The replay started with a plan still streaming (closed by a recorded ``plan_proposed``)."""
    record_run: str = ""
    replay_run: str = ""
    carried: tuple[int, int, float] = (0, 0, 0.0)
    """Input and output tokens and cost the run spent before its execution (planning): the
    live supervisor counted them, the replaying executor does not have them."""
    notes: list[str] = field(default_factory=list)
    replayed: list[Event] = field(default_factory=list)
    diverged_at: int | None = None
    """The first position whose replayed event differs from the recorded one (pacing stops)."""
    _pos: int = 0
    _index: dict[int, int] = field(default_factory=dict)
    _waiters: dict[int, list[asyncio.Future[None]]] = field(default_factory=dict)
    _lanes: dict[str | None, list[dict[str, Any]]] = field(default_factory=dict)
    _cursors: dict[str | None, int] = field(default_factory=dict)
    _acting: bool = False
    _closing: bool = False

    def __post_init__(self) -> None:
        self._index = {e.seq: i for i, e in enumerate(self.record)}
        for e in self.record:  # each step's history, and the run's own, to check as it comes
            self._lanes.setdefault(lane(e), []).append(normalized(e, self.record_run))

    async def until(self, seq: int | None) -> None:
        """Wait until the replay has emitted every event recorded before event ``seq``.

        Stand-ins answer through this, so calls that overlapped finish in their recorded
        order. No wait once the replay has diverged (the order is lost anyway) or for an event
        outside the compared execution.
        """
        index = self._index.get(seq) if seq is not None else None
        if index is None or self.diverged_at is not None or self._pos >= index:
            return
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._waiters.setdefault(index, []).append(future)
        # Awaited directly (not through ``wait_for``): the stand-in then answers in the very
        # next loop turn after its predecessor event, before work the scheduler spawns later.
        stall = loop.call_later(STALL_S, self._stalled, future)
        try:
            await future
        finally:
            stall.cancel()

    def _stalled(self, future: asyncio.Future[None]) -> None:
        """Nothing the replay does produces the recorded event due next: it has diverged. Give
        up the order rather than wait for ever; the comparison reports the rest."""
        if future.done():
            return
        if self.diverged_at is None:
            self.diverged_at = self._pos
            due = self.record[self._pos] if self._pos < len(self.record) else None
            self.notes.append(
                f"replay stalled at event {self._pos}" + (f", waiting for recorded {due.kind}" if due else "")
            )
        self._release(all_waiters=True)

    def after(self, event: Event) -> None:
        if self.skip > 0:
            # The replay's own start. The record may begin with an intervention (a streamed
            # plan's first steps): as live, it comes once the executor has started and waits,
            # not while it is still setting up.
            self.skip -= 1
            if self.skip == 0:
                asyncio.get_running_loop().call_soon(self._kick)
            return
        if event.kind in _NOT_REPLAYED:
            return
        self._count(event)
        self._kick()
        self._release()

    def _kick(self) -> None:
        if self._acting or self.executor is None:
            return
        self._acting = True
        try:
            self._act()
        finally:
            self._acting = False

    def _count(self, event: Event) -> None:
        self.replayed.append(event)
        pos = self._pos
        key = lane(event)
        expected = self._lanes.get(key, [])
        cursor = self._cursors.get(key, 0)
        self._cursors[key] = cursor + 1
        if self.diverged_at is None and (
            cursor >= len(expected) or normalized(event, self.replay_run) != expected[cursor]
        ):
            self.diverged_at = pos
            self._release(all_waiters=True)
        self._pos = pos + 1

    def _release(self, *, all_waiters: bool = False) -> None:
        for index in sorted(self._waiters) if all_waiters else [self._pos]:
            for future in self._waiters.pop(index, ()):
                if not future.done():
                    future.set_result(None)

    def _act(self) -> None:
        while True:
            while self._pos < len(self.record):
                due = self.record[self._pos]
                if not _is_intervention(due, plan_open=self.plan_open):
                    break
                before = self._pos
                self._perform(due)
                if self._pos == before:  # performed without an event: do not loop on it
                    self.notes.append(f"could not re-enact recorded {due.kind} at event {before}")
                    return
            if not self._closing:
                return
            self._closing = False
            self._finish_close()

    def _perform(self, due: Event) -> None:
        ex = self.executor
        match due:
            case E.BudgetExceeded():
                self._budget(due)
            case E.StepsAdded():
                ex.extend([Step.model_validate(s) for s in due.steps])
            case E.PlanProposed():
                closed = Plan.model_validate(due.plan)
                ex.close_plan(rollback=closed.rollback, release=False, version=closed.version)
                self.plan_open = False
                self._closing = True
            case E.PlanApproved() if self.plan_open:
                # A step-wise decision's approval: its step may start now, as it did live.
                ex.record(E.PlanApproved, **event_fields(due))
                ex.reconsider()
            case E.PlanValidated():
                ex.record(E.PlanValidated, **event_fields(due))
                if due.problems:
                    ex.stop("failed", f"invalid plan: {due.problems[0]}")
                    self._closing = False
            case _:
                ex.record(type(due), **event_fields(due))

    def _budget(self, due: E.BudgetExceeded) -> None:
        """Apply the recorded budgets to the replayed events so far; pause or abort here."""
        breach = self._breach_now()
        if breach is None or breach.budget != due.budget:
            # Wall time is not re-measured; a run without recorded budgets cannot be checked.
            if self.budgets is not None and not due.budget.startswith("max_wall_s"):
                found = f"{breach.budget} exceeded" if breach is not None else "no breach"
                self.notes.append(
                    f"the recorded budgets give {found} where the record has {due.budget} exceeded"
                )
            breach = Breach(due.budget, due.limit, due.used, due.action)
        self.executor.record(
            E.BudgetExceeded, budget=breach.budget, limit=breach.limit, used=breach.used, action=breach.action
        )
        self.executor.stop("paused" if breach.action == "pause" else "failed", breach.reason)

    def _breach_now(self) -> Breach | None:
        if self.budgets is None:
            return None
        # The live supervisor handles the events it has not seen yet in one batch, against the
        # run state of that moment: the same as every replayed event against the state now.
        supervisor = Supervisor(self.budgets.model_copy(update={"max_wall_s": None}))
        now = self.executor.state
        tokens_in, tokens_out, cost = self.carried
        state = dataclasses.replace(
            now,
            input_tokens=now.input_tokens + tokens_in,
            output_tokens=now.output_tokens + tokens_out,
            cost_usd=now.cost_usd + cost,
        )
        for event in self.replayed:
            if isinstance(event, E.BudgetExceeded):
                continue
            breach = supervisor.observe(event, state)
            if breach is not None:
                return breach
        return None

    def _finish_close(self) -> None:
        """After a streamed plan was closed, checked and approved: stop as the record says, or
        let the steps that waited for the complete plan start."""
        final = self.final
        if (
            final is not None
            and final.status == "awaiting_approval"
            and final.reason.startswith("plan does not cover the goal")
        ):
            self.executor.stop("awaiting_approval", final.reason)
            return
        if final is not None and final.status != "succeeded" and final.reason.startswith(STOP_PREFIX):
            # A step-wise run's driver closed the plan and stopped the run there.
            self.executor.stop(final.status, final.reason)
            return
        self.executor.reconsider()


def event_fields(event: Event) -> dict[str, Any]:
    """An event's payload (no run id, sequence, time or kind), to record it again in a replay."""
    data = dict(event.__dict__)
    for key in ("run_id", "seq", "ts", "plan_version", "kind"):
        data.pop(key, None)
    return data


__all__ = [
    "Director",
    "canonical",
    "compare_events",
    "event_fields",
    "execution_events",
    "execution_start",
    "is_streamed",
    "lane",
    "normalized",
    "same_order",
    "spent_before",
]
