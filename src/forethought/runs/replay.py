"""Replay a recorded run: tools, models and the replanner answer from the record, not for real.

A run's events hold every tool result (``step_succeeded`` / ``step_failed``, compensations) and
every model response (``model_called``), so the executor can run the same plan again against
stand-ins that hand back what was recorded, in order — zero real tool or model calls — and must
reach the same final state. That makes a run auditable ("this is exactly what happened, and the
scheduler agrees") and debuggable (``--from STEP`` re-runs one step and its descendants for
real while everything upstream comes from the record).

What cannot be reproduced exactly, and why: an attempt that was cut off by a crash has no
result, so it is not replayed (the replay has no crash); an attempt that failed its ``check``
recorded no output, so the replay makes that attempt fail as a tool error instead.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import deque
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

from forethought.errors import ModelError, ToolError, ToolTimeout, UserError
from forethought.events import kinds as E
from forethought.events.kinds import Event
from forethought.events.state import RunState, fold
from forethought.execution._parts import Sink
from forethought.execution.backends.base import LocalBackend, WorkerCrashed
from forethought.execution.executor import ApproveAll, Executor, ExecutorOptions
from forethought.models.base import ModelRequest, ModelResponse, StreamChunk
from forethought.models.record import response_from_record
from forethought.plan.model import Plan, Step
from forethought.runs.approval import approval_gate
from forethought.runs.integrity import refuse_if_modified
from forethought.runs.recording import execute_recorded
from forethought.runs.run_ids import resolve_run_id
from forethought.runs.store.base import Store
from forethought.tools.base import Tool, ToolContext, ToolSpec

Outcome = tuple[str, Any, str]  # ("ok", output, "") | ("error", message, failure_class)
_COMPENSATE_SUFFIX = ":compensate"


@dataclass
class Recording:
    """What a run's events say each call returned, in call order."""

    run_id: str
    initial_plan: Plan
    outcomes: dict[tuple[str, str], deque[Outcome]] = field(default_factory=dict)
    revisions: deque[Plan] = field(default_factory=deque)
    model_calls: list[E.ModelCalled] = field(default_factory=list)
    tool_names: set[str] = field(default_factory=set)
    executors: set[str] = field(default_factory=set)

    @classmethod
    def from_events(cls, events: Sequence[Event]) -> Recording:
        first_plan = next((e for e in events if isinstance(e, E.PlanProposed)), None)
        if first_plan is None:
            run = events[0].run_id if events else "?"
            raise UserError(f"run {run} has no recorded plan, so it cannot be replayed")
        rec = cls(run_id=first_plan.run_id, initial_plan=Plan.model_validate(first_plan.plan))
        open_attempts: set[str] = set()
        open_compensations: set[str] = set()
        for e in events:
            if isinstance(e, E.StepStarted):
                open_attempts.add(e.step_id)
            elif isinstance(e, E.StepSucceeded) and e.step_id in open_attempts:
                open_attempts.discard(e.step_id)
                rec._add(("step", e.step_id), ("ok", e.output, ""))
            elif isinstance(e, E.StepFailed) and e.step_id in open_attempts:
                open_attempts.discard(e.step_id)
                rec._add(("step", e.step_id), ("error", e.error, e.failure_class))
            elif isinstance(e, (E.StepCancelled, E.StepNeedsReview)):
                open_attempts.discard(e.step_id)  # cut off: no result to replay
            elif isinstance(e, E.RunResumed):
                open_attempts.clear()  # attempts open at a crash never produced a result
                open_compensations.clear()
            elif isinstance(e, E.CompensationStarted):
                open_compensations.add(e.step_id)
                rec.tool_names.add(e.tool)
            elif isinstance(e, E.CompensationSucceeded) and e.step_id in open_compensations:
                open_compensations.discard(e.step_id)
                rec._add(("compensate", e.step_id), ("ok", e.output, ""))
            elif isinstance(e, E.CompensationFailed) and e.step_id in open_compensations:
                open_compensations.discard(e.step_id)
                rec._add(("compensate", e.step_id), ("error", e.error, "error"))
            elif isinstance(e, E.PlanRevised):
                rec.revisions.append(Plan.model_validate(e.plan))
            elif isinstance(e, E.ModelCalled):
                rec.model_calls.append(e)
        for plan in (rec.initial_plan, *rec.revisions):
            for s in plan.iter_all_steps():
                if s.tool:
                    rec.tool_names.add(s.tool)
                if s.compensate:
                    rec.tool_names.add(s.compensate.tool)
                if s.executor:
                    rec.executors.add(s.executor)
        return rec

    def _add(self, key: tuple[str, str], outcome: Outcome) -> None:
        self.outcomes.setdefault(key, deque()).append(outcome)

    def all_plans(self) -> list[Plan]:
        return [self.initial_plan, *self.revisions]


@dataclass
class CallCounter:
    """How many calls were answered from the record and how many were made for real."""

    replayed: int = 0
    real: int = 0
    missing: list[str] = field(default_factory=list)


def _raise_recorded(message: str, failure_class: str) -> NoReturn:
    if failure_class == "timeout":
        raise ToolTimeout(message)
    if failure_class == "crashed":
        raise WorkerCrashed(message)
    raise ToolError(message, retryable=True)


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
        status, value, failure_class = queue.popleft()
        self._counter.replayed += 1
        if status == "ok":
            return value
        _raise_recorded(str(value), failure_class)


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
                source=f"replay:{recording.run_id}",
            )
        )
        out[name] = ReplayTool(spec, recording, counter, real, real_steps)
    return out


def replay_agent_runner(
    recording: Recording, counter: CallCounter, real: Any = None, real_steps: frozenset[str] = frozenset()
) -> Any:
    """Agent steps answer with their recorded result: their model calls are not made again."""

    async def run(step: Step, ctx: ToolContext) -> Any:
        if step.id in real_steps and real is not None:
            counter.real += 1
            return await real(step, ctx)
        queue = recording.outcomes.get(("step", step.id))
        if not queue:
            counter.missing.append(step.id)
            raise ToolError(
                f"replay diverged: no recorded result left for agent step {step.id!r}", retryable=False
            )
        status, value, failure_class = queue.popleft()
        counter.replayed += 1
        if status == "ok":
            return value
        _raise_recorded(str(value), failure_class)

    return run


class ReplayReplanner:
    """Returns the recorded plan revisions in order; ``None`` when the record has no more."""

    def __init__(self, recording: Recording) -> None:
        self._plans = deque(recording.revisions)

    async def __call__(self, plan: Plan, state: RunState, failure: Mapping[str, Any]) -> Plan | None:
        return self._plans.popleft() if self._plans else None


class ReplayModel:
    """A ``Model`` that answers with recorded ``model_called`` responses, in order.

    It fails on a call the record does not have, so a replay that would need a new model answer
    is reported as diverged instead of silently calling a provider.
    """

    def __init__(self, calls: Iterable[E.ModelCalled], *, name: str = "replay") -> None:
        self._calls = deque(calls)
        self._name = name
        self.used = 0

    @property
    def name(self) -> str:
        return self._name

    @property
    def remaining(self) -> int:
        return len(self._calls)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        if not self._calls:
            raise ModelError("replay diverged: the record has no further model response")
        call = self._calls.popleft()
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

    @property
    def same(self) -> bool:
        return not self.differences


class _ReplayGate:
    """Replayed steps do nothing real, so they need no approval; re-run ones go to ``inner``."""

    def __init__(self, inner: Any, real_steps: frozenset[str]) -> None:
        self._inner = inner
        self._real = real_steps

    def allows(self, step: Step, spec: ToolSpec | None) -> bool:
        if step.id not in self._real:
            return True
        return bool(self._inner.allows(step, spec))


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

    Without ``from_step`` no tool or model is called. With it, that step and its descendants are
    run for real with ``tools`` (and gated by the original approvals or ``approve_all``).
    """
    run_id = resolve_run_id(store, run_id)
    await asyncio.to_thread(refuse_if_modified, store, run_id, "replayed")
    events = await asyncio.to_thread(store.events, run_id)
    recording = Recording.from_events(events)
    original = fold(events)
    real_steps = frozenset(descendants(recording.all_plans(), from_step)) if from_step else frozenset()
    counter = CallCounter()
    stand_ins = replay_tools(recording, counter, real_tools=tools, real_steps=real_steps)
    specs = {name: t.spec for name, t in stand_ins.items()}
    inner_gate = ApproveAll() if approve_all else approval_gate(events, specs, run_id=run_id)
    options = ExecutorOptions(
        gate=_ReplayGate(inner_gate, real_steps),
        replanner=ReplayReplanner(recording),
        max_replans=max(len(recording.revisions), 0),
        agent_runner=replay_agent_runner(recording, counter, agent_runner, real_steps),
        config={"replay_of": run_id, "from_step": from_step},
        sinks=sinks,
    )
    # Every named executor backend runs in-process: a stand-in must never be shipped to a worker
    # process, which would load and call the real tool by its source.
    names = {"local", "process", *recording.executors}
    if record:
        box: list[Executor] = []
        state = await execute_recorded(
            store,
            recording.initial_plan,
            stand_ins,
            options,
            on_executor=box.append,
            backend_factories={name: LocalBackend for name in names},
        )
        new_id = box[0].run_id
    else:
        local = LocalBackend()
        executor = Executor(
            recording.initial_plan,
            stand_ins,
            dataclasses.replace(options, backends={name: local for name in names}),
        )
        state = await executor.run()
        new_id = executor.run_id
    differences = compare_states(original, state, ignore=real_steps)
    return ReplayResult(run_id, new_id, state, original, counter, real_steps, differences)


__all__ = [
    "CallCounter",
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
