"""Resume from a stored record: finished steps never re-run; interrupted ones per idempotency.

A "crash" here is a prefix of a real run's event log written to a fresh store — exactly what a
killed process leaves behind — so each case is deterministic. The SIGKILL test lives in
``test_resume_crash.py``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from _store_support import another_database, database, force_lease
from forethought import Plan, Step, ToolContext, tool
from forethought.errors import UserError
from forethought.events.kinds import Event
from forethought.execution.executor import ApproveAll, Executor
from forethought.execution.options import ExecutorOptions
from forethought.runs.recording import execute_recorded
from forethought.runs.resume import resume_run
from forethought.runs.review import InterruptedStepsReview
from forethought.runs.store.base import LeaseHeld
from forethought.runs.store.opening import OpenedStore, open_store

CALLS: list[tuple[str, Any, str]] = []


@tool
def fetch(x: int, ctx: ToolContext) -> int:
    CALLS.append(("fetch", x, ctx.idempotency_key))
    return x + 1


@tool(effect="mutating", idempotent=False)
def charge(amount: int, ctx: ToolContext) -> dict[str, int]:
    CALLS.append(("charge", amount, ctx.idempotency_key))
    return {"charged": amount}


@tool(effect="mutating", idempotent=True)
def upsert(value: int, ctx: ToolContext) -> int:
    CALLS.append(("upsert", value, ctx.idempotency_key))
    return value


TOOLS = {"fetch": fetch, "charge": charge, "upsert": upsert}
PLAN = Plan(
    goal="bill",
    steps=(
        Step(id="a", tool="fetch", args={"x": 1}),
        Step(id="b", tool="charge", args={"amount": "${a}"}),
        Step(id="u", tool="upsert", args={"value": "${a}"}),
        Step(id="c", tool="fetch", args={"x": "${b.charged}"}, depends_on=("u",)),
    ),
)


db = pytest.fixture(params=["sqlite", "postgresql"])(database)


@pytest.fixture(autouse=True)
def _clear() -> None:
    CALLS.clear()


async def _reference_log() -> list[Event]:
    ex = Executor(
        PLAN, TOOLS, ExecutorOptions(gate=ApproveAll(), approved_by="t", max_concurrency=1), run_id="r1"
    )
    await ex.run()
    CALLS.clear()
    return list(ex.log)


def _store_with_prefix(db: str, log: list[Event], cut_after: str) -> OpenedStore:
    """Store the log up to and including the first event described by ``kind:step``."""
    kind, _, sid = cut_after.partition(":")
    idx = next(i for i, e in enumerate(log) if e.kind == kind and getattr(e, "step_id", sid) == sid)
    store = open_store(db)
    store.append_many(log[: idx + 1])
    return store


def _ran(name: str) -> list[tuple[str, Any, str]]:
    return [c for c in CALLS if c[0] == name]


async def test_completed_steps_are_not_run_again(db: str) -> None:
    store = _store_with_prefix(db, await _reference_log(), "step_succeeded:b")
    state = await resume_run(store, "r1", TOOLS, approve_all=True)
    assert state.status == "succeeded"
    assert _ran("charge") == []  # b had succeeded: never again
    assert [c[0] for c in CALLS].count("fetch") == 1  # only c; a was done
    assert state.steps["c"].output == 3
    assert store.get_run("r1").status == "succeeded"  # type: ignore[union-attr]


async def test_non_idempotent_step_running_at_crash_needs_review(db: str) -> None:
    store = _store_with_prefix(db, await _reference_log(), "step_started:b")
    state = await resume_run(store, "r1", TOOLS, approve_all=True)
    assert state.status == "paused"
    assert state.steps["b"].status == "needs_review"
    assert _ran("charge") == []
    assert "b" in state.reason
    # Resuming again without a decision pauses again, still without charging.
    again = await resume_run(store, "r1", TOOLS, approve_all=True)
    assert again.status == "paused" and _ran("charge") == []


async def test_review_marks_step_done_or_retries_it(db: str, tmp_path: Path) -> None:
    log = await _reference_log()
    store = _store_with_prefix(db, log, "step_started:b")
    await resume_run(store, "r1", TOOLS, approve_all=True)  # → needs_review
    state = await resume_run(
        store,
        "r1",
        TOOLS,
        approve_all=True,
        review=InterruptedStepsReview(succeeded={"b": {"charged": 2}}),
        reviewer="alice",
    )
    assert state.status == "succeeded"
    assert _ran("charge") == []  # the human said it took effect: not repeated
    assert state.steps["c"].output == 3

    store2 = _store_with_prefix(another_database(db, tmp_path), log, "step_started:b")
    await resume_run(store2, "r1", TOOLS, approve_all=True)
    state = await resume_run(
        store2, "r1", TOOLS, approve_all=True, review=InterruptedStepsReview(retry=["b"])
    )
    assert state.status == "succeeded"
    assert len(_ran("charge")) == 1  # the human said it did not: run exactly once more


async def test_review_of_a_step_that_is_not_interrupted_is_refused(db: str) -> None:
    store = _store_with_prefix(db, await _reference_log(), "step_started:b")
    with pytest.raises(UserError, match="'a' of run r1 is succeeded, not awaiting review"):
        await resume_run(store, "r1", TOOLS, review=InterruptedStepsReview(retry=["a"]))
    with pytest.raises(UserError, match="step 'zz' is not in run r1"):
        await resume_run(store, "r1", TOOLS, review=InterruptedStepsReview(retry=["zz"]))
    assert store.get_lease("r1") is None  # refused early, lease released


async def test_idempotent_step_reruns_with_the_same_key(db: str) -> None:
    log = await _reference_log()
    first_key = next(e.idempotency_key for e in log if e.kind == "step_started" and e.step_id == "u")  # type: ignore[union-attr]
    store = _store_with_prefix(db, log, "step_started:u")
    state = await resume_run(store, "r1", TOOLS, approve_all=True)
    assert state.status == "succeeded"
    assert [c[2] for c in _ran("upsert")] == [first_key]


async def test_resume_errors_are_one_line(db: str) -> None:
    store = open_store(db)
    with pytest.raises(UserError, match=r"no run 'nope' in .*forethought runs"):
        await resume_run(store, "nope", TOOLS)
    state = await execute_recorded(store, PLAN, TOOLS, ExecutorOptions(gate=ApproveAll()), run_id="done1")
    assert state.status == "succeeded"
    with pytest.raises(UserError, match="already succeeded; nothing to resume"):
        await resume_run(store, "done1", TOOLS)
    with pytest.raises(UserError, match="done1"):  # unique prefix accepted → same message
        await resume_run(store, "don", TOOLS)
    CALLS.clear()
    with pytest.raises(UserError, match="run id 'done1' is already taken"):
        await execute_recorded(store, PLAN, TOOLS, ExecutorOptions(gate=ApproveAll()), run_id="done1")
    assert CALLS == []  # refused before anything ran


async def test_side_effects_stay_gated_on_resume_without_approval(db: str) -> None:
    store = _store_with_prefix(db, await _reference_log(), "step_succeeded:a")
    state = await resume_run(store, "r1", TOOLS)  # the recorded approval is unsigned
    assert state.status == "awaiting_approval"
    assert _ran("charge") == []


async def test_two_resumes_at_once_exactly_one_proceeds(db: str) -> None:
    store = _store_with_prefix(db, await _reference_log(), "step_succeeded:a")
    other = open_store(db)  # a second "process"
    gate = asyncio.Event()

    @tool(name="fetch")
    async def slow_fetch(x: int) -> int:
        await gate.wait()
        return x + 1

    tools = {**TOOLS, "fetch": slow_fetch}
    first = asyncio.create_task(resume_run(store, "r1", tools, approve_all=True, owner="host:1:first"))
    while store.get_lease("r1") is None:  # noqa: ASYNC110 - polling another connection
        await asyncio.sleep(0.01)
    with pytest.raises(LeaseHeld, match="already being resumed by host:1:first") as info:
        await resume_run(other, "r1", tools, approve_all=True)
    assert info.value.exit_code == 3
    assert "\n" not in str(info.value)
    gate.set()
    state = await first
    assert state.status == "succeeded"
    assert len(_ran("charge")) == 1
    assert store.get_lease("r1") is None  # released at the end
    other.close()


async def test_missing_tools_are_named_up_front(db: str) -> None:
    store = _store_with_prefix(db, await _reference_log(), "step_succeeded:a")
    with pytest.raises(UserError, match=r"still needs tool\(s\) charge, upsert; pass the --tools"):
        await resume_run(store, "r1", {"fetch": fetch})
    assert store.get_lease("r1") is None


async def test_lease_is_renewed_while_running_and_loss_pauses_the_run(db: str) -> None:
    store = _store_with_prefix(db, await _reference_log(), "step_succeeded:a")
    other = open_store(db)
    release = asyncio.Event()

    @tool(name="fetch")
    async def slow_fetch(x: int) -> int:
        await release.wait()
        return x + 1

    tools = {**TOOLS, "fetch": slow_fetch}
    task = asyncio.create_task(
        resume_run(store, "r1", tools, approve_all=True, owner="host:1:runner", lease_ttl_s=0.3)
    )
    await asyncio.sleep(0.8)  # well past the TTL: only renewal keeps the lease ours
    with pytest.raises(LeaseHeld):
        other.acquire_lease("r1", "host:2:intruder", ttl_s=5)
    # Someone forcibly takes the lease (an operator's override): the runner must stop.
    force_lease(other, "r1", "host:2:intruder", extend_s=60)
    state = await asyncio.wait_for(task, timeout=5)
    assert state.status == "paused"
    assert "lost the run lease" in state.reason
    release.set()
    other.close()
