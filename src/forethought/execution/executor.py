"""The event-driven DAG scheduler: a step starts the instant its last dependency succeeds.

No polling and no supersteps: every step knows how many of its dependencies are still
outstanding; the step that completes last decrements the counter to zero and launches it, in the
same turn of the event loop. Launched steps are run by worker tasks (``_worker``): a step always
runs inside a task named after it, a step that never suspends costs no task of its own, and
every step that suspends has one, so suspended steps all run concurrently.

Every state change is an ``Event`` with a gap-free ``seq``; the executor's own ``RunState`` is
advanced with ``state.apply`` — the very fold that rebuilds a stored run — so a resumed run starts
from exactly what was recorded. Subscribers (``events()``, sinks, the supervisor) read the log in
order, each at its own pace, off the scheduling path: a slow one lags but never reorders or slows
the scheduler.

This module decides *when* a step runs and what its outcome means for the rest of the plan.
What a started step does is ``attempts``; replanning and rollback are ``recovery``. The state all
three share — event stream, current plan, tools and backends, idempotency keys — is one
``RunContext`` the executor owns and hands over; recovery reaches the scheduler only through the
``recovery.Scheduler`` operations (``_Control`` below).

``step_ready`` is emitted only when a ready step has to wait (a concurrency limit, the approval
gate, or a plan still streaming); a step that can start at once goes straight to ``step_started``.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from forethought.events import kinds as E
from forethought.events.kinds import Event
from forethought.events.state import TERMINAL_STEP_STATUSES, RunState, fold
from forethought.execution import recovery
from forethought.execution._events import PROGRESS_EVENTS, EventLog, Subscription
from forethought.execution._parts import (
    ApproveAll,
    Gate,
    ReadOnlyGate,
    Sink,
    StopRequest,
    denial_reason,
    ignored_by,
    inline_of,
    run_summary,
)
from forethought.execution._resume import Resume
from forethought.execution._steps import (
    plan_record,
    spec_of,
    step_data,
)
from forethought.execution.attempts import Opened, Pending, attempts, quick_attempt, quick_call, quick_open
from forethought.execution.backends import prepare_backend
from forethought.execution.context import How, RunContext
from forethought.execution.options import ExecutorOptions
from forethought.execution.outcomes import SUCCEEDED, Failed, Outcome
from forethought.execution.phase_expansion import expand_phase
from forethought.oversight.checks import prepare_check
from forethought.oversight.policy import needs_approval
from forethought.plan.model import Plan, Step
from forethought.plan.phases import phase_of
from forethought.tools._proc import ProcInfo, reap_orphans
from forethought.tools.base import Tool, ToolSpec

__all__ = [
    "ApproveAll",
    "Executor",
    "ExecutorOptions",
    "ReadOnlyGate",
    "StopRequest",
    "recorded_failure",
    "rollback_finished",
    "run_plan",
]


# A worker running steps that never suspend yields to the event loop after this long.
_SLICE_S = 0.002
# At most this many new workers at once when a worker's step suspends with steps still waiting.
_SPAWN_BATCH = 32


class Executor:
    """Runs one plan (or one resumed run). Create, optionally subscribe, then ``await run()``."""

    def __init__(
        self,
        plan: Plan | None,
        tools: Mapping[str, Tool],
        options: ExecutorOptions | None = None,
        *,
        run_id: str | None = None,
        goal: str | None = None,
        plan_open: bool = False,
        prior_events: Sequence[Event] = (),
        preamble: bool = False,
    ) -> None:
        """Run ``plan`` with ``tools`` as ``options`` say; ``prior_events`` continue a recorded
        run; ``plan_open`` starts with a plan that is still streaming (``extend``/``close_plan``).

        ``preamble``: ``prior_events`` are this new run's own beginning (the ``Agent``'s
        planning, validation and approval, nothing run yet), not a run to resume: the record
        says ``execution_started`` where a resume says ``run_resumed``."""
        opts = options if options is not None else ExecutorOptions()
        self.options = opts
        if plan is None and not plan_open and not prior_events:
            raise ValueError(
                "give a plan, plan_open=True (then extend()/close_plan()), or prior_events to resume"
            )
        self.state: RunState = fold(prior_events) if prior_events else RunState()
        self._resuming = bool(prior_events)
        self._preamble = preamble and self._resuming
        # Steps a human reviewed (needs_review, or interrupted mid-call) and allows to run again.
        self._rerun = opts.rerun
        if self._resuming and plan is None:
            if not self.state.plan:
                raise ValueError("the prior events contain no plan to resume")
            plan = Plan.model_validate(self.state.plan)
        self.run_id = self.state.run_id or run_id or uuid.uuid4().hex[:12]
        self._goal = goal if goal is not None else (plan.goal if plan else self.state.goal)
        # What the scheduler shares with attempts and recovery: the event stream (seq, state
        # fold, log), the current plan, tools and backends, idempotency keys, collaborators.
        # With keep_log=False only subscribers' own queues hold events (bounded memory for huge
        # runs; the store is the durable log). Subscribers then see events from when they joined.
        self._run = RunContext(
            run_id=self.run_id,
            state=self.state,
            plan=plan,
            plan_hash=self.state.plan_hash if self._resuming else "",
            bus=EventLog(
                keep=opts.keep_log,
                tap=opts.journal.append_nowait if opts.journal else None,
                # With a journal the store holds every step's progress events: not kept here too.
                unkept=PROGRESS_EVENTS if opts.journal is not None else frozenset(),
            ),
            tools=tools,
            backends=opts.backends,
            rng=random.Random(opts.seed),  # noqa: S311 - retry jitter, not cryptography
            critic=opts.critic,
            agent_runner=opts.agent_runner,
            replanner=opts.replanner,
            max_replans=opts.max_replans,
            record=self.record,
            journal=opts.journal,
            workspace=opts.workspace,
            phase_planner=opts.phase_planner,
        )
        if opts.journal is not None:
            self._run.early_seq = self._early_need
        self._control = _Control(self)
        self._phases = _Phases(self)
        self._plan_closed = not plan_open
        self._gate: Gate = opts.gate if opts.gate is not None else ReadOnlyGate()
        self._supervisor = opts.supervisor
        self._sinks = list(opts.sinks)
        self._approved_by = opts.approved_by
        self._approval_scope: Literal["read_only", "all"] = opts.approval_scope
        self._config = dict(opts.config)
        self._max = opts.max_concurrency if opts.max_concurrency and opts.max_concurrency > 0 else None
        self._limits = {k: v for k, v in opts.tool_limits.items() if v > 0}
        self._limited = self._max is not None or bool(self._limits)
        # scheduling structures
        self._steps: dict[str, Step] = {}
        self._specs: dict[str, ToolSpec | None] = {}
        self._how: dict[str, How] = {}
        self._quick: dict[str, Tool] = {}
        self._gated: set[str] = set()  # steps that need the gate's approval to start
        self._every_step: dict[str, Step] = {}  # incl. retired ones, for compensation
        # Step id → its dependents; tuples shared with ``Plan.dependents_map`` until a step is
        # linked one at a time (streaming, resume), which turns that entry into a list.
        self._dependents: dict[str, Sequence[str]] = {}
        self._waiting: dict[str, int] = {}
        # Steps suspended mid-call and the worker task each is suspended in (see ``_worker``):
        # what a halt cancels. A step running synchronously is never cancelled from outside (no
        # other code runs meanwhile); if it stops the run itself, it is cancelled when it suspends.
        self._tasks: dict[str, asyncio.Task[None]] = {}
        # Launched steps waiting for a worker to pick them up, in launch order. A halt does not
        # drop them: a worker still enters each one, and it stands down with its bookkeeping.
        self._ready_q: deque[Step | Opened] = deque()
        # With a journal: quick attempts whose ``step_started`` is not durable yet, in seq order.
        # Released to ``_ready_q`` by ``_on_durable`` (their tools are called then), or stood
        # down by a halt.
        self._parked: deque[Opened] = deque()
        # With a journal: steps of an idempotent tool that needs no approval, whose first
        # attempt may be called before its own ``step_started`` is durable — once everything it
        # depends on is (see ``_may_call``; ``_early_need`` for attempts that are not quick).
        # A crash before that start lands loses only a call that a resume makes again with the
        # same idempotency key.
        self._early: set[str] = set()
        self._done_seq: dict[str, int] = {}  # step → a seq covering its ``step_succeeded``
        self._base_seq = -1  # the last event ``_begin`` emitted (see ``run``)
        self._cancelling = False  # a halt cancelled the running steps
        self._workers: set[asyncio.Task[None]] = set()
        self._unstarted: set[asyncio.Task[None]] = set()  # spawned workers not yet running
        self._pickers = 0  # workers that will look at ``_ready_q`` before they end
        self._running = 0
        self._running_by_key: dict[str, int] = {}
        self._queues: dict[str, deque[tuple[int, str]]] = {}
        self._queued = 0
        self._order = 0
        self._blocked: dict[str, None] = {}
        self._streamed: list[Step] = []
        # run control
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop  # set when run() starts; nothing launches before
        self._started = False
        self._finished = False
        self._halted = False
        self._stop: StopRequest | None = None
        self._cancel_reason = "cancelled"
        self._fatal: str | None = None
        self._replan_queue: list[dict[str, Any]] = []
        self._rollback_after: str | None = None
        if plan is not None:
            self._add_steps(plan.steps)
        # The step whose failure for good ended the recorded run: nothing of the plan runs again.
        self._recorded_failure: str | None = None
        if self._resuming:
            for sid, st in self.state.steps.items():
                if st.idempotency_key:
                    self._run.keys[sid] = st.idempotency_key
            if plan is not None:
                self._recorded_failure = recorded_failure(prior_events, plan, self.state)

    # ------------------------------------------------------------------ public surface

    @property
    def plan(self) -> Plan | None:
        return self._run.plan

    @property
    def log(self) -> list[Event]:
        """Every event this executor emitted, in order (empty with ``keep_log=False``) — but,
        with a journal, the per-step progress events (``step_ready``, ``step_started``,
        ``step_succeeded``): the store holds those, and the run's state what they said."""
        history = self._run.bus.history
        return history if history is not None else []

    def events(self) -> Subscription:
        """Events of this execution in order until ``run_finished``: those kept in ``log``, then
        every one emitted after this call (iterate it to the end, or close it)."""
        return self._stream()

    @property
    def stopping(self) -> bool:
        """A stop was requested or the run is over: collaborators add nothing more to it."""
        return self._stop is not None or self._finished

    def summary(self) -> dict[str, Any]:
        deps = {s.id: s.all_dependencies() for s in self._steps.values()}
        return run_summary(self.state, deps)

    def record(self, cls: type[E._Event], **fields: Any) -> Event:
        """Append an event from a collaborator (model calls, approvals) to this run's stream."""
        if not self._started:
            raise RuntimeError("record() is for events during a run; call it after run() started")
        event: Event = self._emit(cls, **fields)
        return event

    def stop(
        self, status: Literal["paused", "failed", "awaiting_approval"] = "paused", reason: str = "stopped"
    ) -> None:
        """Stop the run: cancel running steps and drain; ``paused`` runs can be resumed, and
        ``awaiting_approval`` ones continue once a person approves their plan."""
        self._request_stop(StopRequest(status, reason))

    def extend(self, steps: Iterable[Step]) -> None:
        """Add steps to a plan that is still streaming; they start as soon as they can."""
        if self._plan_closed:
            raise RuntimeError("the plan is closed; revise it with a new plan version instead")
        new = list(steps)
        for s in new:
            if s.id in self._steps:
                raise ValueError(f"step {s.id!r} is already in the plan")
        self._streamed.extend(new)
        if not self._started:
            self._add_steps(new)
            return
        self._emit(E.StepsAdded, steps=[step_data(s) for s in new])
        self._add_steps(new)
        self._link(new)

    def reconsider(self) -> None:
        """Ask the gate again about steps waiting for approval (after one was recorded)."""
        for sid in list(self._blocked):
            if self._gate.allows(self._steps[sid], self._specs[sid]):
                del self._blocked[sid]
                self._enqueue_or_launch(sid)
        self._poke()

    def close_plan(self, rollback: Sequence[Step] = (), *, release: bool = True, version: int = 1) -> Plan:
        """Mark a streaming plan complete; steps needing approval may be considered from now on
        (at once, or with ``release=False`` only at the next ``reconsider``, so the caller can
        revise or stop the plan first). ``version``: the complete plan's version number (a
        step-wise plan is closed at the version of its last decision)."""
        if self._plan_closed:
            raise RuntimeError("the plan is already closed")
        self._plan_closed = True
        base = self._run.plan
        steps = (*(base.steps if base else ()), *self._streamed)
        plan = Plan(
            goal=self._goal,
            steps=steps,
            rollback=tuple(rollback) or (base.rollback if base else ()),
            version=version,
        )
        self._run.plan = plan
        if self._started:
            data, digest = plan_record(plan)
            self._run.plan_hash = digest
            self._emit(E.PlanProposed, plan=data, plan_hash=digest, source="planner")
            from forethought.plan.validation import validate_plan

            problems = validate_plan(plan, {n: t.spec for n, t in self._run.tools.items()})
            if problems:  # read-only steps may have run; nothing else will
                self._fatal = f"the completed plan is invalid: {problems[0]}"
                self._halt(f"run aborted: {self._fatal}", skip=True)
                return plan
            self._fail_unreachable()
            if release:
                self.reconsider()
        return plan

    def revise(self, plan: Plan, reason: str) -> str | None:
        """Continue under ``plan``, a revision of the current one (recorded as ``plan_revised``);
        returns why it was refused, or None.

        Refused when it is invalid, when it changes or drops a step under way, or when it changes
        a step that has already run: that step's result belongs to the arguments it ran with (a
        finished step it drops is history). Steps under way that the revision keeps as they are
        go on and are not started again.
        """
        if not self._plan_closed:
            raise RuntimeError("close the streaming plan before revising it")
        return self._revise(plan, reason)

    def _revise(self, plan: Plan, reason: str, phase: str | None = None) -> str | None:
        """``revise``; with ``phase``, ``plan`` splices that phase in (it is under way itself:
        its worker is planning it) and the phase planner ``admit``s the version."""
        states = self.state.steps
        in_flight = {s.id for s in self._ready_q} | {o.id for o in self._parked} | set(self._tasks)
        in_flight.update(sid for queue in self._queues.values() for _, sid in queue)
        in_flight.update(sid for sid, st in states.items() if st.status == "running")
        in_flight.discard(phase or "")
        kept = plan.step_map()
        for sid, step in self._steps.items():
            new = kept.get(sid)
            if new == step or sid == phase:
                continue
            if sid in in_flight:  # its outcome would land in a plan that no longer has it
                return f"step {sid!r} is under way and the revision changes or drops it"
            if new is not None and sid in states and states[sid].status != "pending":
                return f"step {sid!r} has already run and the revision changes it"
        if phase is None:
            return recovery.adopt(self._run, _Control(self, frozenset(in_flight)), plan, reason)
        planner = self._run.phase_planner
        return recovery.adopt(
            self._run,
            _Control(self, frozenset(in_flight), keep_halt=True),
            plan,
            reason,
            phase=phase,
            admit=planner.admit if planner is not None else None,
        )

    async def run(self) -> RunState:
        """Execute to the end (or a pause) and return the final state."""
        if self._started:
            raise RuntimeError("an Executor runs once; create a new one to resume")
        self._started = True
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        if self.options.journal is not None:
            self.options.journal.watch(self._on_durable, self._on_journal_broken)
        # Each pump's stream is registered now, before ``_begin`` emits anything: events left out
        # of the kept history (see ``EventLog``) would otherwise be lost to it.
        pumps = []
        for i, s in enumerate(self._sinks):
            deliver = inline_of(s)
            if deliver is not None:  # called as events are emitted: no pump (``inline_of``)
                self._run.bus.listen(self._inline_sink(s, deliver), ignored_by(s))
                continue
            pump = self._pump_sink(s, self._stream(ignored_by(s)))
            pumps.append(asyncio.create_task(pump, name=f"sink-{i}"))
        if self._supervisor is not None:
            supervised = self._stream(ignored_by(self._supervisor))
            pumps.append(asyncio.create_task(self._pump_supervisor(supervised), name="supervisor"))
        try:
            self._begin()
            # Everything ``_begin`` recorded — the run's start, plan and approval, and on a resume
            # the reviewed, retried and skipped steps — is durable before an early call.
            self._base_seq = self._run.seq - 1
            if self._run.journal is not None and len(self._ready_q) > 1:
                # A worker per ready step now, not one that hands the rest on when its first
                # step waits for the journal (a loop turn later): every first step's start then
                # joins the run's first commit instead of waiting for a second one.
                self._spawn_workers(min(len(self._ready_q), _SPAWN_BATCH) - self._pickers)
            await self._drive()
            await recovery.rollback(self._run, self._control)
        except asyncio.CancelledError:
            # Ctrl-C or an outer cancel: record a resumable pause, then let the cancel propagate.
            self._request_stop(StopRequest("paused", "interrupted; resume the run to continue"))
            await self._wind_down(pumps)
            raise
        except Exception as exc:  # a bug in a hook or in forethought: never leave tasks behind
            self._request_stop(
                StopRequest(
                    "paused", f"internal error: {type(exc).__name__}: {exc}; resume the run to continue"
                )
            )
            await self._wind_down(pumps)
            raise
        self._finish()
        await asyncio.gather(*pumps, return_exceptions=True)
        await self._close_backends()
        return self.state

    async def _wind_down(self, pumps: list[asyncio.Task[None]]) -> None:
        await self._drain()
        if not self._finished:
            self._finish()
        await asyncio.gather(*pumps, return_exceptions=True)
        await self._close_backends()

    # ------------------------------------------------------------------ events

    def _emit(self, cls: type[E._Event], **fields: Any) -> Any:
        return self._run.emit(cls, **fields)

    def _stream(self, ignores: frozenset[type[Any]] = frozenset()) -> Subscription:
        return self._run.bus.stream(ignores)

    async def _pump_sink(self, sink: Sink, events: Subscription) -> None:
        try:
            async with contextlib.aclosing(events):  # a failed sink's queue stops filling
                async for event in events:
                    await sink(event)
        except Exception as exc:
            self._request_stop(
                StopRequest("failed", f"event sink {sink!r} failed: {type(exc).__name__}: {exc}")
            )

    def _inline_sink(self, sink: Sink, deliver: Callable[[Event], None]) -> Callable[[Event], None]:
        """``deliver`` as the event log's listener: a failure stops the run as a failed pump does.

        The stop is requested on the next loop turn, not inside the emit that raised: stopping
        emits events itself (skipped steps), which must not land in the middle of another."""

        def listener(event: Event) -> None:
            try:
                deliver(event)
            except Exception as exc:
                self._run.bus.unlisten(listener)  # as a failed pump's queue stops filling
                request = StopRequest("failed", f"event sink {sink!r} failed: {type(exc).__name__}: {exc}")
                asyncio.get_running_loop().call_soon(self._request_stop, request)

        return listener

    async def _pump_supervisor(self, events: Subscription) -> None:
        assert self._supervisor is not None
        async for event in events:
            if self._finished:
                continue
            try:
                request = await self._supervisor(event, self.state)
            except Exception as exc:
                request = StopRequest("failed", f"the supervisor failed: {type(exc).__name__}: {exc}")
            if request is not None:
                self._request_stop(request)

    # ------------------------------------------------------------------ plan bookkeeping

    def _add_steps(self, steps: Iterable[Step]) -> None:
        # Most steps differ only in id and args: their placement depends on the tool alone.
        by_tool: dict[str, tuple[ToolSpec | None, tuple[Tool | None, float | None, str], bool]] = {}
        for s in steps:
            sid = s.id
            self._steps[sid] = s
            self._every_step[sid] = s
            if s.check is not None:
                prepare_check(s.check)  # its schema validator and regex: compiled now, not mid-run
            if s.executor is not None:
                prepare_backend(s.executor)  # a process pool's or Ray's module: imported now, not mid-run
            plain = s.tool is not None and s.timeout_s is None and s.executor is None and s.approval == "auto"
            placed = by_tool.get(s.tool) if plain else None  # type: ignore[arg-type]
            if placed is None:
                tool = self._run.tools.get(s.tool) if s.tool is not None else None
                spec = tool.spec if tool is not None else None
                placed = (spec, self._run.how_to_run(s, spec), needs_approval(s, spec))
                if plain:
                    by_tool[s.tool] = placed  # type: ignore[index]
            self._specs[sid], self._how[sid], gated = placed
            if gated:
                self._gated.add(sid)
            direct, limit_s, _ = placed[1]
            if direct is not None and limit_s is None and s.check is None:
                self._quick[sid] = direct  # see attempts.quick_attempt
            # Only the steps of a closed plan given at the start: one added later (a phase's, a
            # streamed one, a revised plan's) may depend on events after ``_base_seq`` that no
            # dependency's result covers.
            spec = placed[0]
            at_start = self._plan_closed and not self._started
            if at_start and not gated and spec is not None and spec.idempotent and s.agent is None:
                self._early.add(sid)

    def _link(self, steps: Iterable[Step], under_way: frozenset[str] = frozenset()) -> None:
        """Wire dependency counters for ``steps`` and launch those already satisfiable."""
        status = self.state.steps
        dependents = self._dependents
        ready: list[str] = []
        for s in steps:
            st = status.get(s.id)
            if st is not None and st.status in TERMINAL_STEP_STATUSES and st.status != "cancelled":
                continue
            if s.id in under_way:
                continue
            n = 0
            for d in s.all_dependencies():
                dst = status.get(d)
                if dst is None or dst.status != "succeeded":
                    n += 1
                    waiting_on = dependents.get(d)
                    if type(waiting_on) is not list:
                        waiting_on = dependents[d] = list(waiting_on or ())
                    waiting_on.append(s.id)
            self._waiting[s.id] = n
            if n == 0:
                ready.append(s.id)
        for sid in ready:
            self._ready(sid)

    def _link_fresh(self, plan: Plan) -> None:
        """``_link`` for a plan none of whose steps has run yet: counters straight from the plan.

        The dependency maps are the plan's own (computed once per plan object, e.g. by review
        and approval before the run), so a 10,000-step plan is wired in a few milliseconds.
        """
        self._dependents = dict(plan.dependents_map())
        self._waiting = dict(plan.indegree_map())
        for sid, n in self._waiting.items():
            if n == 0:
                self._ready(sid)

    def _install(self, plan: Plan, under_way: frozenset[str] = frozenset()) -> None:
        """Switch to ``plan``; steps ``under_way`` (launched, unchanged) are not started again."""
        self._steps, self._specs, self._dependents, self._waiting = {}, {}, {}, {}
        self._how, self._quick, self._early = {}, {}, set()
        self._add_steps(plan.steps)
        self._link(plan.steps, under_way)

    def _fail_unreachable(self) -> None:
        """At plan close: steps waiting on ids that are not in the plan can never start."""
        steps = self._steps
        missing = [d for d in self._dependents if d not in steps]
        for d in missing:
            for sid in self._dependents.get(d, ()):
                if sid in steps and self.state.step(sid).status == "pending":
                    why = f"depends on unknown step {d!r}"
                    self._emit(E.StepFailed, step_id=sid, attempt=0, failure_class="reference", error=why)
                    self._after_failure(steps[sid], "reference", why)

    # ------------------------------------------------------------------ lifecycle

    def _begin(self) -> None:
        plan = self._run.plan
        if self._preamble:
            self._emit(E.ExecutionStarted)
        elif self._resuming:
            self._emit(E.RunResumed, reason="resumed from recorded events")
        else:
            self._emit(E.RunCreated, goal=self._goal, config=self._config)
            if plan is not None:
                if self._plan_closed:
                    data, self._run.plan_hash = plan_record(plan)
                    self._emit(E.PlanProposed, plan=data, plan_hash=self._run.plan_hash, source="api")
                else:
                    self._emit(E.StepsAdded, steps=[step_data(s) for s in plan.steps])
            if self._approved_by and plan is not None and self._plan_closed:
                self._emit(
                    E.PlanApproved,
                    plan_hash=self._run.plan_hash,
                    approver=self._approved_by,
                    scope=self._approval_scope,
                )
        # Prior events that only planned, validated and approved the plan (the Agent's) start a
        # fresh run: nothing was called, so no process to reap and nothing to review. (With
        # write-ahead no tool runs before its start is recorded, except an idempotent one
        # (``_may_call``), which may simply be called again.)
        fresh = plan is not None and self._plan_closed and (not self._resuming or self._nothing_ran(plan))
        resuming = self._resuming and not fresh
        if resuming:
            self._reap_orphans()
        if resuming and self._recorded_failure is not None:
            self._resume_failed(self._recorded_failure)
            return
        if resuming and self._review_interrupted(self._steps.values()):
            return
        if fresh:
            assert plan is not None
            self._link_fresh(plan)
        else:
            self._link(list(self._steps.values()))
            for sid in list(self._steps):  # failed for good: its dependents stay skipped
                if self.state.steps[sid].status == "failed":
                    self._skip_descendants(sid, f"dependency {sid!r} failed")
        if self._plan_closed:
            self._fail_unreachable()

    def _nothing_ran(self, plan: Plan) -> bool:
        """No step of ``plan`` has any recorded progress (prior events that only planned,
        validated and approved it, as the ``Agent`` hands over): wired like a fresh run."""
        steps = self.state.steps
        return all(steps[s.id].status == "pending" for s in plan.steps if s.id in steps)

    def _resume_failed(self, sid: str) -> None:
        """The recorded run failed for good at ``sid``: none of its plan runs again; only the
        unfinished part of its rollback (if due) does, interrupted steps as in any resume."""
        step, st = self._steps[sid], self.state.steps[sid]
        what = f"step {sid!r} failed ({st.failure_class}): {st.error}"
        rollback = step.on_failure == "rollback"
        plan = self._run.plan
        if rollback and plan is not None and self._review_interrupted(plan.rollback):
            return
        self._fatal = what
        if rollback:
            self._rollback_after = sid
        self._halt(f"run aborted: {what}", skip=True)

    def _reap_orphans(self) -> None:
        """Kill tool processes a killed runner of this run left behind, before anything is
        reviewed or re-run: a reviewer must see the final state of the world, and a retry must
        never overlap the original call (issue 15 item 6). Policy: kill, not wait — a tool's
        timeout can be days, and after the kill nothing changes any more. Bounded (``REAP_WAIT_S``)."""
        recorded = [
            ProcInfo(pid, pgid, start)
            for st in (*self.state.steps.values(), *self.state.retired.values())
            for pid, pgid, start in st.processes
        ]
        reap_orphans(self.run_id, recorded)

    def _review_interrupted(self, steps: Iterable[Step]) -> bool:
        """Steps cut off mid-call re-run only if idempotent; otherwise a human must look."""
        review = False
        for s in steps:
            sid = s.id
            st = self.state.steps.get(sid)
            if st is None:
                continue
            if st.status == "needs_review" and sid in self._rerun:
                self._emit(E.StepReady, step_id=sid)  # reviewed by a human: may run again
            elif st.status == "needs_review":
                review = True
            elif st.status in ("running", "cancelled") and s.phase is not None:
                continue  # a phase being planned called nothing: it is planned again
            elif st.status in ("running", "cancelled"):
                spec = self._specs[sid] if sid in self._specs else spec_of(self._run.tools, s)
                if sid in self._rerun or (s.agent is None and spec is not None and spec.idempotent):
                    continue  # re-run with the recorded idempotency key
                what = f"tool {s.tool!r} is not idempotent" if s.tool else "it is an agent step"
                self._emit(
                    E.StepNeedsReview,
                    step_id=sid,
                    reason=f"was running when the run stopped and {what}; check whether "
                    "it took effect before resuming",
                )
                review = True
        if review:
            self._halted = True
            self._stop = StopRequest(
                "paused",
                "steps need review: "
                + ", ".join(sid for sid, st in self.state.steps.items() if st.status == "needs_review"),
            )
        return review

    async def _drive(self) -> None:
        """Wait for quiescence; handle replans; repeat until the run is over."""
        assert self._wake is not None
        while True:
            while not (self._running == 0 and (self._plan_closed or self._stop is not None)):
                await self._wake.wait()
                self._wake.clear()
            if self._replan_queue and self._stop is None and self._fatal is None:
                await recovery.replan(self._run, self._control)
                continue
            return

    async def _drain(self) -> None:
        while self._workers:
            await asyncio.gather(*self._workers, return_exceptions=True)

    def _finish(self) -> None:
        status, reason = self._final_status()
        if status == "awaiting_approval":
            plan = self._run.plan
            plan_hash = self._run.plan_hash or (plan.plan_hash() if plan else "")
            held = list(self._blocked) or [
                sid for sid in self._gated if sid in self._steps and self.state.steps[sid].status == "pending"
            ]
            self._emit(
                E.ApprovalRequested,
                plan_hash=plan_hash,
                step_ids=held,
                reason=reason
                if self._stop is not None
                else f"{len(held)} step(s) need approval before they run",
            )
        self._finished = True
        self._emit(E.RunFinished, status=status, reason=reason)
        self._run.bus.close()

    def _final_status(self) -> tuple[E.RunStatus, str]:
        if self._stop is not None:
            return self._stop.status, self._stop.reason
        if self._fatal is not None:
            return "failed", self._fatal
        if self._blocked:
            # Why, when the gate says (e.g. which pinned tool changed since it was approved).
            why = getattr(self._gate, "reason_denied", {})
            reasons = "; ".join(dict.fromkeys(why[s] for s in self._blocked if s in why))
            # The gate's reasons stay last, in parentheses: a replay reads them back from there.
            return "awaiting_approval", "approval needed for: " + ", ".join(self._blocked) + (
                self._phase_effects()
            ) + (f" ({reasons})" if reasons else "")
        failed: list[str] = []
        unfinished: list[str] = []
        states = self.state.steps
        for sid in self._steps:
            status = states[sid].status
            if status != "succeeded":
                (failed if status == "failed" else unfinished).append(sid)
        if failed:
            return "failed", f"{len(failed)} step(s) failed: {', '.join(failed[:10])}"
        if unfinished:
            return "failed", f"{len(unfinished)} step(s) did not complete: " + ", ".join(unfinished[:10])
        return "succeeded", ""

    def _phase_effects(self) -> str:
        """For held steps a phase planned: which phase, and the calls they would make."""
        plan = self._run.plan
        owner = phase_of(plan) if plan is not None else {}
        by_phase: dict[str, list[str]] = {}
        for sid in self._blocked:
            if sid in owner:
                step = self._steps[sid]
                what = f"calls {step.tool}" if step.tool is not None else "is an agent step"
                by_phase.setdefault(owner[sid], []).append(f"{sid} {what}")
        return "".join(
            f"; phase {pid!r} planned side effects no earlier approval covers: " + ", ".join(calls)
            for pid, calls in by_phase.items()
        )

    def _request_stop(self, request: StopRequest) -> None:
        if self._stop is not None or self._finished:
            return
        self._stop = request
        self._halt(f"run stopped: {request.reason}", skip=request.status == "failed")

    def _halt(self, reason: str, *, skip: bool) -> None:
        """No new starts; cancel running steps; optionally skip everything not yet started."""
        self._halted = True
        self._cancelling = True
        self._cancel_reason = reason
        for task in self._tasks.values():
            task.cancel()
        self._unpark()
        self._queues.clear()
        self._queued = 0
        if skip:
            launched = {step.id for step in self._ready_q}  # they stand down themselves
            for sid in self._steps:
                if self.state.steps[sid].status in ("pending", "ready") and sid not in launched:
                    self._emit(E.StepSkipped, step_id=sid, reason=reason)
            self._blocked.clear()
        self._poke()

    def _poke(self) -> None:
        if self._wake is not None:
            self._wake.set()

    # ------------------------------------------------------------------ scheduling

    def _ready(self, sid: str) -> None:
        if self._halted:
            return
        if sid in self._gated and (
            not self._plan_closed or not self._gate.allows(self._steps[sid], self._specs[sid])
        ):
            self._blocked[sid] = None
            self._emit(E.StepReady, step_id=sid)
            return
        self._enqueue_or_launch(sid)

    def _enqueue_or_launch(self, sid: str) -> None:
        if not self._limited:
            self._launch(sid)
            return
        key = self._key_of(self._steps[sid])
        if self._has_capacity(key):
            self._launch(sid)
            return
        self._order += 1
        self._queues.setdefault(key, deque()).append((self._order, sid))
        self._queued += 1
        self._emit(E.StepReady, step_id=sid)

    def _key_of(self, step: Step) -> str:
        return step.tool if step.tool is not None else "agent"

    def _has_capacity(self, key: str) -> bool:
        if self._max is not None and self._running >= self._max:
            return False
        limit = self._limits.get(key)
        return limit is None or self._running_by_key.get(key, 0) < limit

    def _launch(self, sid: str) -> None:
        step = self._steps[sid]
        self._running += 1
        if self._limited:
            key = self._key_of(step)
            self._running_by_key[key] = self._running_by_key.get(key, 0) + 1
        self._ready_q.append(step)
        if self._pickers == 0:
            self._spawn_workers(1)

    def _release(self, step: Step) -> None:
        self._running -= 1
        if self._limited:
            self._release_limit(step)

    def _release_limit(self, step: Step) -> None:
        key = self._key_of(step)
        self._running_by_key[key] -= 1
        if self._queued and not self._halted:
            self._launch_queued()

    def _launch_queued(self) -> None:
        while self._queued:
            best: tuple[int, str] | None = None
            for key, q in self._queues.items():
                if q and self._has_capacity(key) and (best is None or q[0][0] < best[0]):
                    best = (q[0][0], key)
            if best is None:
                return
            _, sid = self._queues[best[1]].popleft()
            self._queued -= 1
            self._launch(sid)

    # ------------------------------------------------------------------ one step

    # ------------------------------------------------------------------ workers

    def _spawn_workers(self, n: int) -> None:
        for _ in range(n):
            self._pickers += 1
            task = self._loop.create_task(self._worker(), name="forethought-worker")
            self._workers.add(task)
            self._unstarted.add(task)
            task.add_done_callback(self._worker_done)

    def _worker_done(self, task: asyncio.Task[None]) -> None:
        """Bookkeeping of a worker that ended, also one cancelled before it ever ran.

        A task cancelled before its first step never enters its coroutine (no ``finally`` runs):
        without this, ``_drain`` would wait on it forever and ``_pickers`` would count a worker
        that will never pick, leaving launched steps unstarted.
        """
        self._workers.discard(task)
        if task in self._unstarted:
            self._unstarted.discard(task)
            self._pickers -= 1
            if self._ready_q and self._pickers == 0:
                self._spawn_workers(1)

    async def _worker(self) -> None:
        """Run launched steps one after another until none is left; one task per busy worker.

        A step runs inside the worker's task (renamed after the step), started by hand: if it
        completes without suspending, the worker goes straight on to the next ready step — often
        the one this step just unblocked — with no new task and no trip around the event loop.
        If it suspends, the worker stays with it (it is that step's task: timeouts, cancellation
        and task-bound context managers all see the right task), and hands the remaining ready
        steps to fresh workers. A worker that ran steps for ``_SLICE_S`` without suspending
        yields once, so subscribers, sinks and the supervisor keep up with long synchronous runs.
        """
        task = asyncio.current_task()
        assert task is not None
        self._unstarted.discard(task)
        queue, tasks, quick, run = self._ready_q, self._tasks, self._quick, self._run
        journal = run.journal is not None
        clock = time.perf_counter
        picking = True
        slice_end = clock() + _SLICE_S
        try:
            while queue:
                if clock() > slice_end:
                    await asyncio.sleep(0)
                    slice_end = clock() + _SLICE_S
                    if not queue:
                        break
                item = queue.popleft()
                if type(item) is Opened:  # its start is durable now: call the tool
                    step = item.step
                    sid = step.id
                    if self._stop is not None or self._fatal is not None:
                        self._stand_down_opened(step)
                        continue
                    task.set_name(sid)
                    started: Outcome | Pending
                    try:
                        started = quick_call(run, step, quick[sid], item)
                    except BaseException as exc:
                        started = self._step_broke(step, exc)
                else:
                    step = item  # type: ignore[assignment]
                    sid = step.id
                    if self._stop is not None or self._fatal is not None:
                        self._stand_down(step)
                        continue
                    task.set_name(sid)
                    tool = quick.get(sid)
                    if tool is not None:
                        try:
                            if journal:  # record the start; the call waits for the journal
                                opened = quick_open(run, step)
                                if type(opened) is Opened:
                                    if not self._may_call(opened):
                                        self._park(opened)
                                        continue
                                    started = quick_call(run, step, tool, opened)
                                else:
                                    started = opened  # type: ignore[assignment]
                            else:
                                started = quick_attempt(run, step, tool)
                        except BaseException as exc:
                            started = self._step_broke(step, exc)
                    elif step.phase is not None:  # planned now, while other branches run
                        started = expand_phase(run, step, self._phases)
                    else:
                        started = attempts(run, step, self._how[sid])
                outcome: Outcome
                # Identity first: success is the common case and ``is`` its cheapest test. mypy
                # cannot narrow by identity, hence the ignore on the coroutine branch.
                if started is SUCCEEDED or isinstance(started, Failed):
                    outcome = started
                else:
                    coro: Pending = started  # type: ignore[assignment]
                    try:
                        first = coro.send(None)
                    except StopIteration as done:
                        outcome = done.value
                    except BaseException as exc:
                        outcome = self._step_broke(step, exc)
                    else:
                        picking = False
                        self._pickers -= 1
                        if queue:
                            self._spawn_workers(max(0, min(len(queue), _SPAWN_BATCH) - self._pickers))
                        tasks[sid] = task
                        if self._cancelling:  # the step stopped the run itself, then suspended
                            task.cancel()
                        try:
                            outcome = await Resume(coro, first)
                        except BaseException as exc:
                            outcome = self._step_broke(step, exc)
                        finally:
                            del tasks[sid]
                        picking = True
                        self._pickers += 1
                        slice_end = clock() + _SLICE_S
                self._running -= 1
                if self._limited:
                    self._release_limit(step)
                if outcome is SUCCEEDED:
                    if journal:  # its ``step_succeeded`` is the latest event, or before it
                        self._done_seq[sid] = run.seq - 1
                    dependents = self._dependents.get(sid)
                    if dependents:
                        self._after_success(dependents)
                else:
                    assert isinstance(outcome, Failed)
                    self._after_failure(step, outcome.failure_class, outcome.message)
                if self._running == 0:
                    self._poke()
        finally:
            if picking:
                self._pickers -= 1
            if queue and self._pickers == 0:  # this worker was cancelled: the rest still run
                self._spawn_workers(1)

    # ------------------------------------------------------------------ write-ahead (journal)

    def _may_call(self, opened: Opened) -> bool:
        """Whether an opened quick attempt's tool may be called now (with a journal).

        Always once its ``step_started`` is durable: the commit that holds it holds everything
        emitted before it. A step in ``_early`` need not wait for its own start, only for the
        events it depends on: its dependencies' results and what ``_begin`` recorded (the run's
        start, plan and approval; a resume's reviews and retries: ``_base_seq``). If the process
        dies before its start is on disk, the resumed run finds the step not started — or
        started without a result — and calls the tool again with the same idempotency key,
        which is what an idempotent tool is for. Every other step keeps full write-ahead: a
        crash can never hide that it may have been called.
        """
        durable = self._run.durable_seq
        if opened.seq <= durable:
            return True
        need = self._early_need(opened.step)
        return need is not None and need <= durable

    def _early_need(self, step: Step) -> int | None:
        """The seq a step in ``_early`` must see durable before its first call (``_may_call``'s
        rule; also ``RunContext.early_seq`` for attempts that are not quick: a backend's call, a
        step with a timeout or a check), or ``None`` if the step keeps full write-ahead."""
        if step.id not in self._early:
            return None
        need, done = self._base_seq, self._done_seq
        for d in step.all_dependencies():
            seq = done.get(d, -1)  # -1: succeeded in an earlier execution, read from the store
            if seq > need:
                need = seq
        return need

    def _park(self, opened: Opened) -> None:
        """Hold an opened quick attempt until its ``step_started`` is durable."""
        if opened.seq <= self._run.durable_seq:
            self._ready_q.append(opened)
        else:
            self._parked.append(opened)

    def _on_durable(self, seq: int) -> None:
        """The journal committed up to ``seq``: call the tools whose starts are now on disk."""
        self._run.set_durable(seq)
        parked = self._parked
        if not parked or parked[0].seq > seq:
            return
        queue = self._ready_q
        while parked and parked[0].seq <= seq:
            queue.append(parked.popleft())
        if self._pickers == 0:
            self._spawn_workers(1)

    def _on_journal_broken(self, exc: BaseException) -> None:
        """Recording failed: no tool may be called any more; stop the run (it can be resumed)."""
        self._run.journal_broke(exc)
        self._request_stop(StopRequest("paused", f"recording the run failed: {exc}"))
        self._unpark()

    def _unpark(self) -> None:
        """Hand every parked attempt to a worker, which stands it down (the run is stopping)."""
        if self._parked:
            self._ready_q.extend(self._parked)
            self._parked.clear()
            if self._pickers == 0:
                self._spawn_workers(1)

    def _stand_down_opened(self, step: Step) -> None:
        """A parked attempt whose tool the stopping run will not call: cancelled, not run."""
        self._emit(E.StepCancelled, step_id=step.id, reason=self._cancel_reason)
        self._release(step)
        if self._running == 0:
            self._poke()

    def _stand_down(self, step: Step) -> None:
        """A launched step the run stopped before it started: skipped (failed stop) or left."""
        if self._stop is None or self._stop.status == "failed":
            self._emit(E.StepSkipped, step_id=step.id, reason=self._cancel_reason)
        self._release(step)
        if self._running == 0:
            self._poke()

    def _step_broke(self, step: Step, exc: BaseException) -> Failed:
        """The step's coroutine raised: cancelled (re-raised), or a bug in forethought."""
        if not isinstance(exc, Exception):  # cancelled, interrupted, exiting: record and go
            self._emit(E.StepCancelled, step_id=step.id, reason=self._cancel_reason)
            self._release(step)
            if self._running == 0:
                self._poke()
            raise exc
        # A bug in forethought, not in the tool (tool errors are failures already): fail the
        # step loudly rather than hang the run.
        msg = f"internal error in the executor: {type(exc).__name__}: {exc}"
        self._emit(
            E.StepFailed,
            step_id=step.id,
            attempt=max(self.state.step(step.id).attempts, 0),
            error=msg,
            failure_class="error",
        )
        return Failed("error", msg, False)

    async def _close_backends(self) -> None:
        if self._run.own_backends:
            for backend in self._run.backends.values():
                await backend.aclose()

    # ------------------------------------------------------------------ outcomes

    def _after_success(self, dependents: Sequence[str]) -> None:
        """A step succeeded: count down its dependents; launch those it was the last one for."""
        waiting = self._waiting
        if self._limited or self._halted:
            for d in dependents:
                n = waiting[d] = waiting.get(d, 0) - 1
                if n == 0:
                    self._ready(d)
            return
        gated, steps, queue = self._gated, self._steps, self._ready_q
        for d in dependents:
            n = waiting[d] = waiting.get(d, 0) - 1
            if n == 0:
                if d in gated:
                    self._ready(d)
                else:  # ``_launch`` inlined: no limits, and a worker is picking (the caller)
                    self._running += 1
                    queue.append(steps[d])
                    if self._pickers == 0:
                        self._spawn_workers(1)

    def _after_failure(self, step: Step, cls: str, msg: str) -> None:
        policy = step.on_failure
        if self._halted and self._stop is not None:
            return
        what = f"step {step.id!r} failed ({cls}): {msg}"
        if policy == "continue":
            self._skip_descendants(step.id, f"dependency {step.id!r} failed")
        elif policy == "replan" and self._run.replanner is not None:
            self._skip_descendants(step.id, f"dependency {step.id!r} failed; awaiting a replan")
            self._replan_queue.append(
                {
                    "step_id": step.id,
                    "error": msg,
                    "failure_class": cls,
                    "attempts": self.state.step(step.id).attempts,
                }
            )
            self._halted = True  # let running steps finish, start nothing new, then replan
            self._poke()
        else:
            if policy == "replan":
                what += "; on_failure is replan but no replanner is configured"
            if self._fatal is None:
                self._fatal = what
                if policy == "rollback":
                    self._rollback_after = step.id
                self._halt(f"run aborted: {what}", skip=True)

    def _skip_descendants(self, sid: str, reason: str) -> None:
        todo = list(self._dependents.get(sid, ()))
        seen: set[str] = set()
        while todo:
            d = todo.pop()
            if d in seen or d not in self._steps:
                continue
            seen.add(d)
            if self.state.steps[d].status in ("pending", "ready"):
                self._blocked.pop(d, None)
                self._emit(E.StepSkipped, step_id=d, reason=reason)
            todo.extend(self._dependents.get(d, ()))


class _Control:
    """The executor as ``recovery.Scheduler``: the scheduler operations recovery may use.

    A separate object rather than public methods on ``Executor``, so that the executor's public
    surface stays what users call, and recovery's view of the scheduler is written down here.
    """

    __slots__ = ("_ex", "_keep_halt", "_under_way")

    def __init__(
        self, ex: Executor, under_way: frozenset[str] = frozenset(), *, keep_halt: bool = False
    ) -> None:
        self._ex = ex
        self._under_way = under_way  # launched steps a revision keeps: not started twice
        # A phase spliced in while a replan waits for quiescence must not lift that halt.
        self._keep_halt = keep_halt

    def take_replan_requests(self) -> list[dict[str, Any]]:
        ex = self._ex
        requests, ex._replan_queue = ex._replan_queue, []
        return requests

    def install(self, plan: Plan) -> None:
        ex = self._ex
        if not self._keep_halt:
            ex._halted = False
        ex._blocked.clear()
        ex._install(plan, self._under_way)

    def give_up(self, reason: str) -> None:
        ex = self._ex
        ex._fatal = reason
        ex._halt(f"run failed: {reason}", skip=True)

    def rollback_due(self) -> bool:
        return self._ex._rollback_after is not None and self._ex._stop is None

    def step_ever(self, step_id: str) -> Step | None:
        return self._ex._every_step.get(step_id)

    def reopen(self) -> None:
        ex = self._ex
        ex._halted = False
        ex._cancelling = False
        ex._cancel_reason = "cancelled"

    def approved(self, step: Step, spec: ToolSpec | None) -> bool:
        return self._ex._gate.allows(step, spec)

    def denial(self, step: Step) -> str:
        return denial_reason(self._ex._gate, step)


class _Phases:
    """The executor as ``phase_expansion.PhaseScheduler``."""

    __slots__ = ("_ex",)

    def __init__(self, ex: Executor) -> None:
        self._ex = ex

    def stopping(self) -> bool:
        return self._ex._stop is not None or self._ex._fatal is not None

    def splice_in(self, plan: Plan, phase_id: str, reason: str) -> str | None:
        return self._ex._revise(plan, reason, phase=phase_id)


def recorded_failure(events: Iterable[Event], plan: Plan, state: RunState) -> str | None:
    """The step whose failure for good ended a recorded run, if one did: the first (in log
    order) of the plan's steps that is ``failed`` in ``state`` and whose failure is not
    ``on_failure: continue``."""
    policies = {s.id: s.on_failure for s in plan.steps}
    last: dict[str, int] = {}
    for e in events:
        if isinstance(e, E.StepFailed) and e.final and e.step_id in policies:
            last[e.step_id] = e.seq
    failed = [
        sid
        for sid in last
        if policies[sid] != "continue" and state.steps.get(sid) and state.steps[sid].status == "failed"
    ]
    return min(failed, key=last.__getitem__) if failed else None


def rollback_finished(plan: Plan, state: RunState) -> bool:
    """Every compensation and rollback step of ``plan`` has a recorded outcome in ``state``."""
    compensated = {s.id for s in plan.steps if s.compensate is not None}
    for sid in state.completion_order:
        if sid in compensated and sid not in state.compensations:
            return False
    done = ("succeeded", "failed")
    return all(
        sid in state.steps and state.steps[sid].status in done for sid in (s.id for s in plan.rollback)
    )


async def run_plan(plan: Plan, tools: Mapping[str, Tool], options: ExecutorOptions | None = None) -> RunState:
    """Convenience: execute ``plan`` with ``tools`` and return the final state."""
    return await Executor(plan, tools, options).run()
