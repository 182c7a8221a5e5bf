"""Deterministic replay: every recorded run of a corpus replays to the very same events.

The corpus is built here, each run recorded to a real SQLite store with scripted models: critic
checks (a rejection, then a pass), budget pauses and aborts (steps, tokens, wall clock), agent
steps, a streamed plan, failing steps with retries, a replan and a rollback. Each is replayed
(no tool or model is called) and its execution events must equal the recorded ones — kinds and
payloads, in order, time stamps and durations aside. A property test does the same for random
small DAGs with failures injected through the tools.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forethought import Plan, RetryPolicy, Step, ToolCall, ToolContext, tool
from forethought.agent import Agent
from forethought.errors import ToolError, UserError
from forethought.events.kinds import Event, ModelCalled, ToolCalled
from forethought.execution.executor import ApproveAll
from forethought.execution.options import ExecutorOptions
from forethought.interfaces.cli import main as cli_main
from forethought.models.base import ModelRequest, ModelResponse, StreamChunk, Usage
from forethought.models.scripted import ScriptedModel
from forethought.oversight.supervisor import Budgets
from forethought.plan.model import Check
from forethought.runs.recording import execute_recorded
from forethought.runs.replay import ReplayResult, replay_run
from forethought.runs.replay_events import canonical, execution_events, normalized
from forethought.runs.store.sqlite import SqliteStore

CALLS: Counter[str] = Counter()
NO_WAIT = {"attempts": 3, "backoff_s": 0, "jitter": 0}


@tool
def read_config(name: str) -> dict[str, str]:
    """Read a configuration value."""
    CALLS["read_config"] += 1
    return {"value": f"<{name}>"}


@tool
async def fetch(name: str) -> dict[str, str]:
    """Fetch a value (suspends once, like a network call)."""
    CALLS["fetch"] += 1
    await asyncio.sleep(0)
    return {"value": name.upper()}


@tool(effect="mutating")
def save(text: str) -> str:
    """Save a text."""
    CALLS["save"] += 1
    return f"saved {text}"


@tool
def flaky(name: str, fails: int, ctx: ToolContext) -> str:
    """Fails its first ``fails`` attempts."""
    CALLS["flaky"] += 1
    if ctx.attempt <= fails:
        raise ToolError(f"503 busy (attempt {ctx.attempt})")
    return f"ok {name}"


@tool
def broken(name: str) -> str:
    """Always fails, for good."""
    CALLS["broken"] += 1
    raise ToolError(f"404 {name} not found", retryable=False)


@tool(effect="mutating")
def write(value: str) -> dict[str, str]:
    """Write a value."""
    CALLS["write"] += 1
    return {"written": value}


@tool(effect="mutating")
def undo(value: str) -> str:
    """Undo a write."""
    CALLS["undo"] += 1
    return f"undid {value}"


@tool
async def hang(seconds: float) -> str:
    """Never finishes in time."""
    CALLS["hang"] += 1
    await asyncio.sleep(seconds)
    return "impossible"


TOOLS = [read_config, fetch, save, flaky, broken, write, undo, hang]
TOOL_MAP = {t.spec.name: t for t in TOOLS}


@pytest.fixture(autouse=True)
def _reset() -> None:
    CALLS.clear()


@pytest.fixture
def store(tmp_path: Path) -> Any:
    s = SqliteStore(tmp_path / "runs.db")
    yield s
    s.close()


def plan_json(*steps: dict[str, Any]) -> str:
    return json.dumps({"steps": list(steps)})


def _replay_events(store: SqliteStore, result: ReplayResult, streamed: bool) -> list[Event]:
    # The replaying executor creates its run: run_created, then (a given plan) plan_proposed.
    events = [e for e in store.events(result.run_id) if e.kind != "step_process"]
    return events[1 if streamed else 2 :]


async def assert_replays(store: SqliteStore, run_id: str, **kw: Any) -> ReplayResult:
    """Replay ``run_id``: no real call, and the same execution events as recorded."""
    recorded_calls = sum(CALLS.values())
    result = await replay_run(store, run_id, **kw)
    assert sum(CALLS.values()) == recorded_calls, "the replay called a real tool"
    assert result.same, result.differences
    original = store.events(run_id)
    recorded = execution_events(original)
    streamed = any(e.kind == "steps_added" for e in original) and not any(
        e.kind == "plan_proposed" for e in original[: [e.kind for e in original].index("steps_added")]
    )
    replayed = _replay_events(store, result, streamed)
    # Checked here on the stored events, independently of the replay's own comparison.
    # (How concurrent steps' events interleave is scheduling: see canonical.)
    assert [normalized(e, run_id) for e in canonical(recorded)] == [
        normalized(e, result.run_id) for e in canonical(replayed)
    ]
    assert result.events_compared == len(recorded) > 0
    assert result.state.status == result.original.status
    return result


# ------------------------------------------------------------------------------ the corpus


async def test_critic_verdicts_replay(store: SqliteStore) -> None:
    step = {
        "id": "s1",
        "tool": "read_config",
        "args": {"name": "db"},
        "check": {"expr": "len(output.value) > 0", "critic": "the value must name a host"},
        "retry": {**NO_WAIT, "retry_on": ["check"]},
    }
    after = {"id": "s2", "tool": "read_config", "args": {"name": "${s1.value}"}}
    planner = ScriptedModel([plan_json(step, after)])
    critic = ScriptedModel(
        [json.dumps({"ok": False, "reason": "no host in it"}), json.dumps({"ok": True, "reason": "fine"})]
    )
    agent = Agent(TOOLS, planner_model=planner, critic_model=critic, store=store)
    result = await agent.run("read the db setting", approve="all", force=True)
    assert result.status == "succeeded"
    replay = await assert_replays(store, result.run_id)
    kinds = [e.kind for e in store.events(replay.run_id)]
    assert kinds.count("check_failed") == 1 and kinds.count("model_called") == 2  # two critic calls
    assert replay.state.steps["s1"].attempts == 2


async def test_critic_rejection_for_good_replays(store: SqliteStore) -> None:
    step = {"id": "s1", "tool": "read_config", "args": {"name": "db"}, "check": {"critic": "a host"}}
    planner = ScriptedModel([plan_json(step)])
    critic = ScriptedModel(["not json at all"])
    agent = Agent(TOOLS, planner_model=planner, critic_model=critic, store=store)
    result = await agent.run("read the db setting", approve="all", force=True)
    assert result.status == "failed"
    await assert_replays(store, result.run_id)


async def test_budget_pause_replays_paused_at_the_same_point(store: SqliteStore) -> None:
    steps = [{"id": f"s{i}", "tool": "read_config", "args": {"name": f"n{i}"}} for i in range(4)]
    for i in range(1, 4):
        steps[i]["depends_on"] = [f"s{i - 1}"]
    agent = Agent(TOOLS, model=ScriptedModel([plan_json(*steps)]), store=store, budgets=Budgets(max_steps=2))
    result = await agent.run("read four settings", approve="all", force=True)
    assert result.status == "paused" and "max_steps" in result.state.reason
    replay = await assert_replays(store, result.run_id)
    assert replay.state.status == "paused"
    assert replay.state.reason == result.state.reason


async def test_token_budget_abort_in_an_agent_step_replays(store: SqliteStore) -> None:
    burn = ModelResponse(
        text=json.dumps({"next": {"action": "call", "tool": "read_config", "args": {"name": "x"}}}),
        usage=Usage(input_tokens=4000, output_tokens=1000),
        model="scripted",
    )
    agent = Agent(
        TOOLS,
        planner_model=ScriptedModel([plan_json({"id": "think", "agent": "analyse the config"})]),
        executor_model=ScriptedModel([burn] * 3),
        store=store,
        budgets=Budgets(max_tokens=8000, on_breach="abort"),
    )
    result = await agent.run("analyse", approve="all", force=True)
    assert result.status == "failed" and "max_tokens" in result.state.reason
    await assert_replays(store, result.run_id, tools=TOOL_MAP)


async def test_wall_clock_pause_replays_without_waiting(store: SqliteStore) -> None:
    model = ScriptedModel([plan_json({"id": "s1", "tool": "hang", "args": {"seconds": 3600}})])
    agent = Agent(TOOLS, model=model, store=store, budgets=Budgets(max_wall_s=0.3))
    result = await asyncio.wait_for(agent.run("wait an hour", approve="all", force=True), 30)
    assert result.status == "paused" and "max_wall_s" in result.state.reason
    replay = await asyncio.wait_for(assert_replays(store, result.run_id), 30)
    assert replay.state.steps["s1"].status == result.state.steps["s1"].status


async def test_agent_steps_replay_their_turns(store: SqliteStore) -> None:
    turns = [
        json.dumps({"next": {"action": "call", "tool": "read_config", "args": {"name": "db"}}}),
        "I think I am done",  # not an action: the loop asks again
        json.dumps({"next": {"action": "call", "tool": "save", "args": {"text": "x"}}}),  # refused
        json.dumps({"next": {"action": "finish", "answer": {"db": "<db>"}}}),
    ]
    planner = ScriptedModel(
        [
            plan_json(
                {"id": "look", "tool": "read_config", "args": {"name": "host"}},
                {"id": "think", "agent": "summarize the config", "args": {"host": "${look.value}"}},
            )
        ]
    )
    agent = Agent(TOOLS, planner_model=planner, executor_model=ScriptedModel(turns), store=store)
    result = await agent.run("analyse the config", approve="all", force=True)
    assert result.status == "succeeded", result.state.reason
    # With the tools' specs the loop runs again on the recorded turns; without, its transcript
    # is recorded again.
    with_loop = await assert_replays(store, result.run_id, tools=TOOL_MAP)
    assert with_loop.state.outputs["think"] == {"db": "<db>"}
    await assert_replays(store, result.run_id)


class _Stream:
    """A planner that streams its plan in small chunks, yielding to the loop between them."""

    name = "streaming"

    def __init__(self, text: str) -> None:
        self.text = text

    async def complete(self, request: ModelRequest) -> ModelResponse:
        raise AssertionError("the streaming path must stream")

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamChunk]:
        for i in range(0, len(self.text), 9):
            await asyncio.sleep(0)
            yield StreamChunk(delta=self.text[i : i + 9])
        yield StreamChunk(done=True, usage=Usage(input_tokens=10, output_tokens=20), finish_reason="stop")


async def test_streamed_plan_replays(store: SqliteStore) -> None:
    plan = plan_json(
        {"id": "s1", "tool": "fetch", "args": {"name": "a"}},
        {"id": "s2", "tool": "fetch", "args": {"name": "b"}},
        {"id": "s3", "tool": "flaky", "args": {"name": "c", "fails": 1}, "retry": NO_WAIT},
        {"id": "s4", "tool": "save", "args": {"text": "${s1.value}${s2.value}${s3}"}},
    )
    agent = Agent(TOOLS, model=_Stream(plan), store=store)
    result = await agent.run("fetch a and b, then save them", approve="all", stream=True, force=True)
    assert result.status == "succeeded", result.state.reason
    kinds = [e.kind for e in store.events(result.run_id)]
    assert "steps_added" in kinds and "plan_approved" in kinds
    await assert_replays(store, result.run_id)
    await assert_replays(store, result.run_id, tools=TOOL_MAP)


async def _record(store: SqliteStore, plan: Plan, run_id: str, **kw: Any) -> None:
    await execute_recorded(store, plan, TOOL_MAP, ExecutorOptions(gate=ApproveAll(), **kw), run_id=run_id)


async def test_retries_replan_and_rollback_replay(store: SqliteStore) -> None:
    retrying = Plan(
        goal="retry",
        steps=(
            Step(id="a", tool="flaky", args={"name": "a", "fails": 2}, retry=RetryPolicy(**NO_WAIT)),
            Step(id="b", tool="fetch", args={"name": "b"}),
            Step(id="c", tool="broken", args={"name": "c"}, retry=RetryPolicy(**NO_WAIT)),
            Step(id="d", tool="write", args={"value": "${a}"}),
        ),
    )
    await _record(store, retrying, "retrying")
    await assert_replays(store, "retrying")

    replanned = Plan(
        goal="fix", steps=(Step(id="x", tool="broken", args={"name": "x"}, on_failure="replan"),)
    )
    revised = Plan(goal="fix", version=2, steps=(Step(id="y", tool="write", args={"value": "7"}),))

    async def replanner(p: Plan, state: Any, info: Any) -> Plan | None:
        return revised

    await _record(store, replanned, "replanned", replanner=replanner)
    await assert_replays(store, "replanned")

    rollback = Plan(
        goal="undo",
        steps=(
            Step(
                id="w1",
                tool="write",
                args={"value": "1"},
                compensate=ToolCall(tool="undo", args={"value": "1"}),
            ),
            Step(id="f", tool="fetch", args={"name": "f"}),
            Step(id="boom", tool="broken", args={"name": "z"}, depends_on=("w1", "f"), on_failure="rollback"),
        ),
    )
    await _record(store, rollback, "rolled")
    result = await assert_replays(store, "rolled")
    assert result.state.compensations == {"w1": "succeeded"}


async def test_a_changed_record_is_reported_as_diverged(store: SqliteStore) -> None:
    plan = Plan(
        goal="x",
        steps=(
            Step(id="a", tool="read_config", args={"name": "a"}),
            Step(id="b", tool="read_config", args={"name": "${a.value}"}),
        ),
    )
    await _record(store, plan, "orig")
    # Another execution recorded b with other arguments: same final state, other events.
    copied = []
    for e in store.events("orig"):
        if e.kind == "step_started" and e.step_id == "b":  # type: ignore[union-attr]
            e = e.model_copy(update={"args": {"name": "elsewhere"}})
        copied.append(e.model_copy(update={"run_id": "edited"}))
    store.append_many(copied)
    result = await replay_run(store, "edited", record=False)
    assert not result.same
    assert any("step_started(b)" in d and "args" in d for d in result.differences), result.differences


def test_cli_replays_a_budget_pause_and_reports_a_divergence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "runs.db"
    store = SqliteStore(db)
    steps = [{"id": f"s{i}", "tool": "read_config", "args": {"name": f"n{i}"}} for i in range(3)]
    for i in (1, 2):
        steps[i]["depends_on"] = [f"s{i - 1}"]
    agent = Agent(TOOLS, model=ScriptedModel([plan_json(*steps)]), store=store, budgets=Budgets(max_steps=2))
    paused = asyncio.run(agent.run("read three settings", approve="all", force=True))
    assert paused.status == "paused"
    # A record whose step s2 ran with other arguments than its plan gives: it must not replay as
    # the same, though its final state would.
    edited = []
    for e in store.events(paused.run_id):
        change: dict[str, Any] = {"run_id": "edited"}
        if e.kind == "step_started":
            change["idempotency_key"] = "edited:" + e.step_id  # type: ignore[union-attr]
            if e.step_id == "s2":  # type: ignore[union-attr]
                change["args"] = {"name": "elsewhere"}
        edited.append(e.model_copy(update=change))
    store.append_many(edited)
    store.close()

    capsys.readouterr()
    code = cli_main.run(["replay", paused.run_id, "--db", str(db), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    assert data["same_events"] is True and data["same_final_state"] is True
    assert data["status"] == "paused" and data["events_compared"] > 0 and data["real_calls"] == 0

    code = cli_main.run(["replay", "edited", "--db", str(db)])
    out, err = capsys.readouterr()
    assert code == 1, err
    assert "DIVERGED" in out and "output differs" not in out
    assert "recorded step_started(s2), replayed step_started(s2) (differs in args)" in out


async def test_a_run_that_never_executed_is_refused(store: SqliteStore) -> None:
    agent = Agent(
        TOOLS,
        model=ScriptedModel([plan_json({"id": "w", "tool": "write", "args": {"value": "1"}})]),
        store=store,
    )
    result = await agent.run("write one", force=True)  # approve="none": stops for approval
    assert result.status == "awaiting_approval"
    with pytest.raises(UserError, match="before executing anything"):
        await replay_run(store, result.run_id)


# ------------------------------------------------------------------------------ property


@st.composite
def dags(draw: st.DrawFn) -> Plan:
    """Small random DAGs: side effects with compensations, suspending calls, failures injected
    through the tools (``fails`` attempts, or for good), critic checks that reject the first
    ``reject`` attempts, agent steps that fail their first ``fails`` attempts; any failure
    policy, any retry count."""
    n = draw(st.integers(2, 6))
    steps = []
    for i in range(n):
        earlier = [f"s{j}" for j in range(i)]
        deps = tuple(sorted(draw(st.sets(st.sampled_from(earlier), max_size=2)))) if i else ()
        kind = draw(st.sampled_from(["sync", "async", "flaky", "broken", "critic", "agent"]))
        retry = RetryPolicy(
            attempts=draw(st.integers(1, 3)), backoff_s=0, jitter=0, retry_on=("error", "timeout", "check")
        )
        policy = draw(st.sampled_from(["abort", "continue", "rollback"]))
        common: dict[str, Any] = {"id": f"s{i}", "depends_on": deps, "retry": retry, "on_failure": policy}
        fails = draw(st.integers(0, 3))
        if kind == "sync":
            undo_it = ToolCall(tool="undo", args={"value": f"v{i}"})
            step = Step(tool="write", args={"value": f"v{i}"}, compensate=undo_it, **common)
        elif kind == "async":
            step = Step(tool="fetch", args={"name": f"n{i}"}, **common)
        elif kind == "flaky":
            step = Step(tool="flaky", args={"name": f"n{i}", "fails": fails}, **common)
        elif kind == "broken":
            step = Step(tool="broken", args={"name": f"n{i}"}, **common)
        elif kind == "critic":
            check = Check(expr="len(output.value) > 0", critic=f"reject {fails}")
            step = Step(tool="fetch", args={"name": f"n{i}"}, check=check, **common)
        else:
            step = Step(agent=f"think about {i}", args={"fails": fails}, **common)
        steps.append(step)
    return Plan(goal="random", steps=tuple(steps))


def _collaborators() -> tuple[dict[str, Any], Any]:
    """A critic and an agent-step runner that record model calls as the real ones do (and the
    hook that binds the critic to the executor's record)."""
    seen: Counter[str] = Counter()
    bound: list[Any] = []

    async def critic(step: Step, output: Any, rubric: str) -> tuple[bool, str]:
        seen[step.id] += 1
        ok = seen[step.id] > int(rubric.split()[-1])
        verdict = {"ok": ok, "reason": "fine" if ok else f"rejected attempt {seen[step.id]}"}
        response = {"text": json.dumps(verdict), "model": "scripted"}
        bound[0](ModelCalled, role="critic", model="scripted", step_id=step.id, response=response)
        return ok, verdict["reason"]

    async def agent_runner(step: Step, ctx: ToolContext) -> Any:
        record = ctx.extra["record"]
        response = {"text": json.dumps({"attempt": ctx.attempt}), "model": "scripted"}
        record(ModelCalled, role="executor", model="scripted", step_id=step.id, response=response)
        await asyncio.sleep(0)
        record(ToolCalled, step_id=step.id, tool="read_config", args={"name": step.id}, output={"v": 1})
        if ctx.attempt <= step.args["fails"]:
            raise ToolError(f"agent gave up (attempt {ctx.attempt})")
        return {"answer": step.id}

    return {"critic": critic, "agent_runner": agent_runner}, lambda ex: bound.append(ex.record)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=dags())
def test_random_dags_replay_to_the_same_events(plan: Plan) -> None:
    async def check() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            store = SqliteStore(Path(tmp) / "runs.db")
            try:
                options, bind = _collaborators()
                await execute_recorded(
                    store,
                    plan,
                    TOOL_MAP,
                    ExecutorOptions(gate=ApproveAll(), **options),
                    run_id="orig",
                    on_executor=bind,
                )
                await assert_replays(store, "orig")
            finally:
                store.close()

    asyncio.run(check())


@tool(effect="mutating")
def deploy(target: str) -> str:
    """Deploy, which fails (for good) the first time."""
    CALLS["deploy"] += 1
    if CALLS["deploy"] == 1:
        raise ToolError("deploy target busy", retryable=False)
    return "deployed"


async def test_agent_replans_replay_with_their_planner_calls_and_approvals(store: SqliteStore) -> None:
    read = {"id": "s1", "tool": "read_config", "args": {"name": "db"}}
    first = {
        "id": "s2",
        "tool": "deploy",
        "args": {"target": "prod"},
        "depends_on": ["s1"],
        "on_failure": "replan",
    }
    then = plan_json(read, {"id": "s3", "tool": "write", "args": {"value": "canary"}, "depends_on": ["s1"]})

    async def reviewer(review: Any) -> Any:
        from forethought.agent import Decision

        return Decision("approve")

    # Approved by a person: the replanned write was not, so the run waits for approval.
    agent = Agent([*TOOLS, deploy], model=ScriptedModel([plan_json(read, first), then]), store=store)
    waiting = await agent.run("deploy the db setting to prod", reviewer=reviewer, force=True)
    assert waiting.status == "awaiting_approval"
    await assert_replays(store, waiting.run_id)
    # With --yes-all the replan is approved and recorded during the run.
    CALLS.clear()
    agent = Agent([*TOOLS, deploy], model=ScriptedModel([plan_json(read, first), then]), store=store)
    auto = await agent.run("deploy the db setting to prod", approve="all", force=True)
    assert auto.status == "succeeded"
    kinds = [e.kind for e in store.events(auto.run_id)]
    assert kinds.count("plan_approved") == 2 and kinds.count("plan_revised") == 1
    await assert_replays(store, auto.run_id)


async def test_a_run_that_queued_steps_replays_with_the_same_queue(store: SqliteStore) -> None:
    steps = [{"id": f"s{i}", "tool": "fetch", "args": {"name": f"n{i}"}} for i in range(5)]
    agent = Agent(TOOLS, model=ScriptedModel([plan_json(*steps)]), store=store, max_concurrency=2)
    result = await agent.run("fetch five names", approve="all", force=True)
    assert result.status == "succeeded"
    assert "step_ready" in [e.kind for e in store.events(result.run_id)]  # steps waited for a slot
    await assert_replays(store, result.run_id)
