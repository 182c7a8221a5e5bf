"""Issue 16, streamed plans: a streamed plan that misses its goal is repaired like a planned one
(a new recorded version), and if still uncovered waits for approval; side effects never start
before that, and read-only steps that already ran are kept, not re-run. Scripted model."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from forethought.agent import Agent
from forethought.events import kinds as E
from forethought.models.scripted import ScriptedModel
from forethought.oversight.supervisor import Budgets
from forethought.plan.model import Plan
from forethought.planning.streaming import keep_streamed_ids
from forethought.runs.store.sqlite import SqliteStore
from forethought.tools.base import ToolRegistry
from forethought.tools.builtin import builtin_tools

COPY = "copy notes.txt to notes-backup.txt"
READ = {"id": "s1", "tool": "read_file", "args": {"path": "notes.txt"}}
COUNT = {"id": "s2", "tool": "text_stats", "args": {"text": "${s1.content}"}}
WRONG_WRITE = {"id": "s2", "tool": "write_file", "args": {"path": "other.txt", "content": "${s1.content}"}}
WRITE = {"id": "s2", "tool": "write_file", "args": {"path": "notes-backup.txt", "content": "${s1.content}"}}


def plan_json(*steps: dict[str, Any]) -> str:
    return json.dumps({"steps": list(steps)})


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("alpha beta gamma\n")
    return root


@pytest.fixture
def store(tmp_path: Path) -> Any:
    s = SqliteStore(tmp_path / "runs.db")
    yield s
    s.close()


def make_agent(ws: Path, store: SqliteStore, model: ScriptedModel, **kw: Any) -> Agent:
    return Agent(ToolRegistry(builtin_tools(ws)), model=model, store=store, **kw)


class RepairAfterStep:
    """A scripted model whose answers to ``complete`` (the repair) come only once step
    ``step_id`` has succeeded; pass its ``on_event`` to the run. Streaming goes straight on."""

    def __init__(self, scripted: ScriptedModel, step_id: str) -> None:
        self.name = scripted.name
        self._scripted, self._step_id, self._done = scripted, step_id, asyncio.Event()

    async def complete(self, request: Any) -> Any:
        await self._done.wait()
        return await self._scripted.complete(request)

    def stream(self, request: Any) -> Any:
        return self._scripted.stream(request)

    async def on_event(self, event: Any) -> None:
        if isinstance(event, E.StepSucceeded) and event.step_id == self._step_id:
            self._done.set()


def events_of(store: SqliteStore, run_id: str, cls: type[Any]) -> list[Any]:
    return [e for e in store.events(run_id) if isinstance(e, cls)]


def started(store: SqliteStore, run_id: str) -> list[str]:
    return [e.step_id for e in events_of(store, run_id, E.StepStarted)]


async def test_a_streamed_plan_is_repaired_into_a_new_version_that_runs(ws: Path, store: SqliteStore) -> None:
    model = ScriptedModel([plan_json(READ, WRONG_WRITE), plan_json(READ, WRITE)])
    result = await make_agent(ws, store, model).run(COPY, approve="all", stream=True)
    model.assert_all_used()
    assert result.status == "succeeded", result.state.reason
    assert (ws / "notes-backup.txt").read_text() == "alpha beta gamma\n"
    assert not (ws / "other.txt").exists()  # v1's side effect never started
    # The repair request showed the model what v1 misses.
    assert "notes-backup.txt" in model.requests[1].messages[-1].content
    revised = events_of(store, result.run_id, E.PlanRevised)
    assert [(e.old_version, e.new_version) for e in revised] == [(1, 2)]
    assert revised[0].reason.startswith("coverage repair: ")
    checked = events_of(store, result.run_id, E.PlanValidated)
    assert [e.coverage["covered"] for e in checked] == [False, True]
    approved = events_of(store, result.run_id, E.PlanApproved)
    assert [e.plan_hash for e in approved] == [revised[0].plan_hash]  # only v2 was approved
    # v2 reuses the id s2 for another call: renamed, so it cannot pass for v1's s2.
    assert result.plan is not None and result.plan.version == 2
    assert [s.id for s in result.plan.steps] == ["s1", "s2_v2"]
    assert started(store, result.run_id).count("s1") == 1


async def test_read_only_steps_that_ran_from_the_stream_are_kept(ws: Path, store: SqliteStore) -> None:
    model = ScriptedModel([plan_json(READ, COUNT), plan_json(READ, {**WRITE, "id": "s3"})])
    result = await make_agent(ws, store, model).run(COPY, approve="all", stream=True)
    assert result.status == "succeeded", result.state.reason
    assert (ws / "notes-backup.txt").exists()
    runs = started(store, result.run_id)
    assert runs.count("s1") == 1 and runs.count("s3") == 1
    assert result.plan is not None and [s.id for s in result.plan.steps] == ["s1", "s3"]
    # s2 left the plan with v2; if it ran from the stream, its record stays.
    assert runs.count("s2") <= 1 and "s2" not in result.state.steps


async def test_a_still_uncovered_streamed_plan_waits_then_approve_runs_it(
    ws: Path, store: SqliteStore
) -> None:
    model = ScriptedModel([plan_json(READ, WRONG_WRITE)] * 3)
    agent = make_agent(ws, store, model, budgets=Budgets(max_replans=2))
    result = await agent.run(COPY, approve="all", stream=True)
    model.assert_all_used()
    assert result.status == "awaiting_approval"
    assert result.state.reason.startswith("plan does not cover the goal: ")
    assert '"notes-backup.txt"' in result.state.reason
    assert not (ws / "other.txt").exists()
    revised = events_of(store, result.run_id, E.PlanRevised)
    assert [e.new_version for e in revised] == [2, 3]  # every repair is a recorded version
    assert result.plan is not None and result.plan.version == 3
    assert not events_of(store, result.run_id, E.PlanApproved)
    asked = events_of(store, result.run_id, E.ApprovalRequested)[-1]
    assert asked.plan_hash == revised[-1].plan_hash
    assert asked.step_ids == [result.plan.steps[1].id] and "notes-backup.txt" in asked.reason
    assert result.coverage is not None and result.coverage["covered"] is False
    ran_before = started(store, result.run_id)
    assert "s2" not in ran_before and all(sid == "s1" for sid in ran_before)

    resumed = await agent.approve(result.run_id)
    assert resumed is not None and resumed.status == "succeeded", resumed.state.reason
    assert (ws / "other.txt").read_text() == "alpha beta gamma\n"
    runs = started(store, result.run_id)
    assert runs.count("s1") <= 1  # a read-only step that ran from the stream is not re-run
    assert runs.count(result.plan.steps[1].id) == 1


async def test_resume_of_a_waiting_streamed_run_does_not_run_side_effects(
    ws: Path, store: SqliteStore
) -> None:
    model = ScriptedModel([plan_json(READ, WRONG_WRITE)])  # no repair answer
    agent = make_agent(ws, store, model)
    result = await agent.run(COPY, approve="all", stream=True)
    assert result.status == "awaiting_approval"
    again = await agent.resume(result.run_id)
    assert again.status == "awaiting_approval"
    assert not (ws / "other.txt").exists()


async def test_force_skips_the_repair_of_a_streamed_plan(ws: Path, store: SqliteStore) -> None:
    model = ScriptedModel([plan_json(READ, WRONG_WRITE)])
    result = await make_agent(ws, store, model).run(COPY, approve="all", stream=True, force=True)
    model.assert_all_used()
    assert result.status == "succeeded"
    assert (ws / "other.txt").exists()
    assert not events_of(store, result.run_id, E.PlanRevised)
    assert events_of(store, result.run_id, E.RunCreated)[0].config["force"] is True


async def test_streamed_and_planned_runs_agree(ws: Path, store: SqliteStore, tmp_path: Path) -> None:
    outcomes = []
    for stream in (True, False):
        model = ScriptedModel([plan_json(READ, COUNT)] * 2)
        agent = make_agent(ws, store, model, budgets=Budgets(max_replans=1))
        result = await agent.run(COPY, approve="all", stream=stream)
        assert result.plan is not None
        outcomes.append((result.status, result.plan.version, result.coverage))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] == "awaiting_approval"


def test_keep_streamed_ids_renames_only_reused_ids_and_follows_references() -> None:
    streamed = Plan.model_validate({"goal": "g", "steps": [READ, COUNT]})
    repaired = Plan.model_validate(
        {
            "goal": "g",
            "version": 2,
            "steps": [
                READ,
                {**WRITE, "args": {"path": "x", "content": "${s1.content}"}},
                {"id": "s3", "tool": "text_stats", "args": {"text": "${s2}"}, "depends_on": ["s2"]},
            ],
        }
    )
    kept = keep_streamed_ids(repaired, streamed)
    assert [s.id for s in kept.steps] == ["s1", "s2_v2", "s3"]
    assert kept.steps[2].args == {"text": "${s2_v2}"} and kept.steps[2].depends_on == ("s2_v2",)
    assert kept.version == 2
    assert keep_streamed_ids(streamed, streamed) == streamed


async def test_a_step_still_running_when_the_repair_lands_runs_once(ws: Path, store: SqliteStore) -> None:
    from forethought import tool
    from forethought.tools.base import ToolRegistry

    started, release = asyncio.Event(), asyncio.Event()

    @tool
    async def slow_read(path: str) -> str:
        """Read a text file slowly."""
        started.set()
        await release.wait()
        return (ws / path).read_text()

    first = {"id": "s1", "tool": "slow_read", "args": {"path": "notes.txt"}}
    count = {"id": "s2", "tool": "text_stats", "args": {"text": "${s1}"}}
    write = {"id": "s2", "tool": "write_file", "args": {"path": "notes-backup.txt", "content": "${s1}"}}
    scripted = ScriptedModel([plan_json(first, count), plan_json(first, write)])

    class RepairWhileS1Runs:
        """The scripted model; its repair answer lands while s1 is still running."""

        name = scripted.name

        async def complete(self, request: Any) -> Any:
            await started.wait()
            release.set()  # s1 resumes only after the revision is installed
            return await scripted.complete(request)

        def stream(self, request: Any) -> Any:
            return scripted.stream(request)

    agent = Agent(ToolRegistry([*builtin_tools(ws), slow_read]), model=RepairWhileS1Runs(), store=store)
    result = await agent.run(COPY, approve="all", stream=True)
    scripted.assert_all_used()
    assert result.status == "succeeded", result.state.reason
    assert (ws / "notes-backup.txt").read_text() == "alpha beta gamma\n"
    assert started_ids(store, result.run_id).count("s1") == 1
    assert [(e.old_version, e.new_version) for e in events_of(store, result.run_id, E.PlanRevised)] == [
        (1, 2)
    ]


def started_ids(store: SqliteStore, run_id: str) -> list[str]:
    return [e.step_id for e in events_of(store, run_id, E.StepStarted)]


async def test_a_repair_with_low_confidence_waits_for_a_person(ws: Path, store: SqliteStore) -> None:
    unsure = json.dumps({"steps": [READ, WRITE], "confidence": 0.1})
    model = ScriptedModel([plan_json(READ, COUNT), unsure])
    result = await make_agent(ws, store, model, confidence_threshold=0.5).run(
        COPY, approve="all", stream=True
    )
    model.assert_all_used()
    # The repair covers the goal, but its author is unsure: --yes-all does not approve it.
    assert result.status == "awaiting_approval", result.state.reason
    assert not events_of(store, result.run_id, E.PlanApproved)
    assert not (ws / "notes-backup.txt").exists()


async def test_a_repair_may_drop_a_read_only_step_that_already_ran(ws: Path, store: SqliteStore) -> None:
    scripted = ScriptedModel([plan_json(READ, COUNT), plan_json(READ, WRITE)])
    model = RepairAfterStep(scripted, "s2")  # the repair comes once the streamed count has run
    agent = Agent(ToolRegistry(builtin_tools(ws)), model=model, store=store)
    result = await agent.run(COPY, approve="all", stream=True, on_event=model.on_event)
    scripted.assert_all_used()
    assert result.status == "succeeded", result.state.reason
    assert (ws / "notes-backup.txt").read_text() == "alpha beta gamma\n"
    # The count ran once under v1 and is history; the write is v2's renamed s2.
    assert started_ids(store, result.run_id) == ["s1", "s2", "s2_v2"]


async def test_a_streamed_plan_is_repaired_the_way_make_plan_plans(
    tmp_path: Path, store: SqliteStore
) -> None:
    """On the embedded model a streamed plan's repair first tries what ``make_plan`` does:
    candidate chains whose open slots the model fills. The model is not asked to fix its own
    plan ("restock sku B-200 with 5 units" streamed as a stock lookup, and the embedded model,
    shown the findings, answered the same plan three times), so ``run`` ends where ``plan`` does."""
    from forethought import tool

    shelf: dict[str, int] = {"blue": 3, "widget": 1}

    @tool
    def shelf_count(code: str) -> int:
        """How many units of an item are on the shelf."""
        return shelf[code]

    @tool(effect="mutating")
    def top_up(code: str, amount: int) -> int:
        """Put more units of an item on the shelf; returns the new count."""
        shelf[code] += amount
        return shelf[code]

    goal = "top up the blue widget by 5"  # two words for the code: the model's to choose
    lookup = {"id": "s1", "tool": "shelf_count", "args": {"code": "widget"}}
    fill = {"id": "s1", "tool": "top_up", "args": {"code": "widget", "amount": 5}}
    model = ScriptedModel([plan_json(lookup), plan_json(fill)], name="local:scripted")
    # The second answer comes once the streamed lookup has run (a revision that drops a step
    # under way is refused).
    after = RepairAfterStep(model, "s1")
    agent = Agent(ToolRegistry([shelf_count, top_up]), model=after, store=store)
    result = await agent.run(goal, approve="all", stream=True, on_event=after.on_event)
    model.assert_all_used()
    assert result.status == "succeeded", result.state.reason
    assert shelf == {"blue": 3, "widget": 6}
    # The second call filled the chosen chain's slots: only its tool was shown, no findings.
    repair = model.requests[1]
    assert "shelf_count" not in repair.messages[0].content
    assert not any("does not do the whole goal" in m.content for m in repair.messages)
    revised = events_of(store, result.run_id, E.PlanRevised)
    assert [(e.old_version, e.new_version) for e in revised] == [(1, 2)]
    assert result.plan is not None and result.plan.metadata.get("repair") == "coverage"


async def test_a_repair_is_not_the_plan_it_repairs() -> None:
    """When the chain the rules decide is the plan already found wanting (the run's stricter
    check disagrees with the planner's), the repair asks the model instead of handing the same
    calls back as a new version."""
    from forethought import tool
    from forethought.plan.model import Plan
    from forethought.planning.planner import repair_coverage

    @tool(effect="mutating")
    def top_up(code: str, amount: int) -> int:
        """Put more units of an item on the shelf; returns the new count."""
        return amount

    goal = "top up widget by 5"
    specs = {"top_up": top_up.spec}
    same = Plan.model_validate(
        {"goal": goal, "steps": [{"id": "s1", "tool": "top_up", "args": {"code": "widget", "amount": 5}}]}
    )
    other = {"id": "s1", "tool": "top_up", "args": {"code": "widget", "amount": 6}}
    model = ScriptedModel([plan_json(other)], name="local:scripted")
    result = await repair_coverage(goal, same, ["a finding"], specs, model)
    model.assert_all_used()  # the model was asked
    assert "a finding" in model.requests[0].messages[-1].content
    assert result.plan is not None and result.plan.steps[0].args["amount"] == 6
    assert result.plan.version == 2 and result.plan.parent_version == 1
