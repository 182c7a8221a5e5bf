"""Plan memory learns only from runs that achieved their goal, keyed by the tools it used;
``forethought memory list|forget``; migration of memory files from before the tool key."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from forethought import tool
from forethought.agent import Agent
from forethought.events.state import RunState, StepState
from forethought.interfaces.cli.main import run as cli_run
from forethought.plan.model import Plan
from forethought.planning.memory import PlanMemory, not_learnable, plan_tools

WRITTEN: dict[str, str] = {}
CALLS: dict[str, int] = {}


@tool(effect="mutating")
def write_text(path: str, text: str) -> str:
    """Write text to a file."""
    WRITTEN[path] = text
    return "ok"


@tool
def word_count(text: str) -> int:
    """Count the words of a text."""
    return len(text.split())


@tool
def shaky_count(text: str) -> int:
    """Counts words; the first call answers nonsense."""
    CALLS["shaky"] = CALLS.get("shaky", 0) + 1
    return -1 if CALLS["shaky"] == 1 else len(text.split())


@pytest.fixture(autouse=True)
def _reset() -> None:
    WRITTEN.clear()
    CALLS.clear()


GOAL = "write hello to greeting.txt"
COVERED = {
    "goal": GOAL,
    "steps": [{"id": "s1", "tool": "write_text", "args": {"path": "greeting.txt", "text": "hello"}}],
}
UNCOVERED = {"goal": GOAL, "steps": [{"id": "s1", "tool": "word_count", "args": {"text": "hello"}}]}


def agent(mem: PlanMemory, *tools: Any) -> Agent:
    return Agent(list(tools) or [write_text, word_count, shaky_count], memory=mem, record=False)


async def test_a_succeeded_run_whose_plan_misses_the_goal_is_not_remembered(tmp_path: Path) -> None:
    mem = PlanMemory(tmp_path / "m.sqlite", starter=False)
    result = await agent(mem).run(Plan.model_validate(UNCOVERED), approve="all")
    assert result.state.status == "succeeded"  # the run did what it planned ...
    assert len(mem) == 0  # ... but not the goal: never an example for later goals
    assert mem.similar("write hello to greeting.txt", k=5) == []


async def test_a_covered_succeeded_run_is_remembered_with_its_tools(tmp_path: Path) -> None:
    mem = PlanMemory(tmp_path / "m.sqlite", starter=False)
    result = await agent(mem).run(Plan.model_validate(COVERED), approve="all")
    assert result.state.status == "succeeded" and WRITTEN == {"greeting.txt": "hello"}
    [entry] = mem.entries()
    assert entry.goal == GOAL and entry.tools == ("write_text",)
    with sqlite3.connect(tmp_path / "m.sqlite") as db:
        stored = json.loads(db.execute("SELECT tools FROM plans").fetchone()[0])
    assert stored == {"write_text": write_text.spec.definition_hash()}


async def test_a_step_that_passed_its_check_on_retry_is_fine(tmp_path: Path) -> None:
    mem = PlanMemory(tmp_path / "m.sqlite", starter=False)
    plan = Plan.model_validate(
        {
            "goal": "count the words of 'hello big world'",
            "steps": [
                {
                    "id": "s1",
                    "tool": "shaky_count",
                    "args": {"text": "hello big world"},
                    "check": {"expr": "output > 0"},
                    "retry": {"attempts": 2, "backoff_s": 0, "retry_on": ["check"]},
                }
            ],
        }
    )
    result = await agent(mem).run(plan, approve="all")
    assert result.state.status == "succeeded" and CALLS["shaky"] == 2
    assert len(mem) == 1


def _succeeded(plan: Plan) -> RunState:
    state = RunState(goal=plan.goal, status="succeeded")
    for s in plan.steps:
        state.steps[s.id] = StepState(s.id, status="succeeded", attempts=1)
    return state


def test_forced_runs_and_outstanding_check_failures_are_not_learned(tmp_path: Path) -> None:
    from forethought.events.kinds import CheckFailed

    mem = PlanMemory(tmp_path / "m.sqlite", starter=False)
    plan = Plan.model_validate(COVERED)
    state = _succeeded(plan)
    assert not_learnable(plan, state) is None
    assert not_learnable(plan, state, forced=True) == "the run was forced"
    assert mem.remember(plan, run=state, forced=True) is False
    assert mem.remember(plan, forced=True) is False
    # A step whose check failed and that a revision then dropped (it ended failed): outstanding.
    failed = CheckFailed(
        run_id="r", seq=3, ts=0.0, plan_version=1, step_id="old", attempt=1, criterion="c", detail="d"
    )
    state.steps["old"] = StepState("old", status="failed", attempts=1)
    assert "check failed for step(s) old" in (not_learnable(plan, state, events=[failed]) or "")
    assert mem.remember(plan, run=state, events=[failed]) is False
    # A step whose check failed at its first attempt and that succeeded at its second: not
    # outstanding, read from the run's state when no step_succeeded is at hand (a recorded run
    # keeps those in the store only) as from the events when it is.
    retried = failed.model_copy(update={"step_id": "s1"})
    del state.steps["old"]
    assert not_learnable(plan, state, events=[retried]) is None
    state.status = "failed"
    assert mem.remember(plan, run=state) is False
    assert len(mem) == 0
    state.status = "succeeded"
    assert mem.remember(plan, run=state) is True and len(mem) == 1


async def test_a_forced_run_is_not_remembered_through_the_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem = PlanMemory(tmp_path / "m.sqlite", starter=False)
    seen: list[bool] = []
    original = PlanMemory.remember

    def spy(self: PlanMemory, plan: Plan, **kw: Any) -> bool:
        seen.append(kw.get("forced", False))
        return original(self, plan, **{**kw, "forced": True})  # as a --force run would pass it

    monkeypatch.setattr(PlanMemory, "remember", spy)
    result = await agent(mem).run(Plan.model_validate(COVERED), approve="all")
    assert result.state.status == "succeeded" and seen == [False]
    assert len(mem) == 0


def test_a_plan_using_a_tool_not_in_the_current_set_is_never_offered(tmp_path: Path) -> None:
    mem = PlanMemory(tmp_path / "m.sqlite", starter=False)
    with_rollback = Plan.model_validate(
        {
            "goal": "write hello to greeting.txt",
            "steps": [
                {
                    "id": "s1",
                    "tool": "write_text",
                    "args": {"path": "greeting.txt", "text": "hello"},
                    "compensate": {"tool": "delete_file", "args": {"path": "greeting.txt"}},
                }
            ],
        }
    )
    assert plan_tools(with_rollback) == {"write_text", "delete_file"}
    mem.remember(with_rollback)
    only_write = {"write_text": write_text.spec}
    assert mem.similar("write hello to greeting.txt", tools=only_write, k=5) == []
    both = {**only_write, "delete_file": write_text.spec.model_copy(update={"name": "delete_file"})}
    assert [p.goal for p in mem.similar("write hello to greeting.txt", tools=both, k=5)] == [GOAL]


def test_memory_list_and_forget_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.sqlite"
    mem = PlanMemory(path, starter=False)
    mem.remember(Plan.model_validate(COVERED))
    mem.remember(Plan.model_validate({**UNCOVERED, "goal": "count the words of hello"}))
    mem.remember(Plan.model_validate({**UNCOVERED, "goal": "count the words of bye"}))
    ids = [e.id for e in mem.entries()]

    assert cli_run(["memory", "list", "--memory", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(p["id"], p["goal"], p["tools"]) for p in data["plans"]] == [
        (ids[0], GOAL, ["write_text"]),
        (ids[1], "count the words of hello", ["word_count"]),
        (ids[2], "count the words of bye", ["word_count"]),
    ]
    assert all(isinstance(p["created_at"], float) for p in data["plans"])

    assert cli_run(["memory", "list", "--memory", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and lines[0].startswith(f"{ids[0]}\t") and lines[0].endswith(f"write_text\t{GOAL}")

    assert cli_run(["memory", "forget", "999", "--memory", str(path)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.strip().splitlines() == [
        "forethought: error: no remembered plan with id 999 (see `forethought memory list`)"
    ]
    assert len(mem) == 3

    assert cli_run(["memory", "forget", str(ids[0]), "--memory", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == [f"forgot {ids[0]}\t{GOAL}"]

    assert cli_run(["memory", "forget", "--goal-like", "WORDS OF H", "--memory", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == [f"forgot {ids[1]}\tcount the words of hello"]

    assert cli_run(["memory", "forget", "--all", "--memory", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == [f"forgot {ids[2]}\tcount the words of bye"]
    assert len(mem) == 0 and mem.similar("count words", k=5) == []

    assert cli_run(["memory", "forget", "--memory", str(path)]) == 2  # nothing named


def test_memory_cli_uses_the_environment_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "env.sqlite"
    monkeypatch.setenv("FORETHOUGHT_MEMORY", str(path))
    PlanMemory().remember(Plan.model_validate(COVERED))
    from forethought.interfaces.cli.main import cli

    result = CliRunner().invoke(cli, ["memory", "list"])
    assert result.exit_code == 0 and GOAL in result.output


def test_a_memory_file_from_before_the_tool_key_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite"
    old = {"goal": "count the words in notes.txt", "steps": [{"id": "s1", "tool": "gone_tool", "args": {}}]}
    good = {
        "goal": "count the words of notes",
        "steps": [{"id": "s1", "tool": "word_count", "args": {"text": "x"}}],
    }
    with sqlite3.connect(path) as db:  # the format of the previous version (user_version 2, FTS5)
        db.execute(
            "CREATE TABLE plans (id INTEGER PRIMARY KEY, goal TEXT NOT NULL, plan TEXT "
            "NOT NULL, plan_hash TEXT NOT NULL UNIQUE, created_at REAL NOT NULL)"
        )
        db.execute("CREATE VIRTUAL TABLE plans_fts USING fts5(goal)")
        db.execute(
            "CREATE TRIGGER plans_fts_insert AFTER INSERT ON plans BEGIN "
            "INSERT INTO plans_fts (rowid, goal) VALUES (new.id, new.goal); END"
        )
        db.execute(
            "CREATE TRIGGER plans_fts_delete AFTER DELETE ON plans BEGIN "
            "DELETE FROM plans_fts WHERE rowid = old.id; END"
        )
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        for i, p in enumerate((old, good, {"nope": 1})):
            db.execute(
                "INSERT INTO plans (goal, plan, plan_hash, created_at) VALUES (?, ?, ?, 0)",
                (str(p.get("goal", "count words broken")), json.dumps(p), f"h{i}"),
            )
        db.execute("PRAGMA user_version = 2")
    mem = PlanMemory(path, starter=False)
    specs = {"word_count": word_count.spec}
    assert [p.goal for p in mem.similar("count words", tools=specs, k=5)] == ["count the words of notes"]
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 3
        rows = db.execute("SELECT goal, tools FROM plans ORDER BY id").fetchall()
    assert rows == [
        ("count the words in notes.txt", '{"gone_tool": null}'),
        ("count the words of notes", '{"word_count": null}'),
        ("count words broken", None),  # unreadable: skipped, as before
    ]
    assert [e.tools for e in mem.entries()] == [("gone_tool",), ("word_count",), ()]
    # a row written later by an older forethought (no tools column value) is still filtered
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO plans (goal, plan, plan_hash, created_at) VALUES (?, ?, 'h9', 0)",
            ("count words later", json.dumps({**old, "goal": "count words later"})),
        )
    assert "count words later" not in [p.goal for p in mem.similar("count words", tools=specs, k=5)]


def test_a_plan_too_large_for_any_prompt_is_not_remembered(tmp_path: Path) -> None:
    from forethought.plan.model import Step
    from forethought.planning.memory import MAX_REMEMBERED_STEPS

    mem = PlanMemory(tmp_path / "m.sqlite", starter=False)
    plan = Plan.model_validate(COVERED)
    big = plan.model_copy(
        update={
            "steps": (
                *plan.steps,
                *(
                    Step(id=f"extra{i}", tool=plan.steps[0].tool, args=plan.steps[0].args)
                    for i in range(MAX_REMEMBERED_STEPS)
                ),
            )
        }
    )
    assert mem.remember(big) is False and len(mem) == 0
    assert mem.remember(plan) is True and len(mem) == 1
