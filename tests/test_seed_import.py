"""Seed plans keep their meaning on import (issue 23, item 3).

Each seed's example plan (000, 001, 003; copies in tests/fixtures/seeds/, each naming its
source) imports, validates against tools shaped like the seed's, and then runs as the seed's own
executor would: seed 000 runs its rollback list when a step fails; seed 001's `tool: "none"`
step is a model step that sees the results it references and calls no tool; seed 003 runs its
tasks in order, has the planner evaluate each against its criteria and replans on a miss.
Real tools, a real SQLite store; only the model's decisions are scripted.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from forethought import tool
from forethought.agent import Agent
from forethought.errors import ToolError
from forethought.models.base import ModelRequest
from forethought.models.scripted import ScriptedModel
from forethought.plan.files import PlanFileError, load_validated_plan, parse_text
from forethought.runs.store.sqlite import SqliteStore

FIXTURES = Path(__file__).parent / "fixtures" / "seeds"
SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"
EFFECTS: list[str] = []
FAIL: set[str] = set()  # "tool:arg" calls that fail


@pytest.fixture(autouse=True)
def _reset() -> None:
    EFFECTS.clear()
    FAIL.clear()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    s = SqliteStore(tmp_path / "runs.db")
    yield s
    s.close()


def _effect(name: str, arg: str = "") -> str:
    call = f"{name}:{arg}" if arg else name
    EFFECTS.append(call)
    if call in FAIL:
        raise ToolError(f"{call} failed", retryable=False)
    return f"{call} ok"


# ------------------------------------------------------------------ seed 000's deploy tools


@tool(effect="read_only")
def run_tests() -> str:
    """Run the full test suite."""
    return _effect("run_tests")


@tool(effect="mutating")
def build_docker(tag: str) -> str:
    """Build the Docker image."""
    return _effect("build_docker", tag)


@tool(effect="mutating")
def backup_database() -> str:
    """Back up the production database."""
    return _effect("backup_database")


@tool(effect="mutating")
def deploy_staging(tag: str) -> str:
    """Deploy a tag to staging."""
    return _effect("deploy_staging", tag)


@tool(effect="read_only")
def run_smoke_tests(env: str) -> str:
    """Smoke-test an environment."""
    return _effect("run_smoke_tests", env)


@tool(effect="mutating")
def deploy_production(tag: str) -> str:
    """Deploy a tag to production."""
    return _effect("deploy_production", tag)


@tool(effect="mutating")
def notify_team(message: str) -> str:
    """Send the team a message."""
    return _effect("notify_team", message)


@tool(effect="mutating")
def rollback_production(to: str) -> str:
    """Roll production back."""
    return _effect("rollback_production", to)


DEPLOY_TOOLS = [
    run_tests,
    build_docker,
    backup_database,
    deploy_staging,
    run_smoke_tests,
    deploy_production,
    notify_team,
    rollback_production,
]

# ------------------------------------------------------------------ seed 001's research tools


@tool
def web_search(query: str) -> str:
    """Search the web."""
    EFFECTS.append(f"web_search:{query}")
    return f"[Search result for '{query}': 5 pages]"


@tool
def summarize_text(text: str) -> str:
    """Summarize a text."""
    EFFECTS.append(f"summarize_text:{text}")
    return "SUMMARY: solar and storage lead"


RESEARCH_TOOLS = [web_search, summarize_text]

# ------------------------------------------------------------------ seed 003's executor tools


@tool
def code_search(query: str) -> list[str]:
    """Find source files matching a query."""
    EFFECTS.append(f"code_search:{query}")
    return ["auth/session.py", "auth/views.py"]


def _seed(prefix: str) -> str | None:
    found = sorted(SEEDS.glob(f"{prefix}_*.txt")) if SEEDS.exists() else []
    return found[0].read_text(encoding="utf-8") if found else None


def _json_block(text: str, marker: str) -> str:
    start = text.index("{", text.index(marker))
    depth = 0
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[start : i + 1]
    raise AssertionError("unterminated block")


def finish(answer: Any) -> str:
    return json.dumps({"next": {"action": "finish", "answer": answer}})


def verdict(ok: bool, reason: str = "") -> str:
    return json.dumps({"ok": ok, "reason": reason})


def kinds(store: SqliteStore, run_id: str) -> list[str]:
    return [e.kind for e in store.events(run_id)]


# ============================================================ seed 000: rollback on failure


def test_fixture_000_is_the_seed_block() -> None:
    seed = _seed("000")
    if seed is None:
        pytest.skip("shared seeds not beside the checkout")
    copied = parse_text((FIXTURES / "000_deploy.yaml").read_text(encoding="utf-8"), "yaml", "fixture")
    assert copied == json.loads(_json_block(seed, "Planner output:"))


def test_seed_000_imports_with_rollback_on_failure() -> None:
    agent = Agent(DEPLOY_TOOLS, model=ScriptedModel([]), record=False)
    plan = load_validated_plan(FIXTURES / "000_deploy.yaml", agent.specs).plan
    assert plan.goal == "Deploy v2.3.1 to production safely"
    assert [s.id for s in plan.steps] == [str(i) for i in range(1, 9)]
    assert plan.step("6").depends_on == ("3", "5")
    # The seed's executor runs the rollback list on any failure: the imported plan says so.
    assert {s.on_failure for s in plan.steps} == {"rollback"}
    assert [(s.tool, s.args) for s in plan.rollback] == [
        ("rollback_production", {"to": "previous"}),
        ("notify_team", {"message": "Rollback executed"}),
    ]


def test_an_explicit_on_failure_is_kept(tmp_path: Path) -> None:
    data = {
        "goal": "g",
        "steps": [
            {"id": 1, "action": "run_tests", "params": {}, "on_failure": "continue"},
            {"id": 2, "action": "run_tests", "params": {}},
        ],
        "rollback": [{"action": "notify_team", "params": {"message": "undo"}}],
    }
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    plan = load_validated_plan(path, Agent(DEPLOY_TOOLS, record=False).specs).plan
    assert [s.on_failure for s in plan.steps] == ["continue", "rollback"]


async def test_seed_000_runs_through_without_rollback(store: SqliteStore) -> None:
    agent = Agent(DEPLOY_TOOLS, model=ScriptedModel([]), store=store)
    validated = load_validated_plan(FIXTURES / "000_deploy.yaml", agent.specs)
    result = await agent.run(validated, approve="all")
    assert result.status == "succeeded", result.state.reason
    assert len(EFFECTS) == 8
    assert EFFECTS[-1] == "notify_team:v2.3.1 deployed"
    assert "rollback_production:previous" not in EFFECTS


async def test_seed_000_failed_production_smoke_test_rolls_back(store: SqliteStore) -> None:
    FAIL.add("run_smoke_tests:production")
    agent = Agent(DEPLOY_TOOLS, model=ScriptedModel([]), store=store)
    validated = load_validated_plan(FIXTURES / "000_deploy.yaml", agent.specs)
    result = await agent.run(validated, approve="all")
    assert result.status == "failed"
    # The failure stops the plan (step 8 never notifies success) and the seed's rollback runs.
    assert "notify_team:v2.3.1 deployed" not in EFFECTS
    assert EFFECTS[-3:] == [
        "run_smoke_tests:production",
        "rollback_production:previous",
        "notify_team:Rollback executed",
    ]
    assert result.state.steps["8"].status == "skipped"
    assert {result.state.steps[s].status for s in ("rollback_1", "rollback_2")} == {"succeeded"}
    recorded = [(e.kind, getattr(e, "step_id", None)) for e in store.events(result.run_id)]
    assert recorded.index(("step_failed", "7")) < recorded.index(("step_started", "rollback_1"))


# ============================================================ seed 001: the tool-less step


def test_seed_001_imports_tool_less_step_as_model_step_with_inputs() -> None:
    agent = Agent(RESEARCH_TOOLS, model=ScriptedModel([]), record=False)
    plan = load_validated_plan(FIXTURES / "001_research.yaml", agent.specs).plan
    assert plan.step("1").args == {"query": "latest trends in renewable energy"}
    assert plan.step("2").args == {"text": "${1}"}
    note = plan.step("3")
    assert note.tool is None
    assert note.agent == "Outline the brief report from the summary"
    # The input survives (with its reference rewritten) and the step may call no tool.
    assert note.args == {"input": "Outline a brief report from: ${2}", "tools": []}
    assert note.all_dependencies() == ("2",)


async def test_seed_001_tool_less_step_sees_the_referenced_result(store: SqliteStore) -> None:
    seen: list[ModelRequest] = []

    def note(request: ModelRequest) -> str:
        seen.append(request)
        return finish("outline: 1. solar 2. storage")

    model = ScriptedModel([note])
    agent = Agent(RESEARCH_TOOLS, model=model, store=store)
    validated = load_validated_plan(FIXTURES / "001_research.yaml", agent.specs)
    result = await agent.run(validated, approve="all")
    model.assert_all_used()
    assert result.status == "succeeded", result.state.reason
    assert EFFECTS == [
        "web_search:latest trends in renewable energy",
        "summarize_text:[Search result for 'latest trends in renewable energy': 5 pages]",
    ]
    prompt = "\n".join(m.content for m in seen[0].messages)
    assert "Outline a brief report from: SUMMARY: solar and storage lead" in prompt
    # No tool is offered: the only action the model may take is to finish.
    assert "(no tools" in seen[0].messages[0].content
    assert "anyOf" not in json.dumps(seen[0].json_schema)
    assert result.state.steps["3"].output == "outline: 1. solar 2. storage"


async def test_seed_001_tool_less_step_cannot_call_a_tool(store: SqliteStore) -> None:
    call = json.dumps({"next": {"action": "call", "tool": "web_search", "args": {"query": "x"}}})
    model = ScriptedModel([call, finish("noted")])
    agent = Agent(RESEARCH_TOOLS, model=model, store=store)
    validated = load_validated_plan(FIXTURES / "001_research.yaml", agent.specs)
    result = await agent.run(validated, approve="all")
    model.assert_all_used()
    assert result.status == "succeeded"
    assert "web_search:x" not in EFFECTS  # refused, recorded, and the step still finished
    refused = [e for e in store.events(result.run_id) if e.kind == "tool_called" and e.step_id == "3"]
    assert refused and "refused" in (refused[0].error or "")


# ============================================================ seed 003: tasks in order, evaluated


def test_fixture_003_tasks_are_the_seeds() -> None:
    seed = _seed("003")
    if seed is None:
        pytest.skip("shared seeds not beside the checkout")
    start = seed.index("PLANNER creates plan:")
    tasks = [line.split(":", 1)[1].strip() for line in seed[start:].splitlines()[1:8]]
    data = parse_text((FIXTURES / "003_refactor.yaml").read_text(encoding="utf-8"), "yaml", "fixture")
    assert [t["description"] for t in data["tasks"]] == tasks


def test_seed_003_imports_as_a_chain_of_evaluated_model_steps() -> None:
    agent = Agent([code_search], model=ScriptedModel([]), record=False)
    plan = load_validated_plan(FIXTURES / "003_refactor.yaml", agent.specs).plan
    assert [s.id for s in plan.steps] == [f"s{i}" for i in range(1, 8)]
    assert [s.depends_on for s in plan.steps] == [(), *[(f"s{i}",) for i in range(1, 7)]]
    assert all(s.agent and s.tool is None for s in plan.steps)
    assert plan.step("s1").check is not None
    assert plan.step("s1").check.critic == "names the auth module's files and how it authenticates today"
    assert {s.on_failure for s in plan.steps} == {"replan"}
    # The seed's executor has tools: the task's model may use the read-only ones.
    assert all("tools" not in s.args for s in plan.steps)


async def test_seed_003_runs_tasks_in_order_and_replans_on_a_miss(store: SqliteStore) -> None:
    asked: list[str] = []

    def execute(answer: str) -> Any:
        def reply(request: ModelRequest) -> str:
            asked.append(request.messages[1].content.splitlines()[0])
            return finish(answer)

        return reply

    search = json.dumps({"next": {"action": "call", "tool": "code_search", "args": {"query": "auth"}}})
    replies: list[Any] = [search, execute("session auth in auth/session.py"), verdict(True)]
    for n in range(2, 8):
        replies += [execute(f"task {n} done"), verdict(n != 7, "3 endpoints return 401")]
    # The miss on task 7 goes back to the planner, which adds the seed's "Task 5b" fix.
    fix = {"id": "s8", "agent": "Fix token header format for 3 failing endpoints", "depends_on": ["s6"]}
    replies += [json.dumps({"steps": [fix]}), execute("fixed")]
    model = ScriptedModel(replies)
    agent = Agent([code_search], model=model, store=store)
    validated = load_validated_plan(FIXTURES / "003_refactor.yaml", agent.specs)
    result = await agent.run(validated, approve="all", force=True)
    model.assert_all_used()
    assert result.status == "succeeded", result.state.reason
    assert EFFECTS == ["code_search:auth"]
    assert asked == [
        "Step: Analyze current auth module structure",
        "Step: Identify all auth-related endpoints",
        "Step: Design JWT token schema",
        "Step: Implement JWT generation and validation",
        "Step: Update endpoints to use JWT",
        "Step: Update tests",
        "Step: Run test suite",
        "Step: Fix token header format for 3 failing endpoints",
    ]
    events = [(e.kind, getattr(e, "step_id", None)) for e in store.events(result.run_id)]
    assert [k for k, _ in events].count("plan_revised") == 1
    # The planner's evaluation of task 7 failed it (the seed's "Tests fail") and asked for a replan.
    assert events.index(("check_failed", "s7")) < events.index(("replan_requested", "s7"))
    assert result.state.steps["s8"].status == "succeeded"


def test_a_bad_task_is_reported_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "tasks.yaml"
    path.write_text(
        "goal: g\ntasks:\n  - description: fine\n  - description: also fine\n    executor: 7\n",
        encoding="utf-8",
    )
    with pytest.raises(PlanFileError) as caught:
        load_validated_plan(path, {})
    assert str(caught.value).startswith(f"{path}:5:")
    assert "executor" in str(caught.value)


def test_a_tool_less_step_with_arguments_that_are_no_mapping_is_reported_not_raised() -> None:
    from forethought.plan.files import check_data

    plan, problems = check_data({"goal": "g", "steps": [{"tool": None, "args": True}]}, {})
    assert plan is None and problems
    assert any("args" in str(p) for p in problems), problems
