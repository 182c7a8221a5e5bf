"""The recorder sink: group commit, write-ahead waits, failure handling, redaction on the way in."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from _store_support import Seq, database, full_run
from forethought import Plan, Step, ToolContext, tool
from forethought.errors import StoreError
from forethought.events import kinds as ev
from forethought.execution.executor import ApproveAll
from forethought.execution.options import ExecutorOptions
from forethought.runs.recording import execute_recorded
from forethought.runs.store.opening import OpenedStore, open_store
from forethought.runs.store.recorder import Recorder
from forethought.runs.store.sqlite import SqliteStore

db = pytest.fixture(params=["sqlite", "postgresql"])(database)


async def test_group_commit_batches_a_burst(db: str) -> None:
    store = open_store(db)
    batches: list[int] = []
    rec = Recorder(store, on_commit=lambda b: batches.append(len(b)))
    events = full_run("r", 200)
    for e in events:
        await rec(e)
    await rec.aclose()
    assert store.events("r") == events
    assert sum(batches) == len(events)
    assert len(batches) < len(events) / 20, batches  # a burst shares fsyncs
    assert rec.committed == len(events) and rec.commits == len(batches)


async def test_wait_durable_returns_only_after_commit(db: str) -> None:
    store = open_store(db)
    rec = Recorder(store)
    b = Seq("r")
    await rec(b(ev.RunCreated, goal="g"))
    await rec(b(ev.StepReady, step_id="a"))
    await asyncio.wait_for(rec.wait_durable("r", 1), timeout=2)
    assert store.last_seq("r") == 1
    assert rec.committed_seq("r") == 1

    # Waiting for an event not delivered yet: resolves once it is delivered and committed.
    waiter = asyncio.create_task(rec.wait_durable("r", 2))
    await asyncio.sleep(0.05)
    assert not waiter.done()
    await rec(b(ev.StepStarted, step_id="a", attempt=1))
    await asyncio.wait_for(waiter, timeout=2)
    assert store.last_seq("r") == 2
    await rec.aclose()


async def test_one_loop_turn_is_one_commit(db: str) -> None:
    # Events appended in one turn of the event loop share a commit; a lone event is committed at
    # the end of its turn without lingering.
    store = open_store(db)
    batches: list[list[str]] = []
    rec = Recorder(store, on_commit=lambda b: batches.append([e.kind for e in b]))
    events = full_run("r", 1)
    rec.append_nowait(events[0])  # run_created
    rec.append_nowait(events[1])  # plan_proposed, same turn
    await rec.wait_durable("r", 1)
    assert batches == [["run_created", "plan_proposed"]]
    lone = Seq("solo")(ev.RunCreated, goal="g")
    rec.append_nowait(lone)
    await rec.wait_durable("solo", 0)
    assert store.last_seq("solo") == 0 and batches[-1] == ["run_created"]
    await rec.aclose()


async def test_watchers_hear_every_commit_in_order(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "r.db")
    rec = Recorder(store)
    heard: list[int] = []
    rec.watch(heard.append, lambda exc: heard.append(-100))
    for e in full_run("r", 50):
        rec.append_nowait(e)
        if e.seq % 7 == 0:
            await asyncio.sleep(0)  # let some commits start mid-stream
    await rec.flush()
    assert heard == sorted(heard) and heard[-1] == store.last_seq("r")
    assert rec.commits == len(heard) > 1
    await rec.aclose()


class _FailingStore:
    def __init__(self, inner: OpenedStore) -> None:
        self.inner = inner
        self.fail = False

    def append_many(self, events: Sequence[Any], **options: Any) -> None:
        if self.fail:
            raise StoreError("disk full")
        self.inner.append_many(events, **options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


async def test_failure_is_sticky_and_loud(db: str) -> None:
    store = _FailingStore(open_store(db))
    rec = Recorder(store)  # type: ignore[arg-type]
    b = Seq("r")
    await rec(b(ev.RunCreated, goal="g"))
    await rec(b(ev.PlanApproved, plan_hash="h", approver="a"))
    await rec.flush()
    store.fail = True
    await rec(b(ev.StepStarted, step_id="a", attempt=1))
    with pytest.raises(StoreError, match="disk full"):
        await rec.flush()
    with pytest.raises(StoreError, match="recording this run failed"):
        await rec(b(ev.StepSucceeded, step_id="a", attempt=1))
    with pytest.raises(StoreError):
        await rec.wait_durable("r", 2)
    with pytest.raises(StoreError):
        await rec.aclose()  # reports the incomplete record, does not hang
    assert store.inner.last_seq("r") == 1


async def test_non_idempotent_tool_runs_only_after_its_start_is_durable(db: str) -> None:
    seen: list[tuple[str, bool]] = []

    @tool(effect="mutating", idempotent=False)
    def act(n: int, ctx: ToolContext) -> int:
        # Another connection, as a crash-surviving reader would see the file.
        with open_store(db) as reader:
            started = [
                e for e in reader.events(ctx.run_id) if e.kind == "step_started" and e.step_id == ctx.step_id
            ]  # type: ignore[union-attr]
        seen.append((ctx.step_id, bool(started)))
        return n

    plan = Plan(goal="g", steps=tuple(Step(id=f"s{i}", tool="act", args={"n": i}) for i in range(8)))
    store = open_store(db)
    state = await execute_recorded(store, plan, {"act": act}, ExecutorOptions(gate=ApproveAll()))
    assert state.status == "succeeded"
    assert sorted(seen) == [(f"s{i}", True) for i in range(8)]


async def test_a_broken_store_fails_the_run_with_a_reason(db: str) -> None:
    inner = open_store(db)
    store = _FailingStore(inner)
    store.fail = True

    @tool
    def ok(n: int) -> int:
        return n

    plan = Plan(goal="g", steps=(Step(id="a", tool="ok", args={"n": 1}),))
    # The lease is taken (that write works); then no event can be recorded: the caller must
    # hear about it rather than get a "succeeded" run that left no record.
    with pytest.raises(StoreError, match="disk full"):
        await execute_recorded(store, plan, {"ok": ok}, run_id="broken")  # type: ignore[arg-type]
    assert inner.list_runs() == []
    assert inner.get_lease("broken") is None  # lease released anyway


async def test_redaction_can_be_disabled_explicitly(db: str) -> None:
    store = open_store(db)
    secret = "sk-proj-" + "Q" * 30
    b = Seq("r")
    rec = Recorder(store, redact=False)
    await rec(b(ev.RunCreated, goal=secret))
    await rec.aclose()
    assert store.events("r")[0].goal == secret  # type: ignore[union-attr]
    rec = Recorder(store)
    await rec(b(ev.RunPaused, reason=f"key {secret}"))
    await rec.aclose()
    assert store.events("r")[1].reason == "key [REDACTED:openai_key]"  # type: ignore[union-attr]


async def test_a_known_plan_text_is_stored_only_if_it_is_the_hashed_one(tmp_path: Path) -> None:
    import hashlib

    plan = Plan(goal="g", steps=(Step(id="a", tool="ok", args={"n": 1}),))
    b = Seq("r")
    proposed = b(ev.PlanProposed, plan=plan.to_data(), plan_hash=plan.plan_hash(), source="api")
    for i, offered in enumerate((plan.canonical_json(), plan.canonical_json().replace('"a"', '"b"'))):
        store = SqliteStore(tmp_path / f"{i}.db")
        store.append_many([proposed], plan_texts={plan.plan_hash(): offered})
        (row,) = store.plan_versions("r")
        assert row.plan_json == plan.canonical_json()  # a wrong text is rebuilt from the event
        assert hashlib.sha256(row.plan_json.encode()).hexdigest() == plan.plan_hash()


async def test_flush_right_after_a_commit_landed_does_not_spin(tmp_path: Path) -> None:
    # A commit's future is done one loop turn before its bookkeeping callback runs; a flush in
    # that turn once awaited the done future in a loop that never yielded (the run hung in
    # ``aclose``). Reach exactly that turn, then flush.
    store = SqliteStore(tmp_path / "r.db")
    rec = Recorder(store)
    events = full_run("r", 1)
    rec.append_nowait(events[0])
    for _ in range(2):  # the commit starts a loop turn after the append's (see the recorder)
        await asyncio.sleep(0)
    inflight = rec._inflight
    assert inflight is not None
    while not inflight.done():  # noqa: ASYNC110 - stepping loop turns one by one is the point
        await asyncio.sleep(0)
    assert rec._inflight is inflight  # done, its callback not run yet: the turn in question
    rec.append_nowait(events[1])
    await rec.flush()
    assert store.last_seq("r") == 1
    await rec.aclose()


async def test_a_wrapped_backend_calls_only_once_what_the_call_depends_on_is_committed(
    tmp_path: Path,
) -> None:
    # The write-ahead wrapper in front of a backend other than the stock local one (Ray, a
    # process pool, a caller's): a call the executor opened (``WRITTEN_AHEAD``: its
    # step_started's seq) goes once that seq is committed; any other call (a compensation) once
    # everything recorded so far is. The tool reads the database through its own connection.
    from forethought.execution._parts import WRITTEN_AHEAD
    from forethought.execution.backends.base import LocalBackend
    from forethought.runs.store._writeahead import WriteAheadBackend

    path = tmp_path / "r.db"
    store, reader = SqliteStore(path), SqliteStore(path)
    seen: list[int] = []

    @tool
    def probe() -> int:
        seen.append(reader.last_seq("r"))
        return 0

    rec = Recorder(store)
    events = full_run("r", 10)
    current = {"seq": -1}
    backend = WriteAheadBackend("other", LocalBackend, rec, lambda: current["seq"])
    for e in events[:5]:
        rec.append_nowait(e)
    current["seq"] = events[4].seq
    await backend.call(probe, {}, ToolContext(run_id="r", step_id="c"))  # no start of its own
    for e in events[5:9]:
        rec.append_nowait(e)
    current["seq"] = events[8].seq
    opened = ToolContext(run_id="r", step_id="s", extra={WRITTEN_AHEAD: events[6].seq})
    await backend.call(probe, {}, opened)
    assert seen[0] >= events[4].seq and seen[1] >= events[6].seq, seen
    await rec.aclose()
    await backend.aclose()
    store.close()
    reader.close()
