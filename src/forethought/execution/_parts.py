"""The executor's small collaborators: hook types, gates, output normalization, the run summary.

Kept apart from the scheduler so that ``executor.py`` reads as the scheduling algorithm only.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, cast

from pydantic_core import PydanticSerializationError, from_json, to_json

from forethought.errors import ToolError
from forethought.events.kinds import Event
from forethought.oversight.policy import needs_approval as needs_approval  # the one policy
from forethought.plan.graph import critical_path
from forethought.plan.model import Plan, Step
from forethought.tools.base import ToolContext, ToolSpec

if TYPE_CHECKING:
    from forethought.events.state import RunState


@dataclass(frozen=True)
class StopRequest:
    """What a supervisor returns to stop a run; ``reason`` ends up in ``run_finished.reason``."""

    status: Literal["paused", "failed", "awaiting_approval"]
    reason: str


SupervisorHook = Callable[[Event, "RunState"], Awaitable[StopRequest | None]]
"""Called after every event (in order, off the scheduling path) but those of the classes in its
``ignores`` attribute, if it has one (``ignored_by``); may stop the run."""

Replanner = Callable[[Plan, "RunState", Mapping[str, Any]], Awaitable[Plan | None]]
"""``(current plan, state, failure info) -> plan vN+1`` or None to give up."""


class PhasePlanner(Protocol):
    """Plans a phase's sub-plan when the phase becomes ready (``execution.phase_expansion``).

    The executor splices the sub-plan in (``plan.phases.splice_phase``), validates the result and
    records it as the next plan version; ``admit`` hears of that version before any of its steps
    is considered, so the approval gate knows it (and a policy may approve it, recorded).
    """

    async def plan_phase(self, plan: Plan, step: Step, state: RunState) -> Plan:
        """The sub-plan for phase ``step`` of ``plan`` (its ids unprefixed); raises on failure."""
        ...

    def admit(self, plan: Plan) -> None:
        """``plan``, the version that splices a phase in, was recorded and is about to run."""
        ...


AgentRunner = Callable[[Step, ToolContext], Awaitable[Any]]
"""Runs an agent step (the executor model's bounded tool loop); ``ctx.extra['args']`` = args."""

Sink = Callable[[Event], Awaitable[None]]
"""Receives every event of the run, in ``seq`` order (e.g. the SQLite store) — but those of the
classes in its ``ignores`` attribute, if it has one (``ignored_by``)."""


class Ignoring:
    """``hook`` (a sink or a supervisor hook) declaring the event classes it ignores."""

    def __init__(self, hook: Callable[..., Awaitable[Any]], ignores: frozenset[type[Any]]) -> None:
        self._hook = hook
        self.ignores = ignores

    def __call__(self, *args: Any) -> Awaitable[Any]:
        return self._hook(*args)


def inline_of(sink: object) -> Callable[[Event], None] | None:
    """The synchronous ``deliver_inline`` of a sink that offers one, else None.

    The executor calls ``deliver_inline(event)`` as it emits each event (in ``seq`` order, the
    classes in ``ignores`` left out) instead of awaiting the sink from a pump task. A pump costs
    a task wake-up per loop turn and two coroutines per event: for a sink that does little with
    an event (the CLI's progress lines) ~5 % of a recorded step (``bench/exec_scale``).
    ``deliver_inline`` runs on the scheduler's path, so it must be quick and must not emit
    events; if it raises, it hears nothing more and the run stops as for a failing pumped sink.
    The name is specific on purpose: a sink's own ``deliver`` (a webhook's ``async def
    deliver``) is no promise to be called inline. A coroutine function is never called inline
    (its coroutine would not be awaited): such a sink is pumped as any other."""
    deliver = getattr(sink, "deliver_inline", None)
    if not callable(deliver) or inspect.iscoroutinefunction(deliver):
        return None
    return cast("Callable[[Event], None]", deliver)


def ignored_by(sink: object) -> frozenset[type[Any]]:
    """The event classes ``sink`` says it does nothing with (an ``ignores`` frozenset): they
    never wait in its queue. A concurrency limit queues a fan-out's steps with a ``step_ready``
    each, all in one loop turn; a sink that ignores them does not hold 100,000 of them until its
    pump runs."""
    ignores = getattr(sink, "ignores", None)
    return ignores if isinstance(ignores, frozenset) else frozenset()


WRITTEN_AHEAD = "written_ahead_seq"
"""``ctx.extra`` key: the seq of the attempt's ``step_started``, set when the executor has made it
(and so everything before it: the step's dependencies' outcomes) durable before the call. A
write-ahead wrapper waits for this seq, not for the run's latest one: events other steps emitted
while this one waited for its commit are no concern of this call (``runs.store._writeahead``)."""


class Journal(Protocol):
    """The durable log an execution writes ahead to (``runs.store.recorder.Recorder``).

    The executor appends every event synchronously, in ``seq`` order, as it emits it; the
    journal commits them in groups (one loop turn's events, or whatever arrived while the
    previous commit was on disk) and reports each commit by calling ``watch``'s ``durable``
    with the highest committed ``seq``, or ``broken`` with the reason when recording failed.
    With a journal the executor calls no tool before everything emitted so far — the step's
    own ``step_started`` and its dependencies' ``step_succeeded`` — is durable.
    """

    def append_nowait(self, event: Event) -> None: ...

    def watch(self, durable: Callable[[int], None], broken: Callable[[BaseException], None]) -> None: ...


class Gate(Protocol):
    """Decides whether a step that needs approval may start now."""

    def allows(self, step: Step, spec: ToolSpec | None) -> bool: ...


def denial_reason(gate: Gate, step: Step) -> str:
    """Why ``gate`` just refused ``step``: the gate's own words if it keeps them, one line."""
    reasons = getattr(gate, "reason_denied", None)
    reason = reasons.get(step.id) if isinstance(reasons, dict) else None
    if not isinstance(reason, str) or not reason:
        reason = "no approval covers it"
    return " ".join(reason.split())


class ReadOnlyGate:
    """The default: nothing that needs approval is approved (read-only steps never ask)."""

    def allows(self, step: Step, spec: ToolSpec | None) -> bool:
        return False


class ApproveAll:
    """Every step is approved (``--yes-all``, or a plan a human already approved in full)."""

    def allows(self, step: Step, spec: ToolSpec | None) -> bool:
        return True


class UnserializableOutput(ToolError):
    """A tool returned something the event serializer cannot write."""


PLAIN_OUTPUT = (str, int, bool, type(None))  # stored as they are: no round trip needed


def normalize_output(value: Any) -> Any:
    """The output as the event log will store it (JSON round trip through the events' serializer).

    Live state and state rebuilt from stored events must be equal, so a tuple becomes a list, a
    datetime an ISO string — here, once, instead of differing after a resume.
    """
    if type(value) in PLAIN_OUTPUT:
        return value
    try:
        return from_json(to_json(value))
    except (PydanticSerializationError, ValueError, TypeError) as exc:
        first = (str(exc).splitlines() or [""])[0]
        raise UnserializableOutput(
            f"the tool returned output that is not JSON-serializable ({type(value).__name__}: "
            f"{first}); return dicts, lists, strings, numbers, booleans or null",
            retryable=False,
        ) from None


def measured_critical_path(
    deps: Mapping[str, tuple[str, ...]], state: RunState
) -> tuple[float, tuple[str, ...]]:
    """Longest chain through the DAG weighted by each step's *measured* duration."""
    durations: dict[str, float] = {}
    for sid, st in state.steps.items():
        d = st.duration_s
        if d is not None:
            durations[sid] = d
    # Dependencies outside ``deps`` (dangling ones) are dropped; the common case keeps each
    # tuple as it is instead of rebuilding one per step.
    known = {
        sid: ds if all(d in deps for d in ds) else tuple(d for d in ds if d in deps)
        for sid, ds in deps.items()
    }
    cp = critical_path(known, durations)
    return cp.length_s, cp.steps


def run_summary(
    state: RunState,
    deps: Mapping[str, tuple[str, ...]] | None = None,
) -> dict[str, Any]:
    """The ``--json`` summary shape of DESIGN.md (plus a few extra, clearly named fields)."""
    if deps is None:
        deps = plan_dependencies(state)
    cp_len, cp_steps = measured_critical_path(deps, state)
    makespan = state.active_s
    if state.segment_started_at is not None:  # still running: count up to the last step end
        ends = [s.ended_at for s in state.steps.values() if s.ended_at is not None]
        makespan += max(0.0, max(ends, default=state.segment_started_at) - state.segment_started_at)
    steps = {
        sid: {
            "status": st.status,
            "output": st.output,
            "error": st.error,
            "attempts": st.attempts,
            "started_at": st.started_at,
            "ended_at": st.ended_at,
            "failure_class": st.failure_class,
            # Model calls made for the step (agent turns, critic checks); 0 for a plain tool step.
            "model_calls": st.model_calls,
            "input_tokens": st.input_tokens,
            "output_tokens": st.output_tokens,
            "tokens": st.input_tokens + st.output_tokens,
            "cost_usd": st.cost_usd,
        }
        for sid, st in state.steps.items()
    }
    return {
        "run_id": state.run_id,
        "status": state.status,
        "reason": state.reason,
        "goal": state.goal,
        "plan_version": state.plan_version,
        "plan_hash": state.plan_hash,
        "steps": steps,
        "makespan_s": makespan,
        "critical_path_s": cp_len,
        "critical_path": list(cp_steps),
        "overhead_s": max(0.0, makespan - cp_len),
        "tokens": state.tokens,
        "cost_usd": state.cost_usd,
        "replans": state.replans,
        "input_tokens": state.input_tokens,
        "output_tokens": state.output_tokens,
    }


def plan_dependencies(state: RunState) -> dict[str, tuple[str, ...]]:
    """Dependencies of the state's current plan (explicit and implied by references)."""
    if not state.plan:
        return {sid: () for sid in state.steps}
    plan = Plan.model_validate(state.plan)
    return plan.dependency_map()
