"""Durable runs: execute with a record, resume from the record, replay the record.

These are the orchestration functions behind ``exec``/``run`` recording and the ``resume`` and
``replay`` commands. Each composes the same parts — a ``Store``, a ``Recorder`` sink, the
write-ahead backends, a per-run lease and the ``Executor`` — so a live run, a resumed run and a
replay are recorded identically.

The lease: a process driving a run holds a lease row (owner id + expiry) taken in a
``BEGIN IMMEDIATE`` transaction and renewed while it runs. A second ``resume`` of the same run
gets ``LeaseHeld`` (one line, exit code 3) instead of racing the first into duplicate work.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from forethought.errors import StoreError, UserError
from forethought.events import kinds as E
from forethought.events.kinds import Event
from forethought.events.state import RunState, fold
from forethought.execution.backends.base import Backend, LocalBackend
from forethought.execution._parts import Sink
from forethought.execution.executor import ApproveAll, Executor, ExecutorOptions
from forethought.oversight.approvals import Approval, ApprovalGate
from forethought.plan.model import Plan, Step
from forethought.runs.replay import (
    CallCounter,
    Recording,
    compare_states,
    descendants,
    replay_agent_runner,
    replay_tools,
)
from forethought.runs.replay import ReplayReplanner as _ReplayReplanner
from forethought.runs.store._writeahead import durable_backends, write_ahead_agent_runner
from forethought.runs.store.base import LeaseLost, Store
from forethought.runs.store.recorder import OnCommit, Recorder
from forethought.runs.store.sqlite import new_owner_id
from forethought.tools.base import Tool, ToolSpec

DEFAULT_LEASE_TTL_S = 30.0


def resolve_run_id(store: Store, run_id: str) -> str:
    """Accept a unique prefix of a run id (like git); one-line errors otherwise."""
    if store.get_run(run_id) is not None:
        return run_id
    matches = store.find_runs(run_id) if run_id else []
    if len(matches) == 1:
        return matches[0]
    where = getattr(store, "path", "the run database")
    if not matches:
        raise UserError(f"no run {run_id!r} in {where}; `forethought runs` lists the runs "
                        "(or pass the right --db)")
    raise UserError(f"run id prefix {run_id!r} is ambiguous ({', '.join(matches[:5])}); "
                    "type more characters")


# ---------------------------------------------------------------------------------- leases

@contextlib.asynccontextmanager
async def held_lease(store: Store, run_id: str, *, owner: str | None = None,
                     ttl_s: float = DEFAULT_LEASE_TTL_S,
                     on_lost: Callable[[], None] | None = None) -> AsyncIterator[str]:
    """Hold the run's lease for the block, renewing it every ``ttl_s/3``; yields the owner id."""
    owner = owner or new_owner_id()
    await asyncio.to_thread(store.acquire_lease, run_id, owner, ttl_s)

    async def renew() -> None:
        while True:
            await asyncio.sleep(ttl_s / 3)
            try:
                await asyncio.to_thread(store.renew_lease, run_id, owner, ttl_s)
            except LeaseLost:
                if on_lost is not None:
                    on_lost()
                return
            except StoreError:
                continue  # e.g. locked for a long time: try again; fencing covers the gap

    task = asyncio.get_running_loop().create_task(renew(), name=f"lease-{run_id}")
    try:
        yield owner
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await asyncio.to_thread(store.release_lease, run_id, owner)


# ---------------------------------------------------------------------------------- running

@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic GC while a long run is rebuilt from its events.

    Loading, folding and validating a 10,000-step run allocates ~100k long-lived objects and no
    cycles; with the GC on, full collections over the growing heap roughly double the time.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@dataclass
class _SeqBox:
    """Late-bound view of the executor's last seq (backends are built before the executor)."""

    executor: Executor | None = None

    def __call__(self) -> int:
        return self.executor.state.last_seq if self.executor is not None else -1


async def execute_recorded(
    store: Store,
    plan: Plan | None,
    tools: Mapping[str, Tool],
    options: ExecutorOptions | None = None,
    *,
    prior_events: Sequence[Event] = (),
    run_id: str | None = None,
    goal: str | None = None,
    plan_open: bool = False,
    on_commit: OnCommit | None = None,
    lease_ttl_s: float = DEFAULT_LEASE_TTL_S,
    owner: str | None = None,
    on_executor: Callable[[Executor], None] | None = None,
    backend_factories: Mapping[str, Callable[[], Backend]] | None = None,
) -> RunState:
    """Run (or, with ``prior_events``, continue) a plan with every event recorded in ``store``.

    Non-idempotent tool calls and agent steps start only after their ``step_started`` is durable;
    the run's lease is held for the duration.
    """
    opts = options if options is not None else ExecutorOptions()
    owner = owner or new_owner_id()
    recorder = Recorder(store, on_commit=on_commit, owner=owner)
    seq = _SeqBox()
    backends = durable_backends(recorder, seq, dict(backend_factories or {}))
    agent_runner = opts.agent_runner
    if agent_runner is not None:
        agent_runner = write_ahead_agent_runner(agent_runner, recorder, seq)
    opts = dataclasses.replace(opts, sinks=[*opts.sinks, recorder], backends=backends,
                               agent_runner=agent_runner)
    with _gc_paused():  # the executor folds prior_events again: same reasoning as resume_run
        executor = Executor(plan, tools, opts, prior_events=prior_events, run_id=run_id,
                            goal=goal, plan_open=plan_open)
    seq.executor = executor
    if on_executor is not None:
        on_executor(executor)

    def lost() -> None:
        executor.stop("paused", "lost the run lease to another process; resume it again")

    try:
        async with held_lease(store, executor.run_id, owner=owner, ttl_s=lease_ttl_s,
                              on_lost=lost):
            if not prior_events and store.last_seq(executor.run_id) >= 0:
                raise UserError(f"run id {executor.run_id!r} is already taken in the run "
                                "database; choose another id, or resume that run")
            try:
                state = await executor.run()
            finally:
                try:
                    await recorder.aclose()
                except LeaseLost:
                    lost_lease = True
                else:
                    lost_lease = False
            if lost_lease:
                # Another process owns the run now and records it. Report that (on a copy: a
                # RunState is only ever changed by the fold) instead of a storage error.
                return dataclasses.replace(
                    state, status="paused",
                    reason="lost the run lease to another process; this process's remaining "
                           "events were not recorded")
            return state
    finally:
        for backend in backends.values():
            await backend.aclose()


# ---------------------------------------------------------------------------------- resume



@dataclass(frozen=True)
class Review:
    """A human's decision about steps that were running when the run stopped.

    ``succeeded`` maps a step id to the output to record (the human checked it took effect);
    ``retry`` lists steps to run again (the human checked it did not).
    """

    succeeded: Mapping[str, Any] = field(default_factory=dict)
    retry: Iterable[str] = ()


def _review_events(state: RunState, review: Review, reviewer: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    reviewable = ("needs_review", "running", "cancelled")
    for sid in [*review.succeeded, *review.retry]:
        st = state.steps.get(sid)
        if st is None:
            raise UserError(f"step {sid!r} is not in run {state.run_id}; check the step id")
        if st.status not in reviewable:
            raise UserError(f"step {sid!r} of run {state.run_id} is {st.status}, not awaiting "
                            "review; only steps that were interrupted can be marked")
    for sid, output in review.succeeded.items():
        out.append({"cls": E.StepSucceeded, "step_id": sid,
                    "attempt": max(state.steps[sid].attempts, 1), "output": output})
    for sid in review.retry:
        out.append({"cls": E.StepFailed, "step_id": sid, "attempt": state.steps[sid].attempts,
                    "error": f"reviewed by {reviewer}: did not take effect; retry",
                    "failure_class": "crashed", "final": True})
    return out


def append_under_lease(store: Store, run_id: str,
                       build: Callable[[RunState], list[dict[str, Any]]], *,
                       owner: str | None = None, ttl_s: float = DEFAULT_LEASE_TTL_S
                       ) -> list[Event]:
    """Append events computed from the run's current state, holding its lease meanwhile.

    ``build`` returns field dicts with the event class under ``"cls"``; sequence numbers and the
    plan version are filled in here. Raises ``LeaseHeld`` if another process drives the run.
    """
    owner = owner or new_owner_id()
    store.acquire_lease(run_id, owner, ttl_s)
    try:
        state = fold(store.events(run_id))
        stamped: list[Event] = []
        for i, fields in enumerate(build(state)):
            fields = dict(fields)
            cls = fields.pop("cls")
            stamped.append(cls(run_id=run_id, seq=state.last_seq + 1 + i,
                               plan_version=state.plan_version, **fields))
        store.append_many(stamped, owner=owner)
        return stamped
    finally:
        store.release_lease(run_id, owner)


def record_review(store: Store, run_id: str, review: Review, reviewer: str = "operator"
                  ) -> list[Event]:
    """Record a human's review of interrupted steps (see ``Review``) before resuming."""
    return append_under_lease(store, run_id, lambda st: _review_events(st, review, reviewer))


def grant_approval(store: Store, run_id: str, specs: Mapping[str, ToolSpec], approver: str,
                   *, plan_hash: str | None = None, steps: Sequence[str] = (),
                   note: str = "", require_waiting: bool = False) -> list[Event]:
    """Record a signed approval of the run's current plan, under the run's lease.

    ``plan_hash`` (a prefix of at least 8 characters) refuses a plan that changed since it was
    reviewed; ``steps`` makes it an execution-time confirmation of those steps;
    ``require_waiting`` refuses runs that are not awaiting approval or paused.
    """

    def build(state: RunState) -> list[dict[str, Any]]:
        if not state.plan:
            raise UserError(f"run {run_id} has no plan to approve")
        if require_waiting and state.status not in ("awaiting_approval", "paused"):
            raise UserError(f"run {run_id} is {state.status}; only a run awaiting approval or "
                            "paused can be approved")
        plan = Plan.model_validate(state.plan)
        current = plan.plan_hash()
        if plan_hash is not None and not (len(plan_hash) >= 8 and current.startswith(plan_hash)):
            raise UserError(f"run {run_id}: the plan changed since it was reviewed (current hash "
                            f"{current[:12]}, approved {plan_hash[:12]}); review it again with "
                            f"`forethought show {run_id}`")
        known = {s.id for s in plan.iter_all_steps()}
        unknown = [sid for sid in steps if sid not in known]
        if unknown:
            raise UserError(f"run {run_id}: no step {unknown[0]!r} in the current plan")
        grant = Approval.grant(plan, specs, approver=approver, steps=steps)
        return [
            {"cls": E.ApprovalDecided, "plan_hash": grant.plan_hash, "decision": "approved",
             "approver": grant.approver, "note": note},
            {"cls": E.PlanApproved, "plan_hash": grant.plan_hash, "approver": grant.approver,
             "scope": grant.scope, "tool_hashes": dict(grant.tool_hashes),
             "signature": grant.signature, "steps": list(grant.steps)},
        ]

    return append_under_lease(store, run_id, build)


def approval_gate(events: Sequence[Event], specs: Mapping[str, ToolSpec], *,
                  approve_all: bool = False, known: Mapping[str, Plan] | None = None) -> Any:
    """The gate a continued run uses: the run's recorded, authentic approvals (or ``--yes-all``).

    ``known`` maps plan hashes to plans the caller already validated, so a 10,000-step plan is
    not validated twice.
    """
    if approve_all:
        return ApproveAll()
    by_hash = dict(known or {})
    plans = list(by_hash.values())
    for e in events:
        if isinstance(e, (E.PlanProposed, E.PlanRevised)) and e.plan_hash not in by_hash:
            by_hash[e.plan_hash] = Plan.model_validate(e.plan)
            plans.append(by_hash[e.plan_hash])
    approvals = [Approval(e.plan_hash, e.approver, e.scope, dict(e.tool_hashes),
                          str(getattr(e, "signature", "") or ""), tuple(e.steps))
                 for e in events if isinstance(e, E.PlanApproved)]
    return ApprovalGate(plans, approvals, specs)


async def resume_run(
    store: Store,
    run_id: str,
    tools: Mapping[str, Tool],
    options: ExecutorOptions | None = None,
    *,
    approve_all: bool = False,
    review: Review | None = None,
    reviewer: str = "operator",
    owner: str | None = None,
    lease_ttl_s: float = DEFAULT_LEASE_TTL_S,
    on_commit: OnCommit | None = None,
    on_executor: Callable[[Executor], None] | None = None,
) -> RunState:
    """Continue a stored run: completed steps keep their outputs and are never run again.

    Raises ``LeaseHeld`` when another live process is driving the run.
    """
    run_id = resolve_run_id(store, run_id)
    owner = owner or new_owner_id()
    # Take the lease before reading: the events we fold must be the last word on the run.
    await asyncio.to_thread(store.acquire_lease, run_id, owner, lease_ttl_s)
    try:
        with _gc_paused():  # rebuilding creates ~100k objects and no garbage (see below)
            events = await asyncio.to_thread(store.events, run_id)
            state = fold(events)
            plan = Plan.model_validate(state.plan) if state.plan else None
        if state.status == "succeeded":
            raise UserError(f"run {run_id} already succeeded; nothing to resume "
                            "(`forethought replay` re-executes it from the record)")
        if plan is None:
            raise UserError(f"run {run_id} has no recorded plan, so it cannot be resumed")
        missing = sorted({s.tool for s in plan.iter_all_steps() if s.tool and s.tool not in tools
                          and state.step(s.id).status != "succeeded"})
        if missing:
            raise UserError(f"run {run_id} still needs tool(s) {', '.join(missing)}; pass the "
                            "--tools file(s) that define them")
        if review is not None and (review.succeeded or list(review.retry)):
            stamped = await asyncio.to_thread(
                append_under_lease, store, run_id,
                lambda st: _review_events(st, review, reviewer), owner=owner, ttl_s=lease_ttl_s)
            await asyncio.to_thread(store.acquire_lease, run_id, owner, lease_ttl_s)
            events = [*events, *stamped]
        specs = {name: t.spec for name, t in tools.items()}
        opts = options if options is not None else ExecutorOptions()
        if opts.gate is None:
            opts = dataclasses.replace(opts, gate=approval_gate(
                events, specs, approve_all=approve_all, known={state.plan_hash: plan}))
        return await execute_recorded(store, plan, tools, opts, prior_events=events,
                                      on_commit=on_commit, owner=owner, lease_ttl_s=lease_ttl_s,
                                      on_executor=on_executor)
    finally:
        # execute_recorded released it already on the normal path; this covers early errors.
        await asyncio.to_thread(store.release_lease, run_id, owner)


# ---------------------------------------------------------------------------------- replay

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
    events = await asyncio.to_thread(store.events, run_id)
    recording = Recording.from_events(events)
    original = fold(events)
    real_steps = frozenset(descendants(recording.all_plans(), from_step)) if from_step else \
        frozenset()
    counter = CallCounter()
    stand_ins = replay_tools(recording, counter, real_tools=tools, real_steps=real_steps)
    specs = {name: t.spec for name, t in stand_ins.items()}
    inner_gate = ApproveAll() if approve_all else approval_gate(events, specs)
    options = ExecutorOptions(
        gate=_ReplayGate(inner_gate, real_steps),
        replanner=_ReplayReplanner(recording),
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
            store, recording.initial_plan, stand_ins, options, on_executor=box.append,
            backend_factories={name: LocalBackend for name in names},
        )
        new_id = box[0].run_id
    else:
        local = LocalBackend()
        executor = Executor(recording.initial_plan, stand_ins, dataclasses.replace(
            options, backends={name: local for name in names}))
        state = await executor.run()
        new_id = executor.run_id
    differences = compare_states(original, state, ignore=real_steps)
    return ReplayResult(run_id, new_id, state, original, counter, real_steps, differences)


__all__ = ["DEFAULT_LEASE_TTL_S", "ReplayResult", "Review", "append_under_lease", "approval_gate",
           "execute_recorded", "grant_approval", "held_lease", "record_review", "replay_run",
           "resolve_run_id", "resume_run"]
