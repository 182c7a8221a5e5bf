"""Phases planned while a run goes on (issue 23 item 1): the planner model plans a phase when it
becomes ready, its sub-plan is validated, spliced in as the next plan version, approved by the
same gate as any version, counted in the budgets, resumable after kill -9 and replayable."""

from __future__ import annotations

import asyncio
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from forethought import tool
from forethought.agent import Agent
from forethought.events import kinds as E
from forethought.models.base import ModelRequest, ModelResponse, Usage
from forethought.models.scripted import ScriptedModel
from forethought.oversight.supervisor import Budgets
from forethought.plan.model import Plan
from forethought.plan.phases import collapse_phases, recorded_sub_plan, splice_phase
from forethought.runs.replay import replay_run
from forethought.runs.store.sqlite import SqliteStore

ROOT = Path(__file__).resolve().parent.parent
EFFECTS: list[str] = []


@pytest.fixture(autouse=True)
def _clean() -> None:
    EFFECTS.clear()


@tool
def search(topic: str) -> dict[str, str]:
    """Find facts on a topic."""
    EFFECTS.append(f"search {topic}")
    return {"facts": f"{topic} fill twice a day"}


@tool
def draft(facts: str) -> dict[str, str]:
    """Draft a note from facts."""
    EFFECTS.append("draft")
    return {"text": f"NOTE: {facts}"}


@tool(effect="mutating")
def publish(text: str) -> str:
    """Publish a note."""
    EFFECTS.append(f"publish {text}")
    return "published"


@tool(effect="destructive")
def wipe(target: str) -> str:
    """Delete everything at a target."""
    EFFECTS.append(f"wipe {target}")
    return "wiped"


TOOLS = [search, draft, publish, wipe]


def top_plan(**publish_phase: Any) -> Plan:
    return Plan.model_validate(
        {
            "goal": "research tide pools, write a note, publish it",
            "steps": [
                {"id": "research", "phase": {"goal": "collect facts on tide pools", "tools": ["search"]}},
                {"id": "write", "tool": "draft", "args": {"facts": "${research.facts}"}},
                {
                    "id": "publish",
                    "depends_on": ["write"],
                    "phase": {"goal": "publish the note", "tools": ["publish", "wipe"], "max_steps": 2}
                    | publish_phase,
                },
            ],
        }
    )


def answer(*steps: dict[str, Any], **extra: Any) -> str:
    return json.dumps({"steps": list(steps), **extra})


RESEARCH = answer({"id": "s1", "tool": "search", "args": {"topic": "tide pools"}})
PUBLISH = answer({"id": "s1", "tool": "publish", "args": {"text": "the note"}})


@pytest.fixture
def store(tmp_path: Path) -> SqliteStore:
    return SqliteStore(tmp_path / "runs.db")


def kinds(store: SqliteStore, run_id: str) -> list[str]:
    return [e.kind for e in store.events(run_id)]


# ------------------------------------------------------------------------------ planning at run time


async def test_phases_are_planned_when_ready_with_earlier_results_in_view(store: SqliteStore) -> None:
    prompts: list[str] = []

    def publish_plan(request: ModelRequest) -> str:
        prompts.append(request.messages[-1].content)
        return answer({"id": "s1", "tool": "publish", "args": {"text": "the note"}})

    model = ScriptedModel([RESEARCH, publish_plan])
    result = await Agent(TOOLS, model=model, store=store).run(top_plan(), approve="all")
    model.assert_all_used()
    assert result.status == "succeeded", result.state.reason
    assert EFFECTS == ["search tide pools", "draft", "publish the note"]
    # The write step read the research phase's output (its sub-plan's final step).
    assert result.state.outputs["write"] == {"text": "NOTE: tide pools fill twice a day"}
    # The publish phase was planned with what ran before it in view: write's output first.
    assert "write: " in prompts[0] and "NOTE: tide pools fill twice a day" in prompts[0]
    events = store.events(result.run_id)
    revised = [e for e in events if isinstance(e, E.PlanRevised)]
    assert [(e.phase, e.old_version, e.new_version) for e in revised] == [
        ("research", 1, 2),
        ("publish", 2, 3),
    ]
    assert "phase 'research' planned" in revised[0].reason
    # Each phase planner call is recorded before its version; no replan was counted.
    planner_calls = [e for e in events if isinstance(e, E.ModelCalled) and e.role == "planner"]
    assert len(planner_calls) == 2 and planner_calls[0].seq < revised[0].seq
    assert result.state.replans == 0
    final = Plan.model_validate(revised[-1].plan)
    assert [s.id for s in final.steps] == ["research__s1", "write", "publish__s1"]
    assert [s.id for s in collapse_phases(final).steps] == ["research", "write", "publish"]


async def test_other_branches_run_while_a_phase_is_planned(store: SqliteStore) -> None:
    other_started = asyncio.Event()
    phase_ran = asyncio.Event()

    class WaitsForTheOtherBranch(ScriptedModel):
        """Answers (as scripted) only once the independent branch has started."""

        async def complete(self, request: ModelRequest) -> ModelResponse:
            await other_started.wait()
            return await super().complete(request)

    @tool
    async def meanwhile(x: str) -> str:
        """An independent branch: finishes only after the phase's sub-step ran."""
        other_started.set()
        await phase_ran.wait()
        return x

    @tool
    def look(topic: str) -> str:
        """Look something up."""
        phase_ran.set()
        return topic

    plan = Plan.model_validate(
        {
            "goal": "two branches",
            "steps": [
                {"id": "ph", "phase": {"goal": "look up tide pools", "tools": ["look"]}},
                {"id": "other", "tool": "meanwhile", "args": {"x": "y"}},
            ],
        }
    )
    model = WaitsForTheOtherBranch([answer({"id": "s1", "tool": "look", "args": {"topic": "tides"}})])
    async with asyncio.timeout(60):  # a safety net against a deadlock, not a measurement
        result = await Agent([meanwhile, look], model=model, store=store).run(plan, approve="all")
    assert result.status == "succeeded", result.state.reason
    assert result.state.outputs["ph__s1"] == "tides" and result.state.outputs["other"] == "y"


async def test_two_phases_planned_at_the_same_time_are_both_spliced_in(store: SqliteStore) -> None:
    both_asking = asyncio.Event()
    asking = 0

    class AnswersOnceBothAsk(ScriptedModel):
        """Answers only when both phases are waiting for their sub-plans at once."""

        async def complete(self, request: ModelRequest) -> ModelResponse:
            nonlocal asking
            asking += 1
            if asking == 2:
                both_asking.set()
            await both_asking.wait()
            return await super().complete(request)

    def by_goal(request: ModelRequest) -> str:
        topic = "left" if "the left" in request.messages[-1].content else "right"
        return answer({"id": "s1", "tool": "search", "args": {"topic": topic}})

    plan = Plan.model_validate(
        {
            "goal": "g",
            "steps": [
                {"id": "l", "phase": {"goal": "look at the left", "tools": ["search"]}},
                {"id": "r", "phase": {"goal": "look at the right", "tools": ["search"]}},
                {"id": "both", "tool": "draft", "args": {"facts": "${l.facts} ${r.facts}"}},
            ],
        }
    )
    async with asyncio.timeout(60):  # a safety net against a deadlock, not a measurement
        result = await Agent(TOOLS, model=AnswersOnceBothAsk([by_goal, by_goal]), store=store).run(
            plan, approve="all"
        )
    assert result.status == "succeeded", result.state.reason
    assert result.state.outputs["both"] == {"text": "NOTE: left fill twice a day right fill twice a day"}
    revised = [e for e in store.events(result.run_id) if isinstance(e, E.PlanRevised)]
    assert sorted(e.phase or "" for e in revised) == ["l", "r"]
    assert [(e.old_version, e.new_version) for e in revised] == [(1, 2), (2, 3)]
    assert {s.id for s in Plan.model_validate(revised[-1].plan).steps} == {"l__s1", "r__s1", "both"}


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (answer({"id": "s1", "tool": "draft", "args": {"facts": "x"}}), "unknown tool 'draft'"),
        (
            answer(*({"id": f"s{i}", "tool": "search", "args": {"topic": f"t{i}"}} for i in range(1, 7))),
            "more than its max_steps",
        ),
    ],
)
async def test_an_unusable_sub_plan_fails_the_phase_in_one_line(
    store: SqliteStore, reply: str, why: str
) -> None:
    plan = Plan.model_validate(
        {
            "goal": "g",
            "steps": [
                {"id": "research", "phase": {"goal": "collect facts", "tools": ["search"], "max_steps": 3}},
                {"id": "write", "tool": "draft", "args": {"facts": "${research.facts}"}},
            ],
        }
    )
    # The planner is asked again (its repair rounds) and keeps answering the same.
    model = ScriptedModel([reply] * 3)
    result = await Agent(TOOLS, model=model, store=store).run(plan, approve="all")
    assert result.status == "failed"
    research = result.state.steps["research"]
    assert research.status == "failed" and research.error is not None
    assert research.error.startswith("phase 'research'") and "\n" not in research.error
    assert why in research.error
    assert result.state.steps["write"].status == "skipped"
    assert EFFECTS == []
    assert "plan_revised" not in kinds(store, result.run_id)


async def test_an_unplannable_phase_with_on_failure_continue_lets_the_rest_run(store: SqliteStore) -> None:
    plan = Plan.model_validate(
        {
            "goal": "g",
            "steps": [
                {
                    "id": "extra",
                    "phase": {"goal": "nice to have", "tools": ["search"]},
                    "on_failure": "continue",
                },
                {"id": "main", "tool": "search", "args": {"topic": "main"}},
            ],
        }
    )
    model = ScriptedModel(["not json"] * 3)
    result = await Agent(TOOLS, model=model, store=store).run(plan, approve="all")
    assert result.state.steps["extra"].status == "failed"
    assert result.state.steps["main"].status == "succeeded"
    assert EFFECTS == ["search main"]


async def test_a_run_paused_while_a_phase_is_planned_resumes_and_plans_it_again() -> None:
    from forethought.events.state import RunState
    from forethought.execution.executor import ApproveAll, Executor, ExecutorOptions

    class Planner:
        """Stops the run on its first question (as Ctrl-C or a budget would); answers later."""

        def __init__(self) -> None:
            self.executor: Executor | None = None
            self.asked = 0

        async def plan_phase(self, plan: Plan, step: Any, state: RunState) -> Plan:
            self.asked += 1
            if self.asked == 1:
                assert self.executor is not None
                self.executor.stop("paused", "stopped while planning")
                await asyncio.Event().wait()  # cancelled by the stop
            return Plan.model_validate(
                {"goal": "g", "steps": [{"id": "s1", "tool": "search", "args": {"topic": "t"}}]}
            )

        def admit(self, plan: Plan) -> None:
            return None

    plan = Plan.model_validate(
        {"goal": "g", "steps": [{"id": "research", "phase": {"goal": "collect", "tools": ["search"]}}]}
    )
    tools = {t.spec.name: t for t in TOOLS}
    planner = Planner()
    options = ExecutorOptions(phase_planner=planner, gate=ApproveAll())
    first = Executor(plan, tools, options)
    planner.executor = first
    state = await first.run()
    assert state.status == "paused" and EFFECTS == []
    assert state.steps["research"].status == "cancelled"  # its planning was cut off; nothing ran
    second = Executor(None, tools, options, prior_events=first.log)
    planner.executor = second
    state = await second.run()
    assert state.status == "succeeded", state.reason
    assert planner.asked == 2 and EFFECTS == ["search t"]
    assert not any(isinstance(e, E.StepNeedsReview) for e in second.log)


async def test_without_a_phase_planner_the_executor_fails_the_phase_clearly() -> None:
    from forethought.execution.executor import run_plan

    state = await run_plan(top_plan(), {t.spec.name: t for t in TOOLS})
    assert state.status == "failed"
    assert "no phase planner is configured" in (state.steps["research"].error or "")
    assert EFFECTS == []


# ------------------------------------------------------------------------------ approval


async def test_an_approval_of_the_top_plan_does_not_cover_a_phases_destructive_step(
    store: SqliteStore,
) -> None:
    wipe_all = answer({"id": "s1", "tool": "wipe", "args": {"target": "everything"}})
    model = ScriptedModel([RESEARCH, wipe_all])
    agent = Agent(TOOLS, model=model, store=store)
    # The top plan is approved (read-only scope); the phase then plans a destructive step.
    waiting = await agent.run(top_plan(), approve="read_only")
    model.assert_all_used()
    assert waiting.status == "awaiting_approval"
    assert "wipe everything" not in " ".join(EFFECTS)
    assert EFFECTS == ["search tide pools", "draft"]
    reason = waiting.state.reason or ""
    assert "phase 'publish' planned side effects no earlier approval covers: publish__s1 calls wipe" in reason
    # Resuming without a new approval still does not run it, and does not plan the phase again
    # (the model has no answer left: a new planner call would fail the run).
    again = await agent.resume(waiting.run_id)
    assert again.status == "awaiting_approval"
    assert "wipe everything" not in " ".join(EFFECTS)
    # A person approves the current version (the sub-plan): now it runs, exactly once.
    done = await agent.approve(waiting.run_id)
    assert done is not None and done.status == "succeeded", done.state.reason if done else None
    assert EFFECTS == ["search tide pools", "draft", "wipe everything"]
    assert kinds(store, waiting.run_id).count("plan_revised") == 2


async def test_a_persons_full_approval_of_the_top_plan_does_not_cover_what_a_phase_plans(
    store: SqliteStore,
) -> None:
    from forethought.agent import Decision

    async def approves(review: Any) -> Decision:
        return Decision("approve")

    plan = Plan.model_validate(
        {
            "goal": "publish, then clean up",
            "steps": [
                {"id": "out", "tool": "publish", "args": {"text": "note"}},
                {"id": "cleanup", "depends_on": ["out"], "phase": {"goal": "clean up", "tools": ["wipe"]}},
            ],
        }
    )
    model = ScriptedModel([answer({"id": "s1", "tool": "wipe", "args": {"target": "/"}})])
    result = await Agent(TOOLS, model=model, store=store).run(plan, reviewer=approves)
    # The person approved v1 in full (its publish step ran); the wipe the phase planned did not.
    assert EFFECTS == ["publish note"]
    assert result.status == "awaiting_approval"
    assert "cleanup__s1" in (result.state.reason or "")


async def test_yes_all_approves_a_sub_plan_unless_the_planner_is_unsure(store: SqliteStore) -> None:
    sure = answer({"id": "s1", "tool": "publish", "args": {"text": "n"}}, confidence=0.9)
    model = ScriptedModel([RESEARCH, sure])
    agent = Agent(TOOLS, model=model, store=store, confidence_threshold=0.5)
    granted = await agent.run(top_plan(), approve="all")
    assert granted.status == "succeeded"
    events = store.events(granted.run_id)
    approvals = [e for e in events if isinstance(e, E.PlanApproved)]
    revised = [e for e in events if isinstance(e, E.PlanRevised)]
    # The top plan's approval and the publish phase's version's (the research one is read-only).
    assert [a.plan_hash for a in approvals][-1] == revised[-1].plan_hash
    assert "(--yes-all)" in approvals[-1].approver

    EFFECTS.clear()
    unsure = answer({"id": "s1", "tool": "publish", "args": {"text": "n"}}, confidence=0.2)
    model = ScriptedModel([RESEARCH, unsure])
    held = await Agent(TOOLS, model=model, store=store, confidence_threshold=0.5).run(
        top_plan(), approve="all"
    )
    assert held.status == "awaiting_approval"
    assert "phase 'publish'" in (held.state.reason or "")
    assert not any(e.startswith("publish") for e in EFFECTS)


async def test_read_only_sub_steps_run_under_read_only_approval(store: SqliteStore) -> None:
    plan = Plan.model_validate(
        {"goal": "g", "steps": [{"id": "research", "phase": {"goal": "collect facts", "tools": ["search"]}}]}
    )
    result = await Agent(TOOLS, model=ScriptedModel([RESEARCH]), store=store).run(plan, approve="read_only")
    assert result.status == "succeeded"
    assert EFFECTS == ["search tide pools"]


# ------------------------------------------------------------------------------ budgets


async def test_budgets_count_the_whole_tree(store: SqliteStore) -> None:
    three = answer(*({"id": f"s{i}", "tool": "search", "args": {"topic": f"t{i}"}} for i in (1, 2, 3)))
    plan = Plan.model_validate(
        {"goal": "g", "steps": [{"id": "research", "phase": {"goal": "collect", "tools": ["search"]}}]}
    )
    capped = await Agent(
        TOOLS, model=ScriptedModel([three]), store=store, budgets=Budgets(max_steps=2, on_breach="abort")
    ).run(plan, approve="all")
    assert capped.status == "failed" and "max_steps" in (capped.state.reason or "")
    assert len(EFFECTS) <= 2

    EFFECTS.clear()
    costly = ModelResponse(text=RESEARCH, usage=Usage(input_tokens=900, output_tokens=200), model="scripted")
    tokens = await Agent(
        TOOLS, model=ScriptedModel([costly]), store=store, budgets=Budgets(max_tokens=1000, on_breach="abort")
    ).run(plan, approve="all")
    assert tokens.status == "failed" and "max_tokens" in (tokens.state.reason or "")
    assert tokens.state.input_tokens + tokens.state.output_tokens == 1100


# ------------------------------------------------------------------------------ replay


async def test_a_run_with_phases_replays_exactly_serving_the_planner_from_the_record(
    store: SqliteStore,
) -> None:
    model = ScriptedModel([RESEARCH, PUBLISH])
    result = await Agent(TOOLS, model=model, store=store).run(top_plan(), approve="all")
    assert result.status == "succeeded"
    calls = len(EFFECTS)
    replay = await replay_run(store, result.run_id)
    assert replay.same, replay.differences
    assert replay.same_order
    assert len(EFFECTS) == calls, "the replay called a real tool"
    assert replay.state.status == "succeeded"
    # A run that stopped for the approval of a phase's version replays to the same stop.
    wipe_all = answer({"id": "s1", "tool": "wipe", "args": {"target": "everything"}})
    waiting = await Agent(TOOLS, model=ScriptedModel([RESEARCH, wipe_all]), store=store).run(
        top_plan(), approve="read_only"
    )
    assert waiting.status == "awaiting_approval"
    calls = len(EFFECTS)
    replay = await replay_run(store, waiting.run_id)
    assert replay.same, replay.differences
    assert replay.state.status == "awaiting_approval" and len(EFFECTS) == calls


def test_a_recorded_sub_plan_splices_back_to_the_same_version() -> None:
    sub = Plan.model_validate(
        {
            "goal": "publish",
            "steps": [
                {"id": "a", "tool": "draft", "args": {"facts": "${write.text}"}},
                {"id": "b", "tool": "publish", "args": {"text": "${a.text}"}, "depends_on": ["a"]},
                {"id": "c", "tool": "search", "args": {"topic": "x"}},
            ],
            "metadata": {"confidence": 0.7},
        }
    )
    base = top_plan(tools=["draft", "publish", "search"], max_steps=3)
    spliced = splice_phase(base, "publish", sub)
    again = recorded_sub_plan(spliced, "publish")
    assert splice_phase(base, "publish", again) == spliced


# ------------------------------------------------------------------------------ kill -9 and resume

CHILD = textwrap.dedent(
    """
    import asyncio, json, os, sys, time
    from pathlib import Path
    from forethought import tool
    from forethought.agent import Agent
    from forethought.models.scripted import ScriptedModel
    from forethought.plan.model import Plan
    from forethought.runs.store.sqlite import SqliteStore

    work = Path(sys.argv[1]); mode = sys.argv[2]; run_id = sys.argv[3] if len(sys.argv) > 3 else None
    fifo = work / "signal.fifo"

    def signal_parent_and_hang(what):
        # Tell the parent where we are, then wait to be killed (or, once resumed, go on).
        if (work / "no-hang").exists():
            return
        with open(fifo, "w") as f:
            f.write(what + "\\n")
        while True:
            time.sleep(3600)

    def effect(line):
        with open(work / "effects.txt", "a") as f:
            f.write(line + "\\n")
            f.flush(); os.fsync(f.fileno())

    @tool
    def fetch(name: str) -> str:
        \"\"\"Fetch a source (read-only).\"\"\"
        if name == "b" and mode == "in-phase":
            signal_parent_and_hang("in-phase")  # killed mid-call, before its effect
        effect("fetch " + name)
        return name.upper()

    @tool(effect="mutating")
    def store_note(text: str) -> str:
        \"\"\"Store a note.\"\"\"
        effect("store " + text)
        return "ok"

    def research(request):
        return json.dumps({"steps": [
            {"id": "a", "tool": "fetch", "args": {"name": "a"}},
            {"id": "b", "tool": "fetch", "args": {"name": "b"}, "depends_on": ["a"]},
            {"id": "c", "tool": "fetch", "args": {"name": "c"}, "depends_on": ["b"]},
        ]})

    def keep(request):
        return json.dumps({"steps": [{"id": "s1", "tool": "store_note", "args": {"text": "note"}}]})

    def reply(request):
        text = request.messages[-1].content
        return research(request) if "collect the sources" in text else keep(request)

    plan = Plan.model_validate({"goal": "research then keep a note", "steps": [
        {"id": "first", "tool": "fetch", "args": {"name": "first"}},
        {"id": "research", "depends_on": ["first"],
         "phase": {"goal": "collect the sources", "tools": ["fetch"], "max_steps": 3}},
        {"id": "keep", "depends_on": ["research"],
         "phase": {"goal": "keep a note", "tools": ["store_note"], "max_steps": 1}},
    ]})
    class AnswersThenHangs(ScriptedModel):
        async def complete(self, request):
            response = await super().complete(request)
            if mode == "planner-answered" and "collect the sources" in request.messages[-1].content:
                if not (work / "no-hang").exists():
                    with open(fifo, "w") as f:
                        f.write("planner-answered\\n")
                    await asyncio.Event().wait()  # the answer is never returned: killed here
            return response

    model = AnswersThenHangs([reply] * 4)
    agent = Agent([fetch, store_note], model=model, store=SqliteStore(work / "runs.db"))

    async def main():
        if run_id is None:
            result = await agent.run(plan, approve="all")
        else:
            result = await agent.resume(run_id, approve="all")
        print(json.dumps({"run_id": result.run_id, "status": result.status}))

    asyncio.run(main())
    """
)


def _await_signal(fifo: Path, proc: subprocess.Popen[str]) -> str:
    """Block until the child writes to the FIFO (it opens it for writing when it gets there)."""
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        buf = b""
        while b"\n" not in buf:
            ready, _, _ = select.select([fd], [], [], 120)  # safety net, not a synchronisation
            assert ready, "the child never reached the point to be killed at"
            chunk = os.read(fd, 100)
            if not chunk and proc.poll() is not None:
                raise AssertionError(f"the child ended first: {proc.stdout.read() if proc.stdout else ''}")
            buf += chunk
        return buf.decode().strip()
    finally:
        os.close(fd)


@pytest.mark.skipif(
    not hasattr(signal, "SIGKILL") or not hasattr(os, "mkfifo"), reason="needs SIGKILL, FIFOs"
)
@pytest.mark.parametrize("mode", ["in-phase", "planner-answered"])
def test_kill_9_inside_a_phase_then_resume_runs_nothing_twice(tmp_path: Path, mode: str) -> None:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    os.mkfifo(tmp_path / "signal.fifo")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(
        [sys.executable, str(script), str(tmp_path), mode],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        assert _await_signal(tmp_path / "signal.fifo", proc) == mode
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    store = SqliteStore(tmp_path / "runs.db")
    (run_id,) = [r.run_id if hasattr(r, "run_id") else r["run_id"] for r in store.list_runs()]
    before = store.events(run_id)
    revised_before = [e for e in before if isinstance(e, E.PlanRevised)]
    if mode == "in-phase":
        # The sub-plan was recorded and some sub-steps completed before the kill.
        assert [e.phase for e in revised_before] == ["research"]
        done = {e.step_id for e in before if isinstance(e, E.StepSucceeded)}
        assert {"first", "research__a"} <= done
    else:
        # The planner was asked, but no version was recorded: the phase is planned again.
        assert revised_before == []
    (tmp_path / "no-hang").touch()
    out = subprocess.run(
        [sys.executable, str(script), str(tmp_path), mode, run_id],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1])["status"] == "succeeded", out.stdout
    effects = (tmp_path / "effects.txt").read_text().splitlines()
    # Every effect happened once, at every level. (In "in-phase", fetch b was cut off mid-call
    # before its effect; an idempotent tool is called again with the same key on resume, a
    # non-idempotent one would be held for a person's review.)
    assert effects == ["fetch first", "fetch a", "fetch b", "fetch c", "store note"]
    after = store.events(run_id)
    revised = [e for e in after if isinstance(e, E.PlanRevised)]
    # Each phase was planned and recorded exactly once across both processes.
    assert [e.phase for e in revised] == ["research", "keep"]
    started = [e.step_id for e in after if isinstance(e, E.StepStarted)]
    for sid in ("first", "research__a", "research__c", "keep__s1"):
        assert started.count(sid) == 1, (sid, started)


# ------------------------------------------------------------------------------ the example


NOTE = "A note on tide pools. Anemones, crabs and sea stars live in tide pools."


def _example(tmp_path: Path) -> dict[str, str]:
    """The example copied to ``tmp_path`` with scripted planner replies; the CLI's environment."""
    example = ROOT / "examples" / "hierarchical"
    for name in ("plan.yaml", "tools.yaml", "notes.py"):
        shutil.copy(example / name, tmp_path / name)
    replies = [
        answer(
            {"id": "s1", "tool": "find_sources", "args": {"topic": "tide"}},
            {"id": "s2", "tool": "read_source", "args": {"name": "animals"}, "depends_on": ["s1"]},
        ),
        # What a planner copies from the drafted note it is shown (the write step's output).
        answer({"id": "s1", "tool": "publish_note", "args": {"text": NOTE}}),
    ]
    (tmp_path / "replies.json").write_text(json.dumps(replies))
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "FORETHOUGHT_MODEL": f"scripted:{tmp_path / 'replies.json'}",
    }


def _cli(tmp_path: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "forethought", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=env,
    )


def test_the_hierarchical_example_runs_end_to_end_with_the_scripted_model(tmp_path: Path) -> None:
    env = _example(tmp_path)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "forethought",
            "exec",
            "plan.yaml",
            "--tools",
            "tools.yaml",
            "--db",
            "r.db",
            "--yes-all",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=env,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert (tmp_path / "published.txt").read_text() == NOTE + "\n"
    events = SqliteStore(tmp_path / "r.db").events(json.loads(out.stdout)["run_id"])
    revised = [e for e in events if isinstance(e, E.PlanRevised)]
    assert [e.phase for e in revised] == ["research", "publish"]
    prompts = [e.request["messages"][-1]["content"] for e in events if isinstance(e, E.ModelCalled)]
    assert NOTE in prompts[-1]  # the publish phase was planned with the drafted note in view


def test_the_example_under_yes_waits_for_the_publish_phase_and_approve_continues_it(tmp_path: Path) -> None:
    env = _example(tmp_path)
    out = _cli(tmp_path, env, "exec", "plan.yaml", "--tools", "tools.yaml", "--db", "r.db", "--yes", "--json")
    # Read-only work ran (research's sub-plan, write); the publish phase's step waits.
    assert out.returncode == 3, out.stdout + out.stderr
    summary = json.loads(out.stdout)
    assert summary["status"] == "awaiting_approval"
    assert "phase 'publish'" in summary["reason"] and "publish__s1 calls publish_note" in summary["reason"]
    assert not (tmp_path / "published.txt").exists()
    run_id = summary["run_id"]
    # The review screen lists every version, the phases' sub-plans included.
    shown = _cli(tmp_path, env, "show", run_id, "--db", "r.db")
    assert shown.returncode == 0, shown.stderr
    assert "publish__s1" in shown.stdout
    # A person approves the current version: publish runs once; no phase is planned again
    # (the scripted replies would be read from the start: a new planner call would plan research).
    approved = _cli(tmp_path, env, "approve", run_id, "--db", "r.db")
    assert approved.returncode == 0, approved.stdout + approved.stderr
    assert (tmp_path / "published.txt").read_text() == NOTE + "\n"
    events = SqliteStore(tmp_path / "r.db").events(run_id)
    assert [e.phase for e in events if isinstance(e, E.PlanRevised)] == ["research", "publish"]
    assert sum(1 for e in events if isinstance(e, E.ModelCalled)) == 2
    # The graph of the run's final plan shows the phases expanded, and collapsed on request.
    final = [e for e in events if isinstance(e, E.PlanRevised)][-1].plan
    (tmp_path / "final.json").write_text(json.dumps(final))
    graph = _cli(tmp_path, env, "graph", "final.json", "--tools", "tools.yaml")
    assert graph.returncode == 0, graph.stderr
    assert "research__s1" in graph.stdout and "publish__s1" in graph.stdout
    collapsed = _cli(tmp_path, env, "graph", "final.json", "--tools", "tools.yaml", "--collapse-phases")
    assert collapsed.returncode == 0, collapsed.stderr
    assert "research__s1" not in collapsed.stdout and "research" in collapsed.stdout
