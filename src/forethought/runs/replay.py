"""Replay a recorded run: tools, models and the replanner answer from the record, not for real.

A run's events hold every tool result (``step_succeeded`` / ``step_failed``, compensations) and
every model response (``model_called``), so the executor can run the same plan again against
stand-ins that hand back what was recorded, in order — zero real tool or model calls — and must
reach the same final state. That makes a run auditable ("this is exactly what happened, and the
scheduler agrees") and debuggable (``--from STEP`` re-runs one step and its descendants for
real while everything upstream comes from the record).

The replay must reproduce the recorded *events*, not only the final state
(``replay_events.compare_events``, timing aside): critic verdicts are served from the record
(``RecordedCritic``), agent steps run their tool loop again against their recorded model turns
and tool results (or, without the tools' specs, re-record their transcript), and what
collaborators outside the scheduler did — budget pauses, a streaming planner's steps and close,
planner calls — is re-enacted at its recorded position by the ``replay_events.Director``, the
budgets being the run's recorded ones. Stand-ins answer at their recorded turn (the director
paces them), so overlapping calls finish in the recorded order; what order the events of steps
running at the same time are written in is scheduling, and the comparison allows it to differ
(``replay_events.canonical``; ``ReplayResult.same_order`` says whether it did).

What cannot be reproduced exactly, and why: an attempt that was cut off by a crash has no
result, so it is not replayed (the replay has no crash); an attempt that failed its ``check`` in
a record written before ``check_failed`` carried the output has nothing to check, so the replay
makes it fail as a tool error; a run continued after a pause (``resume``) replays its first
execution only; OS process records (``step_process``) are not reproduced; the run's concurrency
limit is not recorded, so it is inferred (``queue_limit``) — per-tool limits are not, and a run
that queued behind one is reported as diverged.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NoReturn

from forethought.errors import ModelError, ToolError, ToolTimeout, UserError
from forethought.events import kinds as E
from forethought.events.kinds import Event
from forethought.events.state import RunState, fold
from forethought.execution._events import EventLog
from forethought.execution._parts import Sink
from forethought.execution.agent_step import AgentStepRunner
from forethought.execution.backends.base import LocalBackend, WorkerCrashed
from forethought.execution.executor import ApproveAll, Executor, ExecutorOptions
from forethought.execution.recovery import REPLANNER_RAISED, RecordedReplannerError
from forethought.models.base import ModelRequest, ModelResponse, StreamChunk
from forethought.models.record import response_from_record
from forethought.oversight.supervisor import Budgets
from forethought.plan.model import Plan, Step
from forethought.runs.approval import approval_gate
from forethought.runs.integrity import refuse_if_modified
from forethought.runs.recording import execute_recorded
from forethought.runs.replay_events import (
    Director,
    compare_events,
    event_fields,
    execution_events,
    is_streamed,
    same_order,
    spent_before,
)
from forethought.runs.run_ids import resolve_run_id
from forethought.runs.store.base import Store
from forethought.tools.base import Tool, ToolContext, ToolSpec

Pace = Callable[[int | None], Awaitable[None]]
"""``await pace(seq)``: wait until the replay reaches the position of recorded event ``seq``."""


@dataclass(frozen=True)
class Outcome:
    """What one recorded call returned: ``ok`` (``value`` is the output), ``error`` (``value``
    is the message), or ``cut`` (cancelled mid-call).

    ``release`` is the ``seq`` of the first event recorded after the call returned: the replay
    answers when it gets there, so concurrent steps finish in their recorded order.
    """

    status: Literal["ok", "error", "cut"]
    value: Any = None
    failure_class: str = ""
    retryable: bool = True
    release: int | None = None
    end: int | None = None
    """The ``seq`` of the outcome's own event (``step_succeeded``/``step_failed``)."""


_COMPENSATE_SUFFIX = ":compensate"
# A cut-off attempt's stand-in waits to be cancelled, as the original was, when the replay
# stops at the recorded point. Should the replay diverge and never stop there, it fails the
# attempt after this long instead of hanging.
_CUT_LIMIT_S = 30.0


@dataclass
class CriticCall:
    """One consultation of the critic: its recorded model calls and its verdict."""

    calls: list[E.ModelCalled] = field(default_factory=list)
    ok: bool = True
    reason: str = ""


@dataclass
class Recording:
    """What a run's events say each call returned, in call order."""

    run_id: str
    initial_plan: Plan
    outcomes: dict[tuple[str, str], deque[Outcome]] = field(default_factory=dict)
    revisions: deque[Plan] = field(default_factory=deque)
    replanner_errors: deque[str] = field(default_factory=deque)
    """What the replanner's failures said (``replanner raised: …``), in order."""
    phase_versions: dict[str, deque[tuple[int, Plan]]] = field(default_factory=dict)
    """Per phase, the recorded version that spliced its sub-plan in (with its ``seq``)."""
    model_calls: list[E.ModelCalled] = field(default_factory=list)
    tool_names: set[str] = field(default_factory=set)
    executors: set[str] = field(default_factory=set)
    critic: dict[str, deque[CriticCall]] = field(default_factory=dict)
    """Per step, each consultation of the critic in order."""
    inner_calls: dict[str, deque[E.ToolCalled]] = field(default_factory=dict)
    """Per agent step, the tool calls its loop made (refusals excluded: they call nothing)."""
    transcripts: dict[str, deque[list[Event]]] = field(default_factory=dict)
    """Per agent step and attempt, its recorded model and tool calls."""
    cut_steps: set[str] = field(default_factory=set)
    held_tools: set[str] = field(default_factory=set)
    """Tools whose steps waited for a streamed plan to close: side-effecting ones."""
    budgets: Budgets | None = None
    streamed: bool = False
    goal: str = ""
    pace: Pace | None = None
    """Set by ``replay_run``: keeps the stand-ins' answers in the recorded order."""

    async def at(self, seq: int | None) -> None:
        if self.pace is not None:
            await self.pace(seq)

    @classmethod
    def from_events(cls, events: Sequence[Event]) -> Recording:
        first_plan: E.PlanProposed | E.PlanRevised | None = next(
            (e for e in events if isinstance(e, E.PlanProposed)), None
        )
        if first_plan is None:  # a step-wise run stopped (a budget) before its plan was closed
            first_plan = next(
                (
                    e
                    for e in reversed(events)
                    if isinstance(e, E.PlanRevised) and e.reason.startswith(E.STEPWISE_REVISION)
                ),
                None,
            )
        if first_plan is None:
            run = events[0].run_id if events else "?"
            raise UserError(f"run {run} has no recorded plan, so it cannot be replayed")
        rec = cls(run_id=first_plan.run_id, initial_plan=Plan.model_validate(first_plan.plan))
        rec.streamed = is_streamed(events)
        rec._scan(events)
        for plan in rec.all_plans():
            for s in plan.iter_all_steps():
                if s.tool:
                    rec.tool_names.add(s.tool)
                if s.compensate:
                    rec.tool_names.add(s.compensate.tool)
                if s.executor:
                    rec.executors.add(s.executor)
                if s.phase is not None:  # validating a version checks every phase's tools
                    rec.tool_names.update(s.phase.tools)
        return rec

    def _scan(self, events: Sequence[Event]) -> None:
        open_attempts: dict[str, int] = {}
        open_compensations: set[str] = set()
        checked: dict[str, Any] = {}  # step → the output its open attempt's check rejected
        critic: dict[tuple[str, int], CriticCall] = {}
        transcript: dict[str, list[Event]] = {}
        release: dict[str, int | None] = {}  # step → seq of its first event after a start
        plan_open = self.streamed
        streamed_tools = {
            str(d.get("id")): d["tool"]
            for e in events
            if isinstance(e, E.StepsAdded)
            for d in e.steps
            if isinstance(d.get("tool"), str)
        }
        for e in events:
            sid = getattr(e, "step_id", None)
            if sid in release and release[sid] is None and not isinstance(e, E.StepProcess):
                release[sid] = e.seq
            if isinstance(e, E.RunCreated):
                self.goal = e.goal
                budgets = e.config.get("budgets")
                if isinstance(budgets, dict):
                    self.budgets = Budgets.model_validate(budgets)
            elif isinstance(e, E.StepStarted):
                open_attempts[e.step_id] = e.attempt
                release[e.step_id] = None
                checked.pop(e.step_id, None)
                transcript[e.step_id] = []
            elif isinstance(e, E.StepSucceeded) and e.step_id in open_attempts:
                del open_attempts[e.step_id]
                self._add(
                    ("step", e.step_id),
                    Outcome("ok", e.output, release=release.pop(e.step_id, None), end=e.seq),
                )
                self._end_transcript(transcript, e.step_id)
            elif isinstance(e, E.StepFailed) and e.step_id in open_attempts:
                del open_attempts[e.step_id]
                at = release.pop(e.step_id, None)
                if e.failure_class == "check" and e.step_id in checked:
                    self._add(
                        ("step", e.step_id), Outcome("ok", checked.pop(e.step_id), release=at, end=e.seq)
                    )
                else:
                    failed = Outcome("error", e.error, e.failure_class, not e.final, at, e.seq)
                    self._add(("step", e.step_id), failed)
                self._end_transcript(transcript, e.step_id)
            elif isinstance(e, E.CheckFailed):
                if "output" in e.model_fields_set:  # recorded since the output is
                    checked[e.step_id] = e.output
                if e.criterion == "critic":
                    call = critic.setdefault((e.step_id, e.attempt), CriticCall())
                    call.ok, call.reason = False, e.detail
            elif isinstance(e, E.StepCancelled) and e.step_id in open_attempts:
                del open_attempts[e.step_id]
                release.pop(e.step_id, None)
                self._add(("step", e.step_id), Outcome("cut", end=e.seq))
                self.cut_steps.add(e.step_id)
                self._end_transcript(transcript, e.step_id)
            elif isinstance(e, E.StepNeedsReview):
                open_attempts.pop(e.step_id, None)  # cut off: no result to replay
            elif isinstance(e, E.RunResumed):
                release.clear()
                open_attempts.clear()  # attempts open at a crash never produced a result
                open_compensations.clear()
            elif isinstance(e, E.CompensationStarted):
                open_compensations.add(e.step_id)
                self.tool_names.add(e.tool)
            elif isinstance(e, E.CompensationSucceeded) and e.step_id in open_compensations:
                open_compensations.discard(e.step_id)
                self._add(("compensate", e.step_id), Outcome("ok", e.output, release=e.seq))
            elif isinstance(e, E.CompensationFailed) and e.step_id in open_compensations:
                open_compensations.discard(e.step_id)
                self._add(("compensate", e.step_id), Outcome("error", e.error, "error", True, e.seq))
            elif isinstance(e, E.PlanRevised) and e.phase is not None:
                # A phase's version: served to the replay's phase planner at its position.
                self.phase_versions.setdefault(e.phase, deque()).append((e.seq, Plan.model_validate(e.plan)))
            elif isinstance(e, E.PlanRevised):
                # A streamed plan's coverage repair and a step-wise decision are re-enacted.
                if not e.reason.startswith(("coverage repair", E.STEPWISE_REVISION)):
                    self.revisions.append(Plan.model_validate(e.plan))
            elif isinstance(e, E.ReplanRequested) and e.reason.startswith(REPLANNER_RAISED):
                self.replanner_errors.append(e.reason.removeprefix(REPLANNER_RAISED))
            elif isinstance(e, E.PlanProposed):
                plan_open = False
            elif isinstance(e, E.StepReady) and plan_open and e.step_id in streamed_tools:
                self.held_tools.add(streamed_tools[e.step_id])
            elif isinstance(e, E.ModelCalled):
                self.model_calls.append(e)
                if e.step_id is not None and e.role == "critic":
                    attempt = open_attempts.get(e.step_id, 0)
                    critic.setdefault((e.step_id, attempt), CriticCall()).calls.append(e)
                elif e.step_id is not None and e.step_id in transcript:
                    transcript[e.step_id].append(e)
            elif isinstance(e, E.ToolCalled):
                if e.step_id in transcript:
                    transcript[e.step_id].append(e)
                if not (e.error or "").startswith("refused: "):
                    self.inner_calls.setdefault(e.step_id, deque()).append(e)
        self.tool_names.update(streamed_tools.values())
        for (sid, _attempt), call in critic.items():
            self.critic.setdefault(sid, deque()).append(call)

    def _end_transcript(self, transcript: dict[str, list[Event]], step_id: str) -> None:
        calls = transcript.pop(step_id, [])
        self.transcripts.setdefault(step_id, deque()).append(calls)

    def _add(self, key: tuple[str, str], outcome: Outcome) -> None:
        self.outcomes.setdefault(key, deque()).append(outcome)

    def all_plans(self) -> list[Plan]:
        phases = [plan for versions in self.phase_versions.values() for _, plan in versions]
        return [self.initial_plan, *self.revisions, *phases]


@dataclass
class CallCounter:
    """How many calls were answered from the record and how many were made for real."""

    replayed: int = 0
    real: int = 0
    missing: list[str] = field(default_factory=list)


async def _answer(outcome: Outcome, what: str, recording: Recording | None = None) -> Any:
    """Hand back a recorded outcome (at its recorded position): the output, the failure, or a
    wait to be cancelled."""
    if recording is not None and outcome.status != "cut":
        await recording.at(outcome.release)
    if outcome.status == "ok":
        return outcome.value
    if outcome.status == "cut":
        try:
            await asyncio.wait_for(asyncio.get_running_loop().create_future(), _CUT_LIMIT_S)
        except asyncio.CancelledError:
            # Cancelled, as recorded. Steps cancelled together record their cancellation in
            # the order their tasks wake up, which is scheduling; go when it is this one's turn.
            if recording is not None:
                await recording.at(outcome.end)
            raise
        except TimeoutError:
            raise ToolError(
                f"replay diverged: the recorded {what} was cancelled mid-call, but the replay did "
                "not stop there",
                retryable=False,
            ) from None
    _raise_recorded(str(outcome.value), outcome.failure_class, outcome.retryable)


def _raise_recorded(message: str, failure_class: str, retryable: bool = True) -> NoReturn:
    if failure_class == "timeout":
        raise ToolTimeout(message)
    if failure_class == "crashed":
        raise WorkerCrashed(message)
    # A failure recorded as final before the retries ran out was not retryable.
    raise ToolError(message, retryable=retryable)


class ReplayTool:
    """Answers a tool's calls from the record; steps in ``real_steps`` call ``real`` instead."""

    def __init__(
        self,
        spec: ToolSpec,
        recording: Recording,
        counter: CallCounter,
        real: Tool | None = None,
        real_steps: frozenset[str] = frozenset(),
    ) -> None:
        self._spec = spec
        self._rec = recording
        self._counter = counter
        self._real = real
        self._real_steps = real_steps

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    async def invoke(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        if ctx.step_id in self._real_steps:
            if self._real is None:
                raise ToolError(
                    f"step {ctx.step_id!r} is to be re-run for real but tool "
                    f"{self._spec.name!r} is not configured; pass --tools",
                    retryable=False,
                )
            self._counter.real += 1
            return await self._real.invoke(args, ctx)
        kind = "compensate" if ctx.idempotency_key.endswith(_COMPENSATE_SUFFIX) else "step"
        queue = self._rec.outcomes.get((kind, ctx.step_id))
        if not queue:
            self._counter.missing.append(ctx.step_id)
            raise ToolError(
                f"replay diverged: no recorded result left for {kind} "
                f"{ctx.step_id!r} (attempt {ctx.attempt})",
                retryable=False,
            )
        outcome = queue.popleft()
        self._counter.replayed += 1
        return await _answer(outcome, f"attempt of {kind} {ctx.step_id!r}", self._rec)


def replay_tools(
    recording: Recording,
    counter: CallCounter,
    *,
    real_tools: Mapping[str, Tool] | None = None,
    real_steps: frozenset[str] = frozenset(),
) -> dict[str, Tool]:
    """A stand-in for every tool the recorded plans use (specs from ``real_tools`` if given)."""
    out: dict[str, Tool] = {}
    for name in sorted(recording.tool_names):
        real = (real_tools or {}).get(name)
        spec = (
            real.spec
            if real is not None
            else ToolSpec(
                name=name,
                description="replayed from the record",
                idempotent=True,
                # A tool whose streamed steps waited for the plan's approval had side effects:
                # its stand-in must wait the same way.
                effect="mutating" if name in recording.held_tools else "read_only",
                source=f"replay:{recording.run_id}",
            )
        )
        out[name] = ReplayTool(spec, recording, counter, real, real_steps)
    return out


class _InnerTool:
    """A tool an agent step's loop calls: answers with the step's recorded ``tool_called``."""

    def __init__(self, spec: ToolSpec, recording: Recording) -> None:
        self._spec = spec
        self._rec = recording

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    async def invoke(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        queue = self._rec.inner_calls.get(ctx.step_id)
        if not queue and ctx.step_id in self._rec.cut_steps:
            # The recorded step was cancelled during this call: wait for the same cancellation.
            return await _answer(Outcome("cut"), f"tool call of agent step {ctx.step_id!r}")
        if not queue:
            raise ToolError(
                f"replay diverged: agent step {ctx.step_id!r} calls {self._spec.name!r}, which the "
                "record does not have",
                retryable=False,
            )
        call = queue.popleft()
        await self._rec.at(call.seq)
        if call.error is not None:
            raise ToolError(call.error, retryable=False)
        return call.output


def replay_agent_runner(
    recording: Recording,
    counter: CallCounter,
    real: Any = None,
    real_steps: frozenset[str] = frozenset(),
    specs: Mapping[str, ToolSpec] | None = None,
) -> Any:
    """Agent steps replay their recorded model turns and tool results.

    With the tools' ``specs`` (the same the run had), the step's tool loop runs again
    (``AgentStepRunner``) against a ``ReplayModel`` of its recorded turns: its prompts, its
    choices and its answer are recomputed. Without them the loop cannot rebuild its prompts, so
    the step's transcript is recorded again as it was and its recorded result returned.
    """
    models: dict[str, ReplayModel] = {}

    async def run(step: Step, ctx: ToolContext) -> Any:
        if step.id in real_steps and real is not None:
            counter.real += 1
            return await real(step, ctx)
        counter.replayed += 1
        record = ctx.extra.get("record")
        if specs is not None:
            if step.id not in models:
                calls = [c for c in recording.model_calls if c.step_id == step.id and c.role == "executor"]
                cut = step.id in recording.cut_steps
                models[step.id] = ReplayModel(
                    calls, name="replay:executor", wait_when_done=cut, pace=recording.at
                )
            tools = {name: _InnerTool(spec, recording) for name, spec in specs.items()}
            runner = AgentStepRunner({step.executor or "default": models[step.id]}, tools, record)
            return await runner(step, ctx)
        transcripts = recording.transcripts.get(step.id)
        for event in transcripts.popleft() if transcripts else []:
            await recording.at(event.seq)
            if record is not None:
                record(type(event), **event_fields(event))
        queue = recording.outcomes.get(("step", step.id))
        if not queue:
            counter.missing.append(step.id)
            raise ToolError(
                f"replay diverged: no recorded result left for agent step {step.id!r}", retryable=False
            )
        outcome = queue.popleft()
        if outcome.status != "cut":  # a cut one waits to be cancelled, then for its turn
            await recording.at(outcome.end)
        return await _answer(outcome, f"agent step {step.id!r}", recording)

    return run


class RecordedCritic:
    """The critic's verdicts, served from the record in order for each step.

    Each consultation records its model calls again (request and response as recorded) and
    returns the recorded verdict: rejected with the recorded reason when the attempt has a
    ``check_failed`` by the critic, accepted otherwise. The deterministic checks run for real
    before it, on the recorded output, exactly as they did.
    """

    def __init__(self, recording: Recording) -> None:
        self._rec = recording
        self.record: Callable[..., Any] | None = None

    async def __call__(self, step: Step, output: Any, rubric: str) -> tuple[bool, str]:
        queue = self._rec.critic.get(step.id)
        if not queue:
            raise ModelError(f"replay diverged: the record has no further critic verdict for {step.id!r}")
        call = queue.popleft()
        for event in call.calls:
            await self._rec.at(event.seq)  # a live critic's model answers in its own time
            if self.record is not None:
                self.record(E.ModelCalled, **event_fields(event))
        return call.ok, call.reason


class ReplayPhasePlanner:
    """Serves each phase's sub-plan from the version the record spliced in for it.

    It answers once the replay has emitted every event recorded before that version (the phase
    planner's model calls, re-enacted by the director, and whatever ran meanwhile), so the
    version lands where the record has it. A phase the record never planned fails, and the
    replay is reported as diverged.
    """

    def __init__(self, recording: Recording) -> None:
        self._versions = recording.phase_versions
        self._recording = recording

    async def plan_phase(self, plan: Plan, step: Step, state: RunState) -> Plan:
        from forethought.plan.phases import recorded_sub_plan

        versions = self._versions.get(step.id)
        if not versions:
            raise ModelError(f"the record has no sub-plan for phase {step.id!r}")
        seq, version = versions.popleft()
        await self._recording.at(seq)
        return recorded_sub_plan(version, step.id)

    def admit(self, plan: Plan) -> None:
        return None  # recorded approvals are re-enacted by the director


class ReplayReplanner:
    """Returns the recorded plan revisions in order; then fails as the recorded replanner did, if
    it did; ``None`` when the record has nothing more."""

    def __init__(self, recording: Recording) -> None:
        self._plans = deque(recording.revisions)
        self._errors = deque(recording.replanner_errors)

    async def __call__(self, plan: Plan, state: RunState, failure: Mapping[str, Any]) -> Plan | None:
        if self._plans:
            return self._plans.popleft()
        if self._errors:
            raise RecordedReplannerError(self._errors.popleft())
        return None


class ReplayModel:
    """A ``Model`` that answers with recorded ``model_called`` responses, in order.

    It fails on a call the record does not have, so a replay that would need a new model answer
    is reported as diverged instead of silently calling a provider.
    """

    def __init__(
        self,
        calls: Iterable[E.ModelCalled],
        *,
        name: str = "replay",
        wait_when_done: bool = False,
        pace: Pace | None = None,
    ) -> None:
        self._pace = pace
        self._calls = deque(calls)
        self._name = name
        self.used = 0
        # The recorded caller was cancelled while waiting for its next answer: wait the same way.
        self._wait = wait_when_done

    @property
    def name(self) -> str:
        return self._name

    @property
    def remaining(self) -> int:
        return len(self._calls)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        if not self._calls:
            if self._wait:
                await _answer(Outcome("cut"), "model call")
            raise ModelError("replay diverged: the record has no further model response")
        call = self._calls.popleft()
        if self._pace is not None:
            await self._pace(call.seq)
        self.used += 1
        return response_from_record({"response": call.response})

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamChunk]:
        response = await self.complete(request)
        yield StreamChunk(delta=response.text)
        yield StreamChunk(done=True, usage=response.usage, finish_reason=response.finish_reason)


def replay_models(recording: Recording) -> dict[tuple[str, str | None], ReplayModel]:
    """One replay model per (role, step id), so concurrent steps each get their own answers."""
    groups: dict[tuple[str, str | None], list[E.ModelCalled]] = {}
    for call in recording.model_calls:
        groups.setdefault((call.role, call.step_id), []).append(call)
    return {key: ReplayModel(calls, name=f"replay:{key[0]}") for key, calls in groups.items()}


def descendants(plans: Iterable[Plan], step_id: str) -> set[str]:
    """``step_id`` and every step that depends on it, transitively, in any of ``plans``."""
    dependents: dict[str, set[str]] = {}
    known: set[str] = set()
    for plan in plans:
        for s in plan.iter_all_steps():
            known.add(s.id)
            for d in s.all_dependencies():
                dependents.setdefault(d, set()).add(s.id)
    if step_id not in known:
        raise UserError(
            f"--from {step_id}: no such step in the recorded plan (steps: {', '.join(sorted(known)[:20])})"
        )
    out = {step_id}
    todo = [step_id]
    while todo:
        for d in dependents.get(todo.pop(), ()):
            if d not in out:
                out.add(d)
                todo.append(d)
    return out


def compare_states(original: RunState, replayed: RunState, ignore: Iterable[str] = ()) -> list[str]:
    """Differences in final run status, step statuses and outputs (empty when identical)."""
    skip = set(ignore)
    diffs: list[str] = []
    if original.status != replayed.status:
        diffs.append(f"run status: recorded {original.status}, replayed {replayed.status}")
    for sid in sorted(set(original.steps) | set(replayed.steps)):
        if sid in skip:
            continue
        a, b = original.steps.get(sid), replayed.steps.get(sid)
        if a is None or b is None:
            diffs.append(f"step {sid}: only in the {'replay' if a is None else 'record'}")
            continue
        if a.status != b.status:
            diffs.append(f"step {sid}: status recorded {a.status}, replayed {b.status}")
        elif a.output != b.output:
            diffs.append(f"step {sid}: output differs")
    return diffs


# ---------------------------------------------------------------------------------- the replay


@dataclass
class ReplayResult:
    original_run_id: str
    run_id: str
    state: RunState
    original: RunState
    counter: CallCounter
    real_steps: frozenset[str]
    differences: list[str]
    """Final-state differences, then event differences (empty: the replay reproduced the run)."""
    events_compared: int = 0
    """How many recorded execution events were compared (0 with ``--from``: not compared)."""
    event_differences: list[str] = field(default_factory=list)
    """The part of ``differences`` about events (the rest is about the final state)."""
    same_order: bool = False
    """The events are identical position by position, the interleaving of concurrent steps
    included (``same`` allows that interleaving to differ: ``replay_events.canonical``)."""

    @property
    def same(self) -> bool:
        return not self.differences


class _ReplayGate:
    """Replayed steps do nothing real, so they need no approval — except those the record shows
    held for an approval that never came: they wait again, for the recorded reason. Re-run
    steps go to ``inner``."""

    def __init__(self, inner: Any, real_steps: frozenset[str], recorded: Sequence[Event] = ()) -> None:
        self._inner = inner
        self._real = real_steps
        self.held, self.reason_denied = _held_for_approval(recorded)

    def allows(self, step: Step, spec: ToolSpec | None) -> bool:
        if step.id in self._real:
            return bool(self._inner.allows(step, spec))
        return step.id not in self.held


def queue_limit(recorded: Sequence[Event], held: set[str]) -> int | None:
    """The ``max_concurrency`` a run's steps queued behind, inferred from its record (it is not
    recorded): when a step had to wait for a slot (a ``step_ready`` not explained by approval
    or a streaming plan), the slots were all taken, so the limit is the most steps the record
    ever has running at once. None when no step queued."""
    running: set[str] = set()
    most = 0
    queued = False
    plan_open = any(isinstance(e, E.StepsAdded) for e in recorded)
    for e in recorded:
        if isinstance(e, E.StepStarted):
            running.add(e.step_id)
            most = max(most, len(running))
        elif isinstance(e, (E.StepSucceeded, E.StepFailed, E.StepCancelled)):
            running.discard(e.step_id)
        elif isinstance(e, E.PlanProposed):
            plan_open = False
        elif isinstance(e, E.StepReady) and not plan_open and e.step_id not in held and not e.retry_by:
            queued = True
    return most if queued and most > 0 else None


def _held_for_approval(recorded: Sequence[Event]) -> tuple[set[str], dict[str, str]]:
    """Steps an execution's ``approval_requested`` names that never started, and why (the
    executor states the reasons of its held steps, joined, in its final reason)."""
    started = {e.step_id for e in recorded if isinstance(e, E.StepStarted)}
    held = [
        sid
        for e in recorded
        if isinstance(e, E.ApprovalRequested)
        for sid in e.step_ids
        if sid not in started
    ]
    why: dict[str, str] = {}
    final = next((e for e in reversed(recorded) if isinstance(e, E.RunFinished)), None)
    if held and final is not None and final.reason.endswith(")") and " (" in final.reason:
        why[held[0]] = final.reason[final.reason.index(" (") + 2 : -1]
    return set(held), why


class _DirectedLog(EventLog):
    """The executor's event log, telling the director about each event once it is emitted
    (after every subscriber has it, so what the director records comes after it in order)."""

    def __init__(self, inner: EventLog, director: Director) -> None:
        super().__init__(keep=inner.history is not None, tap=inner.tap)
        self._director = director

    def push(self, event: Any) -> None:
        super().push(event)
        self._director.after(event)


def _direct(executor: Executor, director: Director) -> None:
    """Put the director on ``executor``'s event log, before it runs.

    The log is the executor's own (``RunContext.bus``); replacing it before ``run()`` is the one
    place replay reaches inside, because the director must act in the same synchronous turn as
    the event it follows, which no subscriber (they lag by design) can do.
    """
    run = executor._run  # see the docstring
    run.bus = _DirectedLog(run.bus, director)
    director.executor = executor


async def replay_run(
    store: Store,
    run_id: str,
    *,
    from_step: str | None = None,
    tools: Mapping[str, Tool] | None = None,
    agent_runner: Any = None,
    approve_all: bool = False,
    record: bool = True,
    sinks: Sequence[Sink] = (),
) -> ReplayResult:
    """Re-execute a stored run from its record as a new run (recorded unless ``record=False``).

    Without ``from_step`` no tool or model is called, and the replay must reproduce the recorded
    execution's events (``replay_events``). ``tools`` lend their specs (approval, agent-step
    prompts); with ``from_step`` that step and its descendants are run for real with them (and
    gated by the original approvals or ``approve_all``).
    """
    run_id = resolve_run_id(store, run_id)
    await asyncio.to_thread(refuse_if_modified, store, run_id, "replayed")
    events = await asyncio.to_thread(store.events, run_id)
    recording = Recording.from_events(events)
    recorded = execution_events(events)
    if not recorded:
        ended = fold(events)
        raise UserError(
            f"run {run_id} ended ({ended.status}: {ended.reason or 'no reason recorded'}) before "
            "executing anything, so there is nothing to replay"
        )
    original = fold(events)
    real_steps = frozenset(descendants(recording.all_plans(), from_step)) if from_step else frozenset()
    counter = CallCounter()
    held, _ = _held_for_approval(recorded)
    # A step held for approval had a side-effecting tool: its stand-in must be gated too.
    recording.held_tools.update(
        s.tool for plan in recording.all_plans() for s in plan.iter_all_steps() if s.id in held and s.tool
    )
    stand_ins = replay_tools(recording, counter, real_tools=tools, real_steps=real_steps)
    specs = {name: t.spec for name, t in stand_ins.items()}
    inner_gate = ApproveAll() if approve_all else approval_gate(events, specs, run_id=run_id)
    critic = RecordedCritic(recording)
    budgets = recording.budgets
    final = next((e for e in reversed(recorded) if isinstance(e, E.RunFinished)), None)
    director = Director(
        record=recorded,
        # The replaying executor creates its run: ``run_created``, and a given plan's proposal.
        skip=1 if recording.streamed else 2,
        budgets=budgets,
        final=final,
        plan_open=recording.streamed,
        record_run=run_id,
        carried=spent_before(events),
    )
    recording.pace = director.until
    options = ExecutorOptions(
        gate=_ReplayGate(inner_gate, real_steps, recorded),
        replanner=ReplayReplanner(recording),
        phase_planner=ReplayPhasePlanner(recording),
        max_replans=budgets.max_replans if budgets is not None else len(recording.revisions),
        agent_runner=replay_agent_runner(
            recording,
            counter,
            agent_runner,
            real_steps,
            specs={n: t.spec for n, t in tools.items()} if tools is not None else None,
        ),
        critic=critic,
        max_concurrency=queue_limit(recorded, held),
        config={"replay_of": run_id, "from_step": from_step},
        sinks=sinks,
    )

    def on_executor(executor: Executor) -> None:
        critic.record = executor.record
        director.replay_run = executor.run_id
        _direct(executor, director)

    plan = None if recording.streamed else recording.initial_plan
    # Every named executor backend runs in-process: a stand-in must never be shipped to a worker
    # process, which would load and call the real tool by its source.
    names = {"local", "process", *recording.executors}
    if record:
        box: list[Executor] = []

        def bind(executor: Executor) -> None:
            box.append(executor)
            on_executor(executor)

        state = await execute_recorded(
            store,
            plan,
            stand_ins,
            options,
            goal=recording.goal or None,
            plan_open=recording.streamed,
            on_executor=bind,
            backend_factories={name: LocalBackend for name in names},
        )
        new_id = box[0].run_id
    else:
        local = LocalBackend()
        executor = Executor(
            plan,
            stand_ins,
            dataclasses.replace(options, backends={name: local for name in names}),
            goal=recording.goal or None,
            plan_open=recording.streamed,
        )
        on_executor(executor)
        state = await executor.run()
        new_id = executor.run_id
    differences = compare_states(original, state, ignore=real_steps)
    event_differences: list[str] = []
    if not from_step:  # re-run steps make new events by design
        event_differences = director.notes + compare_events(recorded, run_id, director.replayed, new_id)
    return ReplayResult(
        run_id,
        new_id,
        state,
        original,
        counter,
        real_steps,
        differences + event_differences,
        0 if from_step else len(recorded),
        event_differences,
        not from_step and same_order(recorded, run_id, director.replayed, new_id),
    )


__all__ = [
    "CallCounter",
    "CriticCall",
    "RecordedCritic",
    "Recording",
    "ReplayModel",
    "ReplayReplanner",
    "ReplayResult",
    "ReplayTool",
    "compare_states",
    "descendants",
    "replay_agent_runner",
    "replay_models",
    "replay_run",
    "replay_tools",
]
