"""With a journal, the per-step progress events live in the store, not in the executor's memory.

``step_ready``, ``step_started`` and ``step_succeeded`` are three of every step's events and most
of a large run's memory when kept (a 100,000-step ``exec``: 842 → 657 MB peak RSS without them,
``bench/exec_scale``). A recorded run leaves them out of ``Executor.log``; every subscriber still
gets every event, those emitted before its pump first ran included (its stream is registered when
the run starts), and what readers of the log needed from them comes from the run's state.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from forethought import Plan, Step, ToolSpec
from forethought.events.kinds import Event
from forethought.execution.executor import ApproveAll, Executor
from forethought.execution.options import ExecutorOptions
from forethought.runs.recording import execute_recorded
from forethought.runs.store.sqlite import SqliteStore

PROGRESS = {"step_ready", "step_started", "step_succeeded"}


class Echo:
    spec = ToolSpec(name="echo")

    async def invoke(self, args: dict[str, Any], ctx: Any) -> Any:
        return args.get("x")


def _plan() -> Plan:
    # Five roots under a concurrency limit of 1: four of them are queued (``step_ready``) while
    # the run starts, before any subscriber's pump has run; then a step that joins them.
    roots = [Step(id=f"r{i}", tool="echo", args={"x": i}) for i in range(5)]
    join = Step(id="join", tool="echo", args={"x": "${r0}"}, depends_on=tuple(r.id for r in roots))
    return Plan(goal="g", steps=(*roots, join))


async def test_a_recorded_run_keeps_no_progress_events_in_memory_and_sinks_still_get_them(
    tmp_path: Path,
) -> None:
    seen: list[Event] = []

    async def sink(event: Event) -> None:
        seen.append(event)

    executors: list[Executor] = []
    options = ExecutorOptions(gate=ApproveAll(), max_concurrency=1, sinks=[sink])
    with SqliteStore(tmp_path / "runs.db") as store:
        state = await execute_recorded(
            store, _plan(), {"echo": Echo()}, options, run_id="run", on_executor=executors.append
        )
        stored = store.events("run")
    assert state.status == "succeeded", state.reason
    assert state.step("join").output == 0
    kinds = [e.kind for e in stored]
    assert kinds.count("step_ready") >= 4 and kinds.count("step_succeeded") == 6
    # The sink got exactly what the store holds, in order, the early step_ready events included.
    assert [(e.seq, e.kind) for e in seen] == [(e.seq, e.kind) for e in stored]
    # The executor's memory holds the rest only.
    log = executors[0].log
    assert log and not {e.kind for e in log} & PROGRESS
    assert [e.seq for e in log] == [e.seq for e in stored if e.kind not in PROGRESS]


async def test_an_executor_without_a_journal_keeps_every_event() -> None:
    ex = Executor(_plan(), {"echo": Echo()}, ExecutorOptions(gate=ApproveAll(), max_concurrency=1))
    state = await ex.run()
    assert state.status == "succeeded"
    kinds = [e.kind for e in ex.log]
    assert kinds.count("step_started") == 6 and kinds.count("step_succeeded") == 6
    assert kinds.count("step_ready") >= 4


async def test_a_subscription_leaves_the_log_when_closed_ended_or_cancelled() -> None:
    import asyncio

    from forethought.events.kinds import RunCreated
    from forethought.execution._events import EventLog

    log = EventLog()

    def event(seq: int) -> RunCreated:
        return RunCreated(run_id="r", seq=seq, goal="g")

    log.push(event(0))
    # Closed before its first event: it leaves at once (an async generator would not have).
    never = log.stream()
    await never.aclose()
    log.push(event(1))
    assert [e.seq async for e in never] == []
    # Cancelled while waiting: it leaves too.
    waiting = log.stream()
    assert (await anext(waiting)).seq == 0 and (await anext(waiting)).seq == 1
    task = asyncio.ensure_future(anext(waiting))
    await asyncio.sleep(0)  # the task is now waiting for the next event (a loop turn, no timer)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    # One that reads to the end gets everything pushed after it subscribed, then leaves.
    reader = log.stream()
    log.push(event(2))
    log.close()
    assert [e.seq async for e in reader] == [0, 1, 2]
    assert log._subs == []


class _Store:
    """A store that notes what each append was handed (events, or their progress rows)."""

    def __init__(self, inner: SqliteStore) -> None:
        self.inner = inner
        self.handed: list[type[Any]] = []

    def append_many(self, events: Any, **options: Any) -> None:
        self.handed += [type(e) for e in events]
        self.inner.append_many(events, **options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


async def test_step_ready_events_nobody_wants_are_not_held(tmp_path: Path) -> None:
    """A sink that ignores ``step_ready`` never queues one; the recorder keeps each progress
    event's row and body, not the event; so a queued step's ``step_ready`` lives only while it is
    emitted — and the store still records every event, the sink gets every other one in order."""
    import gc

    from forethought.events.kinds import StepReady
    from forethought.runs.store.base import StepProgress

    seen: list[Event] = []
    alive: list[int] = []
    run_id = f"ready-{uuid.uuid4().hex}"  # other tests' events may still be about

    class Sink:
        ignores = frozenset((StepReady,))

        async def __call__(self, event: Event) -> None:
            seen.append(event)

    class Count:
        spec = ToolSpec(name="echo")

        async def invoke(self, args: dict[str, Any], ctx: Any) -> Any:
            gc.collect()  # what is left is held by someone
            alive.append(sum(type(o) is StepReady and o.run_id == run_id for o in gc.get_objects()))
            return args.get("x")

    options = ExecutorOptions(gate=ApproveAll(), max_concurrency=1, sinks=[Sink()])
    with SqliteStore(tmp_path / "runs.db") as inner:
        store = _Store(inner)
        state = await execute_recorded(store, _plan(), {"echo": Count()}, options, run_id=run_id)
        stored = inner.events(run_id)
    assert state.status == "succeeded", state.reason
    kinds = [e.kind for e in stored]
    assert kinds.count("step_ready") >= 4
    assert [(e.seq, e.kind) for e in seen] == [(e.seq, e.kind) for e in stored if e.kind != "step_ready"]
    assert alive and max(alive) == 0, alive  # the queued steps' step_ready: already gone
    progress = [t for t, e in zip(store.handed, stored, strict=True) if e.kind in PROGRESS]
    assert progress and set(progress) == {StepProgress}


async def test_a_subscription_never_queues_what_it_ignores() -> None:
    from forethought.events.kinds import RunCreated, StepReady
    from forethought.execution._events import EventLog

    log = EventLog()
    log.push(StepReady(run_id="r", seq=0, step_id="a"))  # kept history: filtered too
    some, every = log.stream(frozenset((StepReady,))), log.stream()
    log.push(RunCreated(run_id="r", seq=1, goal="g"))
    log.push(StepReady(run_id="r", seq=2, step_id="b"))
    log.close()
    assert [e.seq async for e in some] == [1]
    assert [e.seq async for e in every] == [0, 1, 2]
