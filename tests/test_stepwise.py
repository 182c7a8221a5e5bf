"""Step-wise planning (issue 23 item 2, seed 002): one decided step at a time, results in view.

Every test runs a real Agent on a real SQLite store with the scripted model as the planner.
The acceptance test follows a chain of files where step 3's arguments come from what step 2
returned: the scripted planner reads step 2's result out of the request it receives and picks
its next step from it, and the record replays exactly.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from forethought import tool
from forethought.agent import Agent
from forethought.errors import ModelError, UserError
from forethought.events import kinds as E
from forethought.models.base import ModelRequest
from forethought.models.scripted import ScriptedModel
from forethought.oversight.supervisor import Budgets
from forethought.planning.stepwise import (
    STOP_PREFIX,
    choose_planning,
    decision_schema,
    parse_decision,
)
from forethought.runs.replay import replay_run
from forethought.runs.store.sqlite import SqliteStore

CALLS: Counter[str] = Counter()
SAVED: list[str] = []
NOTES = {
    "index.txt": "start at pointer.txt",
    "pointer.txt": "b.txt",  # step 2 returns the name of the file step 3 must read
    "a.txt": "7",
    "b.txt": "21",
    "env.txt": "key sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6 " + "x" * 2000,
}


def _effect(what: str) -> None:
    """Count a call, also across processes (the kill test's child writes to the same log)."""
    CALLS[what] += 1
    log = os.environ.get("STEPWISE_EFFECTS")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(what + "\n")


@tool
def read_note(name: str) -> str:
    """Read a note by its file name."""
    _effect(f"read_note:{name}")
    return NOTES[name]


@tool
def double(n: int) -> int:
    """Double a number."""
    _effect("double")
    return 2 * n


@tool(effect="mutating")
def save(text: str) -> str:
    """Save a text somewhere outside."""
    _effect("save")
    SAVED.append(text)
    return f"saved {text}"


TOOLS = [read_note, double, save]


@pytest.fixture(autouse=True)
def _reset() -> None:
    CALLS.clear()
    SAVED.clear()


@pytest.fixture
def store(tmp_path: Path) -> Any:
    s = SqliteStore(tmp_path / "runs.db")
    yield s
    s.close()


def decide(tool_name: str, args: dict[str, Any], *, confidence: float = 0.9, **extra: Any) -> str:
    return json.dumps(
        {
            "thought": "next",
            "next_step": f"call {tool_name}",
            "tool": tool_name,
            "arguments": args,
            "stop": False,
            "confidence": confidence,
            **extra,
        }
    )


STOP = json.dumps(
    {"thought": "done", "next_step": "", "tool": "none", "arguments": {}, "stop": True, "confidence": 0.9}
)


def user_text(request: ModelRequest) -> str:
    return "\n".join(m.content for m in request.messages if m.role == "user")


def agent(store: SqliteStore, model: ScriptedModel, **kw: Any) -> Agent:
    return Agent(TOOLS, model=model, store=store, **kw)


async def assert_replays_exactly(store: SqliteStore, run_id: str) -> None:
    calls_before = sum(CALLS.values())
    result = await replay_run(store, run_id)
    assert sum(CALLS.values()) == calls_before, "the replay called a real tool"
    assert result.same, result.differences
    assert result.events_compared > 0
    assert result.counter.real == 0
    assert result.state.status == result.original.status
    replayed = store.events(result.run_id)
    # Every decision was served from the record: the planner calls are in the replay, unchanged.
    recorded_calls = [e.response for e in store.events(run_id) if isinstance(e, E.ModelCalled)]
    assert [e.response for e in replayed if isinstance(e, E.ModelCalled)] == recorded_calls


# ---------------------------------------------------------------------------- acceptance


async def test_step_three_is_chosen_from_what_step_two_returned_and_replays(store: SqliteStore) -> None:
    def third(request: ModelRequest) -> str:
        # Step 2's result names the file to read next: find it in the request and follow it.
        found = re.search(r"- s2: read_note\(.*\) result: (\S+)", user_text(request))
        assert found is not None, user_text(request)
        return decide("read_note", {"name": found.group(1)})

    def fourth(request: ModelRequest) -> str:
        found = re.search(r"- s3: read_note\(.*\) result: (\d+)", user_text(request))
        assert found is not None
        return decide("double", {"n": int(found.group(1))})

    model = ScriptedModel(
        [
            decide("read_note", {"name": "index.txt"}),
            decide("read_note", {"name": "pointer.txt"}),
            third,
            fourth,
            STOP,
        ]
    )
    result = await agent(store, model).run(
        "Read index.txt and follow the notes until you reach a number, then double it",
        approve="read_only",
        planning="stepwise",
    )
    assert result.status == "succeeded", result.state.reason
    model.assert_all_used()
    assert (
        Counter({"read_note:index.txt": 1, "read_note:pointer.txt": 1, "read_note:b.txt": 1, "double": 1})
        == CALLS
    )
    assert result.state.steps["s3"].output == "21"
    assert result.state.steps["s4"].output == 42
    # The third request carried step 2's result; the first carried none.
    assert "- s2: read_note" in user_text(model.requests[2])
    assert "result: b.txt" in user_text(model.requests[2])
    assert "none yet" in user_text(model.requests[0])
    # Every request is constrained by the decision's object schema.
    for request in model.requests:
        assert request.json_schema == decision_schema(Agent(TOOLS).specs)
    events = store.events(result.run_id)
    revisions = [e for e in events if isinstance(e, E.PlanRevised)]
    assert [r.reason.split(":")[0] for r in revisions] == [f"step-wise decision {n}" for n in range(1, 5)]
    assert [r.new_version for r in revisions] == [1, 2, 3, 4]
    assert [len(r.plan["steps"]) for r in revisions] == [1, 2, 3, 4]
    assert result.state.replans == 0  # decisions are plan versions, not replans
    assert isinstance(events[0], E.RunCreated) and events[0].config["planning"] == "stepwise"
    await assert_replays_exactly(store, result.run_id)


def test_the_decision_schema_is_an_object_naming_the_tools() -> None:
    schema = decision_schema(Agent(TOOLS).specs)
    assert schema["type"] == "object" and "anyOf" not in schema
    assert set(schema["required"]) == {"thought", "next_step", "tool", "arguments", "stop", "confidence"}
    assert schema["properties"]["tool"]["enum"] == ["double", "read_note", "save", "none"]
    decision, problem = parse_decision('{"stop": true}')
    assert decision is None and "confidence" in problem
    decision, problem = parse_decision("not json")
    assert decision is None and "not a JSON object" in problem


def test_the_decision_request_is_accepted_by_every_adapter(tmp_path: Path) -> None:
    from forethought.planning.stepwise import Done, decision_request
    from test_provider_schemas import problems_of, tool_sets

    for specs in [Agent(TOOLS).specs, *tool_sets(tmp_path).values()]:
        done = [Done("s1", "read_note", {"name": "a.txt"}, "succeeded", "7")]
        request = decision_request("Read a.txt", specs, done, 2, 5)
        assert problems_of(request) == []  # OpenAI-compatible, Anthropic (object root), llama.cpp


def test_the_decision_schema_compiles_to_a_local_grammar() -> None:
    pytest.importorskip("xllamacpp")
    from forethought.models.local import compact_grammar

    assert compact_grammar(decision_schema(Agent(TOOLS).specs))


# ---------------------------------------------------------------------------- failure paths


async def test_low_confidence_escalates_to_a_person_and_approval_continues(store: SqliteStore) -> None:
    model = ScriptedModel([decide("read_note", {"name": "a.txt"}, confidence=0.3)])
    a = agent(store, model, confidence_threshold=0.6)
    result = await a.run("Read a.txt", approve="all", planning="stepwise")
    assert result.status == "awaiting_approval"
    assert result.state.reason.startswith(STOP_PREFIX)
    assert "confidence 0.3 is below 0.6" in result.state.reason
    assert CALLS["read_note:a.txt"] == 0, "a low-confidence step ran without a person"
    assert not any(isinstance(e, E.PlanApproved) for e in store.events(result.run_id))
    await assert_replays_exactly(store, result.run_id)  # the escalation replays too
    # A person approves: the held step runs, without asking the planner for it again.
    model.add(STOP)
    resumed = await a.approve(result.run_id)
    assert resumed is not None and resumed.status == "succeeded", resumed.state.reason
    assert CALLS["read_note:a.txt"] == 1
    assert len(model.requests) == 2
    model.assert_all_used()


async def test_the_step_cap_stops_the_run(store: SqliteStore) -> None:
    model = ScriptedModel([decide("read_note", {"name": "a.txt"}), decide("read_note", {"name": "b.txt"})])
    result = await agent(store, model).run(
        "Read a.txt", approve="read_only", planning="stepwise", max_steps=2
    )
    assert result.status == "paused"
    assert "step cap (2 steps)" in result.state.reason
    assert len(model.requests) == 2, "the planner was asked beyond the cap"
    model.assert_all_used()
    await assert_replays_exactly(store, result.run_id)


async def test_the_budgets_step_cap_applies_when_no_max_steps_is_given(store: SqliteStore) -> None:
    model = ScriptedModel([decide("read_note", {"name": "a.txt"})])
    a = agent(store, model, budgets=Budgets(max_steps=1, on_breach="abort"))
    result = await a.run("Read a.txt", approve="read_only", planning="stepwise")
    assert result.status == "failed" and "step cap (1 steps)" in result.state.reason


async def test_a_failed_check_ends_the_run_failed_naming_the_check(store: SqliteStore) -> None:
    model = ScriptedModel(
        [
            decide("read_note", {"name": "a.txt"}),
            decide("read_note", {"name": "b.txt"}, check={"expr": "output == '7'"}),
        ]
    )
    result = await agent(store, model).run("Read a.txt and b.txt", approve="read_only", planning="stepwise")
    assert result.status == "failed"
    assert "s2" in result.state.reason and "check" in result.state.reason, result.state.reason
    assert len(model.requests) == 2, "the planner was asked again after a failed check"
    failed = [e for e in store.events(result.run_id) if isinstance(e, E.CheckFailed)]
    assert failed and failed[0].step_id == "s2"
    await assert_replays_exactly(store, result.run_id)


async def test_a_side_effect_needs_approval_and_an_earlier_one_never_covers_a_later_one(
    store: SqliteStore,
) -> None:
    model = ScriptedModel([decide("save", {"text": "hello"})])
    a = agent(store, model)
    # The goal says it twice: one save said once and done twice is a coverage finding.
    result = await a.run("Save hello, then save hello again", approve="read_only", planning="stepwise")
    assert result.status == "awaiting_approval"
    assert "has side effects" in result.state.reason and "s1" in result.state.reason
    assert CALLS["save"] == 0
    await assert_replays_exactly(store, result.run_id)
    # Approved: s1 runs; the planner then decides the very same call again as s2, which the
    # approval of s1 must not cover.
    model.add(decide("save", {"text": "hello"}))
    second = await a.approve(result.run_id)
    assert second is not None and second.status == "awaiting_approval", second.state.reason
    assert SAVED == ["hello"]
    assert "s2" in second.state.reason
    model.add(STOP)
    third = await a.approve(result.run_id)
    assert third is not None and third.status == "succeeded", third.state.reason
    assert SAVED == ["hello", "hello"]
    assert len(model.requests) == 3, "a decided step was asked for again"
    model.assert_all_used()


async def test_yes_all_grants_each_decision_its_own_recorded_approval(store: SqliteStore) -> None:
    model = ScriptedModel(
        [
            decide("read_note", {"name": "a.txt"}),
            decide("save", {"text": "x"}),
            decide("save", {"text": "y"}),
            STOP,
        ]
    )
    result = await agent(store, model).run(
        "Read a.txt, then save x and y", approve="all", planning="stepwise"
    )
    assert result.status == "succeeded", result.state.reason
    events = store.events(result.run_id)
    approvals = [e for e in events if isinstance(e, E.PlanApproved)]
    revisions = {e.new_version: e.plan_hash for e in events if isinstance(e, E.PlanRevised)}
    # Only the versions that add a side effect are approved, each bound to its own version.
    assert [a.plan_hash for a in approvals] == [revisions[2], revisions[3]]
    assert SAVED == ["x", "y"]
    await assert_replays_exactly(store, result.run_id)


async def test_an_unknown_tool_is_refused_once_then_the_run_fails(store: SqliteStore) -> None:
    model = ScriptedModel([decide("rm_rf", {"path": "/"}), decide("rm_rf", {"path": "/"})])
    result = await agent(store, model).run("Clean up", approve="all", planning="stepwise")
    assert result.status == "failed"
    assert result.state.reason.startswith(f"{STOP_PREFIX}decision 1 is invalid after one retry")
    assert "rm_rf" in result.state.reason and "\n" not in result.state.reason
    # The model was told what was wrong before its second answer.
    assert "refused" in user_text(model.requests[1]) and "rm_rf" in user_text(model.requests[1])
    assert not CALLS


async def test_a_refused_decision_may_be_corrected(store: SqliteStore) -> None:
    model = ScriptedModel(
        [decide("read_note", {"nam": "a.txt"}), decide("read_note", {"name": "a.txt"}), STOP]
    )
    result = await agent(store, model).run("Read a.txt", approve="read_only", planning="stepwise")
    assert result.status == "succeeded", result.state.reason
    assert "nam" in user_text(model.requests[1])
    assert CALLS["read_note:a.txt"] == 1


async def test_a_run_stopped_between_decisions_resumes_without_redoing_or_reasking(
    store: SqliteStore,
) -> None:
    model = ScriptedModel(
        [
            decide("read_note", {"name": "index.txt"}),
            decide("read_note", {"name": "pointer.txt"}),
            ModelError("provider unavailable"),
        ]
    )
    a = agent(store, model)
    goal = "Read index.txt and follow the notes until you reach a number"
    result = await a.run(goal, approve="read_only", planning="stepwise")
    assert result.status == "paused" and "planner failed" in result.state.reason
    later = ScriptedModel([decide("read_note", {"name": "b.txt"}), STOP])
    resumed = await agent(store, later).resume(result.run_id, approve="read_only")
    assert resumed.status == "succeeded", resumed.state.reason
    assert Counter({"read_note:index.txt": 1, "read_note:pointer.txt": 1, "read_note:b.txt": 1}) == CALLS
    # The resumed planner was asked for decision 3 first, with both recorded results in view.
    assert "decision 3" in user_text(later.requests[0])
    assert "result: b.txt" in user_text(later.requests[0])
    later.assert_all_used()


async def test_stop_on_a_plan_that_misses_the_goal_says_what_is_missing(store: SqliteStore) -> None:
    model = ScriptedModel([decide("read_note", {"name": "a.txt"}), STOP])
    result = await agent(store, model).run("Read a.txt and b.txt", approve="read_only", planning="stepwise")
    assert result.status == "awaiting_approval"
    assert result.state.reason.startswith("plan does not cover the goal") and "b.txt" in result.state.reason


async def test_decision_calls_count_toward_the_token_budget(store: SqliteStore) -> None:
    model = ScriptedModel([decide("read_note", {"name": "a.txt"}), decide("read_note", {"name": "b.txt"})])
    a = agent(store, model, budgets=Budgets(max_tokens=1))
    result = await a.run("Read a.txt", approve="read_only", planning="stepwise")
    assert result.status == "paused" and "max_tokens" in result.state.reason


async def test_results_reach_the_planner_redacted_and_bounded(store: SqliteStore) -> None:
    model = ScriptedModel([decide("read_note", {"name": "env.txt"}), STOP])
    result = await agent(store, model).run("Read env.txt", approve="read_only", planning="stepwise")
    assert result.status == "succeeded", result.state.reason
    seen = user_text(model.requests[1])
    assert "- s1: read_note" in seen
    assert "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6" not in seen
    assert "x" * 700 not in seen and "chars)" in seen


async def test_a_budget_pause_during_the_decisions_replays(store: SqliteStore) -> None:
    model = ScriptedModel([decide("read_note", {"name": "a.txt"}), decide("read_note", {"name": "b.txt"})])
    result = await agent(store, model, budgets=Budgets(max_tokens=1)).run(
        "Read a.txt", approve="read_only", planning="stepwise"
    )
    assert result.status == "paused" and "max_tokens" in result.state.reason
    await assert_replays_exactly(store, result.run_id)


async def test_stepwise_needs_a_standing_approval_policy(store: SqliteStore) -> None:
    with pytest.raises(UserError, match="standing approval policy"):
        await agent(store, ScriptedModel()).run("Read a.txt", planning="stepwise")
    with pytest.raises(UserError, match="cannot be queued"):
        await agent(store, ScriptedModel()).run("Read a.txt", approve="all", planning="stepwise", queue=True)
    with pytest.raises(UserError, match="not one of"):
        await agent(store, ScriptedModel()).run("Read a.txt", approve="all", planning="sideways")


# ---------------------------------------------------------------------------- --planning auto


@pytest.mark.parametrize(
    "goal",
    [
        "Read config.txt and if it says debug, save a note",
        "Depending on what status.txt says, save a reply",
        "Read whichever of a.txt and b.txt is longer",
        "Save a summary based on what the search returns",
        "Keep reading the next file until one holds a number",
        "Read the file named in index.txt",
        "Find the largest log, then save its first line",
    ],
)
def test_auto_picks_stepwise_when_later_steps_depend_on_earlier_outputs(goal: str) -> None:
    assert choose_planning(goal).mode == "stepwise"


@pytest.mark.parametrize(
    "goal",
    [
        "Read a.txt and b.txt and save both",
        "Count the words in README.md",
        "Double 21, then save the result",
        "Fetch the weather for Paris and Rome",
    ],
)
def test_auto_picks_dag_when_every_step_can_be_decided_up_front(goal: str) -> None:
    assert choose_planning(goal).mode == "dag"


async def test_auto_runs_both_ways_through_the_agent(store: SqliteStore) -> None:
    stepwise = ScriptedModel(
        [decide("read_note", {"name": "pointer.txt"}), decide("read_note", {"name": "b.txt"}), STOP]
    )
    result = await agent(store, stepwise).run(
        "Read the file named in pointer.txt", approve="read_only", planning="auto"
    )
    assert result.status == "succeeded", result.state.reason
    config = store.events(result.run_id)[0]
    assert isinstance(config, E.RunCreated)
    assert config.config["planning"] == "stepwise" and "where to find" in config.config["planning_rule"]

    plan = json.dumps({"steps": [{"id": "s1", "tool": "read_note", "args": {"name": "a.txt"}}]})
    dag = ScriptedModel([plan])
    result = await agent(store, dag).run("Read a.txt", approve="read_only", planning="auto", stream=False)
    assert result.status == "succeeded", result.state.reason
    config = store.events(result.run_id)[0]
    assert isinstance(config, E.RunCreated) and config.config["planning"] == "dag"
    assert not any(isinstance(e, E.PlanRevised) for e in store.events(result.run_id))


# ---------------------------------------------------------------------------- kill -9, CLI

CHILD = """
import asyncio, os, signal, sys
sys.path.insert(0, sys.argv[1])
import test_stepwise as t
from forethought.agent import Agent
from forethought.models.scripted import ScriptedModel
from forethought.runs.store.sqlite import SqliteStore

store = SqliteStore(sys.argv[2])


class KilledAtDecision3:
    # The scripted planner, and a kill -9 when decision 3 is asked for, once every event
    # before it is in the database (so the test knows what the record holds).
    name = "scripted"

    def __init__(self):
        self.inner = ScriptedModel(
            [t.decide("read_note", {"name": "index.txt"}), t.decide("read_note", {"name": "pointer.txt"})]
        )

    async def complete(self, request):
        if self.inner.remaining == 0:
            run_id = store.list_runs()[0].run_id
            done = lambda e: e.kind == "step_succeeded" and e.step_id == "s2"  # noqa: E731
            while not any(done(e) for e in store.events(run_id)):
                await asyncio.sleep(0)  # yield to the recorder until decision 2 is durable
            print("KILL", run_id, flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
        return await self.inner.complete(request)

    async def stream(self, request):
        raise AssertionError("step-wise decisions do not stream")


agent = Agent(t.TOOLS, model=KilledAtDecision3(), store=store)
asyncio.run(agent.run(t.GOAL_CHAIN, approve="read_only", planning="stepwise"))
"""

GOAL_CHAIN = "Read index.txt and follow the notes until you reach a number"


async def test_kill_9_between_decisions_resumes_from_the_recorded_decisions(tmp_path: Path) -> None:
    effects = tmp_path / "effects.log"
    db = tmp_path / "runs.db"
    env = {**os.environ, "STEPWISE_EFFECTS": str(effects)}
    child = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-c", CHILD, str(Path(__file__).parent), str(db)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert child.returncode == -9, child.stderr
    run_id = child.stdout.split()[-1]
    store = SqliteStore(db)
    try:
        row = store.get_run(run_id)
        assert row is not None and row.status == "running"  # killed: nobody finished it
        later = ScriptedModel([decide("read_note", {"name": "b.txt"}), STOP])
        os.environ["STEPWISE_EFFECTS"] = str(effects)
        try:
            resumed = await Agent(TOOLS, model=later, store=store).resume(run_id, approve="read_only")
        finally:
            del os.environ["STEPWISE_EFFECTS"]
        assert resumed.status == "succeeded", resumed.state.reason
        # Across both processes each step ran once, and decisions 1 and 2 were not asked again.
        calls = Counter(effects.read_text().split())
        assert calls == Counter({"read_note:index.txt": 1, "read_note:pointer.txt": 1, "read_note:b.txt": 1})
        assert "decision 3" in user_text(later.requests[0]) and "result: b.txt" in user_text(
            later.requests[0]
        )
        later.assert_all_used()
    finally:
        store.close()


def test_cli_runs_a_stepwise_goal_and_replays_it(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from forethought.interfaces.cli.run_cmd import run
    from forethought.interfaces.cli.runs_cmd import replay_command

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "index.txt").write_text("notes.txt")
    (ws / "notes.txt").write_text("three little words")
    replies = tmp_path / "replies.json"
    replies.write_text(
        json.dumps(
            [
                decide("read_file", {"path": "index.txt"}),
                decide("read_file", {"path": "notes.txt"}),
                STOP,
            ]
        )
    )
    db = str(tmp_path / "cli.db")
    args = ["Read the file named in index.txt", "--model", f"scripted:{replies}", "--workspace", str(ws)]
    result = CliRunner().invoke(
        run, [*args, "--db", db, "--planning", "auto", "--yes", "--json"], standalone_mode=False
    )
    assert result.exception is None, result.output
    summary = json.loads(result.stdout)
    assert result.return_value == 0, summary
    assert summary["status"] == "succeeded"
    assert "three little words" in json.dumps(summary["steps"]["s2"]["output"])
    replayed = CliRunner().invoke(replay_command, [summary["run_id"], "--db", db], standalone_mode=False)
    assert replayed.return_value == 0, replayed.output
    helped = CliRunner().invoke(run, ["--help"])
    assert "--planning [dag|stepwise|auto]" in helped.output and "--max-steps" in helped.output
