"""Run state is a fold over the run's events: ``fold(events)`` rebuilds it, ``apply`` advances it.

The executor advances its live state with the same ``apply`` that rebuilds a stored run, so the
state a resumed run starts from is, by construction, the state the crashed process had. Nothing but
``apply`` changes a ``RunState``: the objects are plain slotted dataclasses (cheap to update 50,000
times a second) and are to be treated as read-only everywhere else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from forethought.events.kinds import STEPWISE_REVISION, Event, RunStatus, StepStatus

TERMINAL_STEP_STATUSES: frozenset[str] = frozenset(
    {"succeeded", "failed", "skipped", "cancelled", "needs_review"}
)
FINISHED_RUN_STATUSES: frozenset[str] = frozenset({"succeeded", "failed", "cancelled"})


@dataclass(slots=True)
class StepState:
    """What is known about one step. ``started_at`` is the first attempt's start (epoch seconds)."""

    id: str
    status: StepStatus = "pending"
    attempts: int = 0
    output: Any = None
    error: str | None = None
    failure_class: str | None = None
    started_at: float | None = None
    ended_at: float | None = None
    idempotency_key: str = ""
    skip_reason: str | None = None
    # (pid, pgid, start time) of OS processes the step's tool started, for resume's orphan check.
    processes: tuple[tuple[int, int, int], ...] = ()
    # Model calls made for this step (agent-step turns, critic checks), from ``model_called``.
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0

    @property
    def duration_s(self) -> float | None:
        if self.started_at is None or self.ended_at is None:
            return None
        return max(0.0, self.ended_at - self.started_at)


@dataclass(slots=True)
class RunState:
    """Everything the events say about a run; see module docstring for the mutation rule."""

    run_id: str = ""
    goal: str = ""
    status: RunStatus = "running"
    reason: str = ""
    plan: dict[str, Any] | None = None
    plan_version: int = 0
    plan_hash: str = ""
    steps: dict[str, StepState] = field(default_factory=dict)
    # Steps dropped from the plan by a revision (kept for audit and for compensation).
    retired: dict[str, StepState] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    completion_order: list[str] = field(default_factory=list)
    compensations: dict[str, str] = field(default_factory=dict)  # step id → started/succeeded/failed
    approvals: list[str] = field(default_factory=list)  # approved plan hashes, in order
    approval_pending: list[str] = field(default_factory=list)
    replans: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    last_seq: int = -1
    created_at: float | None = None
    finished_at: float | None = None
    # Wall time spent executing, summed over segments (created/resumed → finished), so a run
    # resumed tomorrow does not count the night in between.
    active_s: float = 0.0
    segment_started_at: float | None = None
    config: dict[str, Any] = field(default_factory=dict)

    def step(self, step_id: str) -> StepState:
        """The state of ``step_id``, creating it (pending) when first mentioned."""
        st = self.steps.get(step_id)
        if st is None:
            st = self.steps[step_id] = StepState(step_id)
        return st

    @property
    def finished(self) -> bool:
        return self.status != "running"

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for st in self.steps.values():
            out[st.status] = out.get(st.status, 0) + 1
        return out


# ------------------------------------------------------------------------------ the fold


def fold(events: Iterable[Event], state: RunState | None = None) -> RunState:
    """Rebuild (or continue) a run's state from its events, in order."""
    st = state if state is not None else RunState()
    handlers = _HANDLERS
    for e in events:
        handler = handlers.get(e.kind)
        if handler is not None:
            handler(st, e)
        st.last_seq = e.seq
    return st


def fold_handler(kind: str) -> Callable[[RunState, Any], None]:
    """The fold's handler for one event kind, for a caller that emits only that kind.

    The executor folds its two per-step events through these directly (it knows their kind);
    the caller must still set ``last_seq``, as ``apply`` does.
    """
    return _HANDLERS[kind]


def apply(state: RunState, event: Event) -> RunState:
    """Advance ``state`` by one event (in place) and return it: the live half of ``fold``."""
    handler = _HANDLERS.get(event.kind)
    if handler is not None:
        handler(state, event)
    state.last_seq = event.seq
    return state


def _plan_steps(plan: dict[str, Any]) -> list[str]:
    return [str(s["id"]) for s in plan.get("steps", ()) if isinstance(s, dict) and "id" in s]


def _install_plan(st: RunState, plan: dict[str, Any], version: int, plan_hash: str) -> None:
    st.plan = plan
    st.plan_version = version
    st.plan_hash = plan_hash
    if not st.goal:
        st.goal = str(plan.get("goal", ""))
    steps = st.steps
    for sid in _plan_steps(plan):
        if sid not in steps:
            steps[sid] = StepState(sid)


def _run_created(st: RunState, e: Any) -> None:
    st.run_id = e.run_id
    st.goal = e.goal
    st.config = dict(e.config)
    st.status = "running"
    st.created_at = st.segment_started_at = e.ts


def _plan_proposed(st: RunState, e: Any) -> None:
    _install_plan(st, e.plan, e.plan_version, e.plan_hash)


def _plan_approved(st: RunState, e: Any) -> None:
    st.approvals.append(e.plan_hash)
    st.approval_pending = []


def _plan_revised(st: RunState, e: Any) -> None:
    new_ids = _plan_steps(e.plan)
    keep = set(new_ids)
    for sid in list(st.steps):
        if sid not in keep:
            st.retired[sid] = st.steps.pop(sid)
    for sid in new_ids:
        old = st.steps.get(sid)
        if old is None:
            old = st.retired.pop(sid, None)
            if old is not None:
                st.steps[sid] = old
        if old is not None and old.status not in ("succeeded", "running"):
            # Kept by id but not completed: it runs again under the new plan. A step still
            # running goes on (a phase is spliced in while other branches run): its start is
            # recorded, so a resume must treat it as interrupted, not as never started.
            old.status = "pending"
            old.error = old.failure_class = old.skip_reason = None
    # A phase's sub-plan and a step-wise decision are plan versions, not replans.
    if getattr(e, "phase", None) is None and not e.reason.startswith(STEPWISE_REVISION):
        st.replans += 1
    _install_plan(st, e.plan, e.new_version, e.plan_hash)


def _steps_added(st: RunState, e: Any) -> None:
    # Copy, never extend in place: the old list belongs to an earlier event's payload.
    plan = st.plan if st.plan is not None else {"goal": st.goal}
    st.plan = {**plan, "steps": [*plan.get("steps", ()), *e.steps]}
    for s in e.steps:
        st.step(str(s["id"]))


def _approval_requested(st: RunState, e: Any) -> None:
    st.approval_pending = list(e.step_ids)


def _step_ready(st: RunState, e: Any) -> None:
    st.step(e.step_id).status = "ready"


def _step_started(st: RunState, e: Any) -> None:
    s = st.steps.get(e.step_id) or st.step(e.step_id)  # the common case first: once per step
    s.status = "running"
    s.attempts = e.attempt
    if s.started_at is None or e.attempt == 1:
        s.started_at = e.ts
    s.ended_at = None
    s.error = s.failure_class = None
    if e.idempotency_key:
        s.idempotency_key = e.idempotency_key


def _step_process(st: RunState, e: Any) -> None:
    s = st.step(e.step_id)
    s.processes = (*s.processes[-7:], (e.pid, e.pgid, e.start_time))


def _step_succeeded(st: RunState, e: Any) -> None:
    s = st.steps.get(e.step_id) or st.step(e.step_id)
    s.status = "succeeded"
    s.attempts = e.attempt
    s.output = e.output
    s.ended_at = e.ts
    st.outputs[e.step_id] = e.output
    st.completion_order.append(e.step_id)


def _step_failed(st: RunState, e: Any) -> None:
    s = st.step(e.step_id)
    s.error = e.error
    s.failure_class = e.failure_class
    if e.attempt:
        s.attempts = max(s.attempts, e.attempt)
    if e.final:
        s.status = "failed"
        s.ended_at = e.ts


def _step_skipped(st: RunState, e: Any) -> None:
    s = st.step(e.step_id)
    s.status = "skipped"
    s.skip_reason = e.reason
    s.ended_at = e.ts


def _step_cancelled(st: RunState, e: Any) -> None:
    s = st.step(e.step_id)
    s.status = "cancelled"
    s.error = e.reason
    s.failure_class = "cancelled"
    s.ended_at = e.ts


def _step_needs_review(st: RunState, e: Any) -> None:
    s = st.step(e.step_id)
    s.status = "needs_review"
    s.error = e.reason


def _compensation(status: str) -> Callable[[RunState, Any], None]:
    def handler(st: RunState, e: Any) -> None:
        st.compensations[e.step_id] = status

    return handler


def _model_called(st: RunState, e: Any) -> None:
    st.input_tokens += e.input_tokens
    st.output_tokens += e.output_tokens
    st.cost_usd += e.cost_usd
    if e.step_id is not None:
        # Never creates a step: a call for a step no plan has is counted in the run totals only.
        step = st.steps.get(e.step_id) or st.retired.get(e.step_id)
        if step is not None:
            step.model_calls += 1
            step.input_tokens += e.input_tokens
            step.output_tokens += e.output_tokens
            step.cost_usd += e.cost_usd


def _run_paused(st: RunState, e: Any) -> None:
    st.reason = e.reason


def _run_resumed(st: RunState, e: Any) -> None:
    st.status = "running"
    st.reason = ""
    st.finished_at = None
    st.segment_started_at = e.ts
    if st.created_at is None:
        st.created_at = e.ts
    for s in st.steps.values():
        # A resumed run tries again what never ran. A step that failed for good keeps its
        # outcome: it runs again only when a person names it (a ``step_ready`` with
        # ``retry_by``). Interrupted steps (running or cancelled) keep their status: the
        # executor decides whether they may safely re-run.
        if s.status in ("skipped", "ready"):
            s.status = "pending"
            s.error = s.failure_class = s.skip_reason = None


def _run_finished(st: RunState, e: Any) -> None:
    st.status = e.status
    st.reason = e.reason
    st.finished_at = e.ts
    if st.segment_started_at is not None:
        st.active_s += max(0.0, e.ts - st.segment_started_at)
        st.segment_started_at = None


_HANDLERS: dict[str, Callable[[RunState, Any], None]] = {
    "run_created": _run_created,
    "plan_proposed": _plan_proposed,
    "plan_approved": _plan_approved,
    "plan_revised": _plan_revised,
    "steps_added": _steps_added,
    "approval_requested": _approval_requested,
    "step_ready": _step_ready,
    "step_started": _step_started,
    "step_process": _step_process,
    "step_succeeded": _step_succeeded,
    "step_failed": _step_failed,
    "step_skipped": _step_skipped,
    "step_cancelled": _step_cancelled,
    "step_needs_review": _step_needs_review,
    "compensation_started": _compensation("started"),
    "compensation_succeeded": _compensation("succeeded"),
    "compensation_failed": _compensation("failed"),
    "model_called": _model_called,
    "run_paused": _run_paused,
    "run_resumed": _run_resumed,
    # An execution segment begins as after a resume; on a new run no step has an outcome yet.
    "execution_started": _run_resumed,
    "run_finished": _run_finished,
}

__all__ = [
    "FINISHED_RUN_STATUSES",
    "TERMINAL_STEP_STATUSES",
    "RunState",
    "StepState",
    "apply",
    "fold",
    "fold_handler",
]
