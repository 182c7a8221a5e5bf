"""A planned step that fails asks the planner again (`on_failure: replan`), within the budget;
a plan written by a person keeps what its author wrote (the model's default is `abort`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from forethought import tool
from forethought.agent import Agent
from forethought.errors import ToolError
from forethought.models.scripted import ScriptedModel
from forethought.oversight.supervisor import Budgets
from forethought.plan.model import Plan
from forethought.planning.streaming import PlanDone, stream_plan
from forethought.runs.replay import replay_run
from forethought.runs.store.sqlite import SqliteStore

CALLS: list[str] = []


@tool
def rate(currency: str) -> float:
    """The value of one unit of a currency in US dollars."""
    CALLS.append(currency)
    if currency == "XXX":
        raise ToolError("no such currency: XXX", retryable=False)
    return {"EUR": 1.1, "JPY": 0.0067}[currency]


@tool(effect="mutating")
def save_note(path: str, text: str) -> str:
    """Write a note to a file."""
    CALLS.append(f"save {path}")
    return path


TOOLS = [rate, save_note]


def plan_json(*steps: dict[str, Any]) -> str:
    return json.dumps({"steps": list(steps)})


@pytest.fixture(autouse=True)
def _reset() -> None:
    CALLS.clear()


@pytest.fixture
def store(tmp_path: Path) -> SqliteStore:
    return SqliteStore(tmp_path / "runs.sqlite")


async def test_a_planned_step_that_fails_is_replanned_and_the_run_succeeds(store: SqliteStore) -> None:
    bad = plan_json({"id": "s1", "tool": "rate", "args": {"currency": "XXX"}})
    good = plan_json({"id": "s2", "tool": "rate", "args": {"currency": "EUR"}})
    agent = Agent(TOOLS, model=ScriptedModel([bad, good]), store=store)
    result = await agent.run("What is one EUR worth in US dollars?", approve="read_only", force=True)
    first = Plan.model_validate_json(store.plan_versions(result.run_id)[0].plan_json)
    assert [s.on_failure for s in first.steps] == ["replan"]  # written into the plan the reviewer sees
    assert result.status == "succeeded", result.state.reason
    assert CALLS == ["XXX", "EUR"]
    assert result.state.replans == 1


async def test_replans_stop_at_the_budget_and_say_so(store: SqliteStore) -> None:
    bad = plan_json({"id": "s1", "tool": "rate", "args": {"currency": "XXX"}})
    agent = Agent(TOOLS, model=ScriptedModel([bad, bad, bad]), store=store, budgets=Budgets(max_replans=1))
    result = await agent.run("What is one XXX worth in US dollars?", approve="read_only", force=True)
    assert result.status == "failed"
    assert "no replan left (max_replans=1)" in result.state.reason
    assert CALLS == ["XXX", "XXX"]


async def test_a_replan_that_adds_a_side_effect_waits_for_approval(store: SqliteStore) -> None:
    bad = plan_json({"id": "s1", "tool": "rate", "args": {"currency": "XXX"}})
    sneaky = plan_json({"id": "w1", "tool": "save_note", "args": {"path": "x.txt", "text": "hi"}})
    agent = Agent(TOOLS, model=ScriptedModel([bad, sneaky]), store=store)
    result = await agent.run("What is one XXX worth in US dollars?", approve="read_only", force=True)
    assert "save x.txt" not in CALLS  # read-only approval never covers the replan's write
    assert result.status in ("paused", "awaiting_approval"), result.state.reason


async def test_a_replanner_whose_model_fails_is_replayed_failing_the_same_way(store: SqliteStore) -> None:
    bad = plan_json({"id": "s1", "tool": "rate", "args": {"currency": "XXX"}})
    agent = Agent(TOOLS, model=ScriptedModel([bad]), store=store)  # nothing left for the replan
    result = await agent.run("What is one XXX worth in US dollars?", approve="read_only", force=True)
    assert result.status == "failed" and "the replanner failed: ScriptedModelExhausted" in result.state.reason
    calls = len(CALLS)
    replay = await replay_run(store, result.run_id)
    assert len(CALLS) == calls
    assert replay.same, replay.differences
    assert replay.state.reason == result.state.reason


def test_a_plan_written_by_a_person_keeps_its_failure_policy() -> None:
    plan = Plan.model_validate(
        {"goal": "g", "steps": [{"id": "s1", "tool": "rate", "args": {"currency": "EUR"}}]}
    )
    assert plan.steps[0].on_failure == "abort"


async def test_a_step_the_model_gives_a_policy_keeps_it_streamed_or_not() -> None:
    text = plan_json(
        {"id": "s1", "tool": "rate", "args": {"currency": "EUR"}, "on_failure": "abort"},
        {"id": "s2", "tool": "rate", "args": {"currency": "JPY"}},
    )
    specs = {t.spec.name: t.spec for t in TOOLS}
    items = [i async for i in stream_plan("rates of EUR and JPY", specs, ScriptedModel([text]))]
    done = items[-1]
    assert isinstance(done, PlanDone) and done.plan is not None, done
    assert [s.on_failure for s in done.plan.steps] == ["abort", "replan"]
    streamed = [i for i in items if not isinstance(i, PlanDone)]
    assert [s.on_failure for s in streamed] == ["abort", "replan"]  # type: ignore[union-attr]
