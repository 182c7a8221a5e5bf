"""Recorded execution: run (or continue) a plan with every event durable in a store.

Composes a ``Store``, a ``Recorder`` sink, the write-ahead backends, the run's lease and the
``Executor``, so a live run, a resumed run and a replay are recorded identically.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from forethought.errors import UserError
from forethought.events.kinds import Event
from forethought.events.state import RunState
from forethought.execution.backends.base import Backend
from forethought.execution.executor import Executor, ExecutorOptions
from forethought.plan.model import Plan
from forethought.runs.leases import DEFAULT_LEASE_TTL_S, held_lease
from forethought.runs.store._writeahead import durable_backends, write_ahead_agent_runner
from forethought.runs.store.base import LeaseLost, Store
from forethought.runs.store.recorder import OnCommit, Recorder
from forethought.runs.store.sqlite import new_owner_id
from forethought.tools.base import Tool


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
    prior_stored: bool = True,
) -> RunState:
    """Run (or, with ``prior_events``, continue) a plan with every event recorded in ``store``.

    ``prior_stored=False``: ``prior_events`` begin a new run and are not stored yet (the
    ``Agent``'s plan, validation and approval events, redacted already); they are committed with
    the executor's first events, under the run's lease, in one transaction.

    No tool call or agent step starts before everything it depends on is durable: its own
    ``step_started`` and its dependencies' outcomes. The run's lease is held for the duration.
    """
    opts = options if options is not None else ExecutorOptions()
    owner = owner or new_owner_id()
    recorder = Recorder(store, on_commit=on_commit, owner=owner)
    if plan is not None:
        recorder.know_plan(plan.plan_hash(), plan.canonical_json())
    seq = _SeqBox()
    backends = durable_backends(recorder, seq, dict(backend_factories or {}))
    agent_runner = opts.agent_runner
    if agent_runner is not None:
        agent_runner = write_ahead_agent_runner(agent_runner, recorder, seq)
    # The recorder is the executor's journal: every event is appended to it as it is emitted,
    # and no tool is called before what it depends on is durable.
    opts = dataclasses.replace(opts, journal=recorder, backends=backends, agent_runner=agent_runner)
    executor = Executor(
        plan,
        tools,
        opts,
        prior_events=prior_events,
        preamble=not prior_stored,
        run_id=run_id,
        goal=goal,
        plan_open=plan_open,
    )
    seq.executor = executor
    if on_executor is not None:
        on_executor(executor)

    def lost() -> None:
        executor.stop("paused", "lost the run lease to another process; resume it again")

    try:
        async with held_lease(store, executor.run_id, owner=owner, ttl_s=lease_ttl_s, on_lost=lost):
            if (not prior_events or not prior_stored) and store.last_seq(executor.run_id) >= 0:
                raise UserError(
                    f"run id {executor.run_id!r} is already taken in the run "
                    "database; choose another id, or resume that run"
                )
            if not prior_stored:
                for event in prior_events:  # redacted by their author, as the Agent does
                    recorder.append_nowait(event, redacted=True)
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
                    state,
                    status="paused",
                    reason="lost the run lease to another process; this process's remaining "
                    "events were not recorded",
                )
            return state
    finally:
        for backend in backends.values():
            await backend.aclose()
