"""A new run's record says its execution started; only a run that really continues says it
resumed. The Agent hands its planning, validation and approval events to the executor as the
run's first events, and the executor used to take them over with ``run_resumed`` ("resumed from
recorded events"): every fresh run's audit trail claimed a resume that never happened."""

from __future__ import annotations

from pathlib import Path

import pytest

from forethought import tool
from forethought.agent import Agent
from forethought.events import kinds as E
from forethought.events.kinds import Event
from forethought.events.state import fold
from forethought.plan.model import Plan
from forethought.runs.replay_events import execution_events, execution_start
from forethought.runs.store.sqlite import SqliteStore

CALLS: list[str] = []


@tool
def look(name: str) -> str:
    """Read a value."""
    CALLS.append(f"look {name}")
    return f"<{name}>"


@tool(effect="mutating")
def put(name: str, value: str) -> str:
    """Write a value."""
    CALLS.append(f"put {name}={value}")
    return "ok"


PLAN = Plan.model_validate(
    {
        "goal": "copy a value",
        "steps": [
            {"id": "s1", "tool": "look", "args": {"name": "db"}},
            {"id": "s2", "tool": "put", "args": {"name": "db2", "value": "${s1}"}},
        ],
    }
)


@pytest.fixture(autouse=True)
def _reset() -> None:
    CALLS.clear()


@pytest.fixture
def store(tmp_path: Path) -> SqliteStore:
    s = SqliteStore(tmp_path / "runs.db")
    yield s
    s.close()


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


async def test_a_fresh_recorded_run_says_its_execution_started_not_resumed(store: SqliteStore) -> None:
    result = await Agent([look, put], store=store).run(PLAN, approve="all")
    assert result.status == "succeeded"
    events = store.events(result.run_id)
    assert "run_resumed" not in kinds(events)
    assert kinds(events).count("execution_started") == 1
    started = kinds(events).index("execution_started")
    # It comes right after the preamble, before the first step's events.
    assert kinds(events)[:started] == ["run_created", "plan_proposed", "plan_validated", "plan_approved"]
    assert events[started + 1].kind.startswith("step_")
    # The replay boundary is the same as before: the execution begins after it.
    assert execution_start(events) == started + 1
    assert execution_events(events)[0] == events[started + 1]


async def test_a_fresh_run_in_memory_says_the_same() -> None:
    seen: list[Event] = []

    async def sink(event: Event) -> None:
        seen.append(event)

    result = await Agent([look, put], record=False).run(PLAN, approve="all", on_event=sink)
    assert result.status == "succeeded"
    assert "execution_started" in kinds(seen)
    assert "run_resumed" not in kinds(seen)


async def test_a_run_approved_later_says_it_resumed(store: SqliteStore) -> None:
    agent = Agent([look, put], store=store)
    first = await agent.run(PLAN, approve="none")
    assert first.status == "awaiting_approval"
    assert CALLS == []
    resumed = await agent.approve(first.run_id, approver="alice")  # as `forethought approve`
    assert resumed is not None
    assert resumed.status == "succeeded"
    assert CALLS == ["look db", "put db2=<db>"]
    names = kinds(store.events(first.run_id))
    # The first call stopped before executing; the second continued the stored run.
    assert names.count("run_resumed") == 1
    assert names.index("run_resumed") > names.index("run_finished")


def test_a_record_from_before_the_event_still_finds_its_execution() -> None:
    """Records written before ``execution_started`` existed took over with ``run_resumed``."""
    run = "r1"
    events: list[Event] = [
        E.RunCreated(run_id=run, seq=0, goal="g"),
        E.PlanProposed(run_id=run, seq=1, plan=PLAN.record_data(), plan_hash=PLAN.plan_hash()),
        E.RunResumed(run_id=run, seq=2, reason="resumed from recorded events"),
        E.StepReady(run_id=run, seq=3, step_id="s1"),
    ]
    assert execution_start(events) == 3


def test_execution_started_opens_an_active_segment_like_a_resume() -> None:
    run = "r1"
    base: list[Event] = [
        E.RunCreated(run_id=run, seq=0, goal="g", ts=100.0),
        E.PlanProposed(run_id=run, seq=1, plan=PLAN.record_data(), plan_hash=PLAN.plan_hash(), ts=101.0),
    ]
    started = fold([*base, E.ExecutionStarted(run_id=run, seq=2, ts=105.0)])
    resumed = fold([*base, E.RunResumed(run_id=run, seq=2, ts=105.0)])
    assert started.status == resumed.status == "running"
    assert started.segment_started_at == resumed.segment_started_at == 105.0
    finished = fold(
        [
            *base,
            E.ExecutionStarted(run_id=run, seq=2, ts=105.0),
            E.RunFinished(run_id=run, seq=3, status="succeeded", ts=107.0),
        ]
    )
    assert finished.active_s == pytest.approx(2.0)
