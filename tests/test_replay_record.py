"""Replay from the record: zero tool/model calls, same final state; ``--from`` re-runs a subtree."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from forethought import Plan, RetryPolicy, Step, ToolCall, ToolContext, tool
from forethought.errors import ModelError, ToolError, UserError
from forethought.events.kinds import ModelCalled
from forethought.execution.executor import ApproveAll
from forethought.execution.options import ExecutorOptions
from forethought.models.base import ModelRequest
from forethought.runs.recording import execute_recorded
from forethought.runs.replay import Recording, ReplayModel, replay_models, replay_run
from forethought.runs.store.sqlite import SqliteStore

CALLS: Counter[str] = Counter()
NO_WAIT = RetryPolicy(attempts=3, backoff_s=0, jitter=0)


@tool
def source(n: int) -> list[int]:
    CALLS["source"] += 1
    return list(range(n))


@tool
def flaky(items: list[int], ctx: ToolContext) -> int:
    CALLS["flaky"] += 1
    if ctx.attempt < 2:
        raise ToolError("503 try again")
    return sum(items)


@tool
def broken(x: int) -> int:
    CALLS["broken"] += 1
    raise ToolError("404 not found", retryable=False)


@tool(effect="mutating", idempotent=False)
def write(value: int) -> dict[str, int]:
    CALLS["write"] += 1
    return {"written": value}


@tool(effect="mutating")
def undo(value: int) -> str:
    CALLS["undo"] += 1
    return f"undid {value}"


TOOLS = {"source": source, "flaky": flaky, "broken": broken, "write": write, "undo": undo}


@pytest.fixture(autouse=True)
def _reset() -> None:
    CALLS.clear()


@pytest.fixture
def store(tmp_path: Path) -> SqliteStore:
    return SqliteStore(tmp_path / "runs.db")


async def _record(store: SqliteStore, plan: Plan, run_id: str, **kw: Any) -> None:
    await execute_recorded(store, plan, TOOLS, ExecutorOptions(gate=ApproveAll(), **kw), run_id=run_id)
    CALLS.clear()


async def test_replay_makes_zero_calls_and_matches(store: SqliteStore) -> None:
    plan = Plan(
        goal="sum",
        steps=(
            Step(id="src", tool="source", args={"n": 5}),
            Step(id="sum", tool="flaky", args={"items": "${src}"}, retry=NO_WAIT),
            Step(id="bad", tool="broken", args={"x": 1}, on_failure="continue"),
            Step(id="after_bad", tool="write", args={"value": "${bad}"}),
            Step(id="w", tool="write", args={"value": "${sum}"}),
        ),
    )
    await _record(store, plan, "orig")
    result = await replay_run(store, "orig")
    assert sum(CALLS.values()) == 0
    assert result.same, result.differences
    assert result.counter.real == 0 and result.counter.replayed == 5  # flaky twice
    assert result.state.status == result.original.status == "failed"
    assert result.state.steps["sum"].attempts == 2
    assert result.state.steps["after_bad"].status == "skipped"
    assert result.state.steps["w"].output == {"written": 10}
    # The replay is itself a recorded run that says what it replayed.
    row = store.get_run(result.run_id)
    assert row is not None and row.status == "failed"
    created = store.events(result.run_id)[0]
    assert created.config["replay_of"] == "orig"  # type: ignore[union-attr]


async def test_replay_from_step_reruns_only_its_subtree(store: SqliteStore) -> None:
    plan = Plan(
        goal="chain",
        steps=(
            Step(id="a", tool="source", args={"n": 3}),
            Step(id="b", tool="flaky", args={"items": "${a}"}, retry=NO_WAIT),
            Step(id="c", tool="write", args={"value": "${b}"}),
            Step(id="side", tool="source", args={"n": 1}),
        ),
    )
    await _record(store, plan, "orig")
    result = await replay_run(store, "orig", from_step="b", tools=TOOLS, approve_all=True)
    assert result.real_steps == {"b", "c"}
    assert Counter({"flaky": 2, "write": 1}) == CALLS  # a and side came from the record
    assert result.state.status == "succeeded"
    assert result.state.steps["c"].output == {"written": 3}
    with pytest.raises(UserError, match="--from nope: no such step"):
        await replay_run(store, "orig", from_step="nope", tools=TOOLS)


async def test_replay_follows_recorded_replans_and_compensations(store: SqliteStore) -> None:
    plan = Plan(
        goal="fix",
        steps=(
            Step(id="a", tool="source", args={"n": 2}),
            Step(id="b", tool="broken", args={"x": 1}, on_failure="replan"),
        ),
    )
    revised = Plan(
        goal="fix",
        version=2,
        parent_version=1,
        steps=(
            Step(id="a", tool="source", args={"n": 2}),
            Step(id="b2", tool="write", args={"value": 7}),
        ),
    )
    replans: list[int] = []

    async def replanner(p: Plan, state: Any, info: Any) -> Plan | None:
        replans.append(1)
        return revised

    await _record(store, plan, "replanned", replanner=replanner)
    replans.clear()
    result = await replay_run(store, "replanned")
    assert replans == [] and sum(CALLS.values()) == 0
    assert result.same, result.differences
    assert result.state.plan_version == 2
    assert result.state.steps["b2"].output == {"written": 7}

    rollback_plan = Plan(
        goal="undo",
        steps=(
            Step(
                id="w1", tool="write", args={"value": 1}, compensate=ToolCall(tool="undo", args={"value": 1})
            ),
            Step(id="boom", tool="broken", args={"x": 0}, depends_on=("w1",), on_failure="rollback"),
        ),
    )
    await _record(store, rollback_plan, "rolled")
    result = await replay_run(store, "rolled")
    assert sum(CALLS.values()) == 0
    assert result.same, result.differences
    assert result.state.compensations == {"w1": "succeeded"}


async def test_agent_steps_replay_without_the_model(store: SqliteStore) -> None:
    runs: list[str] = []

    async def agent_runner(step: Step, ctx: ToolContext) -> Any:
        runs.append(step.id)
        return {"answer": f"done {step.id}"}

    plan = Plan(goal="think", steps=(Step(id="think", agent="summarize the repo"),))
    await _record(store, plan, "agent", agent_runner=agent_runner)
    runs.clear()
    result = await replay_run(store, "agent")
    assert runs == []
    assert result.same and result.state.steps["think"].output == {"answer": "done think"}


async def test_divergence_is_reported_not_hidden(store: SqliteStore) -> None:
    plan = Plan(goal="x", steps=(Step(id="a", tool="source", args={"n": 1}),))
    await _record(store, plan, "orig")
    events = store.events("orig")
    # A record missing the result of `a` (e.g. written by a crashed process, then edited).
    kept = [
        e.model_copy(update={"run_id": "holey"})
        for e in events
        if e.kind not in ("step_succeeded", "run_finished")
    ]
    kept = [e.model_copy(update={"seq": i}) for i, e in enumerate(kept)]
    store.append_many(kept)
    result = await replay_run(store, "holey", record=False)
    assert sum(CALLS.values()) == 0
    assert result.state.steps["a"].status == "failed"
    assert "replay diverged" in (result.state.steps["a"].error or "")
    assert result.counter.missing == ["a"]


async def test_replay_model_returns_recorded_responses_in_order() -> None:
    calls = [
        ModelCalled(
            run_id="r",
            seq=i,
            role="planner",
            model="m",
            step_id=None,
            response={"text": f"answer {i}", "usage": {"input_tokens": 3}},
        )
        for i in range(2)
    ]
    model = ReplayModel(calls)
    req = ModelRequest.of(None, "hi")
    assert (await model.complete(req)).text == "answer 0"
    chunks = [c async for c in model.stream(req)]
    assert "".join(c.delta for c in chunks) == "answer 1" and chunks[-1].done
    with pytest.raises(ModelError, match="no further model response"):
        await model.complete(req)
    assert model.used == 2


async def test_replay_models_group_by_role_and_step(store: SqliteStore) -> None:
    plan = Plan(goal="x", steps=(Step(id="a", tool="source", args={"n": 1}),))
    await _record(store, plan, "orig")
    events = store.events("orig")
    extra = [
        ModelCalled(
            run_id="orig", seq=len(events) + i, role=role, model="m", step_id=sid, response={"text": text}
        )
        for i, (role, sid, text) in enumerate(
            [("planner", None, "p1"), ("executor", "a", "e1"), ("planner", None, "p2")]
        )
    ]
    store.append_many(extra)
    models = replay_models(Recording.from_events(store.events("orig")))
    req = ModelRequest.of(None, "q")
    assert [(await models[("planner", None)].complete(req)).text for _ in range(2)] == ["p1", "p2"]
    assert (await models[("executor", "a")].complete(req)).text == "e1"
